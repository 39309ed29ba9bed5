import Foundation

// MARK: - TransportFailure

/// The one place where what ends a trip becomes the error callers see: an engine's failure (a
/// ``TransportError``, a `URLError`, anything a transport throws), and the session's own
/// verdicts (``TimeoutExceeded``: the call's deadline, the idle limit of a wait).
///
/// The same failure reads the same wherever it is met: before the head it fails the trip
/// (``RequestError/Code/transportFailed``), in a body the caller streams it fails the stream
/// (``RequestError/Code/streamFailed``); a timeout is ``RequestError/Code/timedOut`` and an
/// engine's own cancel ``RequestError/Code/cancelled`` in both. A ``RequestError`` or a
/// `CancellationError` is already what callers see and passes as it is.
enum TransportFailure {
    /// Where the failure met the call.
    enum Phase {
        /// Before the head, or in a body read whole before the call returns.
        case trip
        /// In a body the caller reads as it streams.
        case body
    }

    /// The error callers see for `error`.
    ///
    /// - Parameters:
    ///   - error: What the transport threw, or one of the session's timeout verdicts.
    ///   - method: The request's method, for the message.
    ///   - url: The request's URL, for the message.
    ///   - phase: Where it was met.
    /// - Returns: A ``RequestError``, or the `CancellationError` it was.
    static func requestError(
        _ error: any Error, method: HTTPMethod?, url: URL?, phase: Phase
    ) -> any Error {
        if error is RequestError || error is CancellationError {
            return error
        }
        if let verdict = error as? TimeoutExceeded {
            return RequestError(.timedOut, method: method, url: url, detail: verdict.detail, transportErrorKind: .timedOut)
        }
        let kind = TransportError.kind(of: error)
        let engine = TransportError.engineError(error)
        // The transport's own words (what the engine's terse error means) go with it.
        let detail = (error as? TransportError)?.detail ?? ""
        switch kind {
        case .timedOut:
            let fallback = phase == .trip ? "the transport gave up waiting" : "the body stopped arriving"
            return RequestError(.timedOut, method: method, url: url, detail: detail.isEmpty ? fallback : detail,
                                underlyingError: engine, transportErrorKind: kind)
        case .cancelled:
            // The engine cancelled the transfer while nothing here asked it to.
            return RequestError(.cancelled, method: method, url: url, detail: detail, underlyingError: engine, transportErrorKind: kind)
        default:
            return RequestError(phase == .trip ? .transportFailed : .streamFailed, method: method, url: url, detail: detail,
                                underlyingError: engine, transportErrorKind: kind)
        }
    }
}
