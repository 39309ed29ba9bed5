import Foundation

// MARK: - The pipeline's options

/// The per-request settings the library's own stages read. Set them on a session
/// (`Session(options:)`), on a call (`options:`), or in a modifier or interceptor
/// (`request.options.operationName = "getUser"`); a call's explicit `timeout:` and
/// `redirectPolicy:` arguments win over both.
extension RequestOptions {
    /// The call's timeout: the longest the whole call may take, until its response is complete
    /// (for a stream, the body's end; for a download, the file in place). `nil`: the session's.
    public var timeout: Duration? {
        get { self[TimeoutOption.self] }
        set { self[TimeoutOption.self] = newValue }
    }

    /// How the call follows redirects. `nil`: the session's policy.
    public var redirectPolicy: RedirectPolicy? {
        get { self[RedirectPolicyOption.self] }
        set { self[RedirectPolicyOption.self] = newValue }
    }

    /// Whether a ``RetryPolicy`` may send the request again; `true` unless set. A request that
    /// must go once (a payment without an idempotency key, say) sets it to `false`.
    public var retries: Bool {
        get { self[RetriesOption.self] }
        set { self[RetriesOption.self] = newValue }
    }

    /// A name for the operation, such as `getUser`: ``LoggingMonitor`` lines and HAR entries
    /// show it, and monitors read it from the request. `nil` unless set.
    public var operationName: String? {
        get { self[OperationNameOption.self] }
        set { self[OperationNameOption.self] = newValue }
    }
}

enum TimeoutOption: RequestOptionKey {
    static let defaultValue: Duration? = nil
}

enum RedirectPolicyOption: RequestOptionKey {
    static let defaultValue: RedirectPolicy? = nil
}

enum RetriesOption: RequestOptionKey {
    static let defaultValue = true
}

enum OperationNameOption: RequestOptionKey {
    static let defaultValue: String? = nil
}
