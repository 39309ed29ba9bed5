import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - InterceptorChain

/// One call's way through the pipeline: the stages in order, then the transport.
///
/// ``InterceptorNext`` is this chain and a position in it, so that passing the rest of the chain
/// to a stage allocates nothing. The chain counts the trips to the transport and tells the
/// monitors about each; it turns what a stage or the transport throws into the error callers see.
final class InterceptorChain: Sendable {
    let stages: [any Interceptor]
    let transport: any Transport
    let transfer: Session.Transfer?
    let context: RequestContext
    /// The monitors, or `nil` when the session has none (nothing is reported then).
    let monitors: (any EventMonitor)?
    let timeout: Duration?
    let start: ContinuousClock.Instant

    init(
        stages: [any Interceptor],
        transport: any Transport,
        transfer: Session.Transfer?,
        context: RequestContext,
        monitors: (any EventMonitor)?,
        timeout: Duration?
    ) {
        self.stages = stages
        self.transport = transport
        self.transfer = transfer
        self.context = context
        self.monitors = monitors
        self.timeout = timeout
        self.start = .now
    }

    /// Runs the stage at `index` with the rest of the chain, or the transport after the last stage.
    func run(_ request: consuming URLRequest, from index: Int) async throws -> Response {
        guard index < stages.count else {
            return try await send(request)
        }
        try Task.checkCancellation()
        let stage = stages[index]
        // Read before the stage takes the request: keeping the request itself would make the
        // stage's first change copy it.
        let url = request.url
        let method = request.httpMethod
        do {
            return try await stage.intercept(request, next: InterceptorNext(chain: self, index: index + 1))
        } catch {
            throw Self.stageError(error, stage: stage, request: Self.named(url, method))
        }
    }

    /// One trip to the transport, reported to the monitors.
    private func send(_ request: URLRequest) async throws -> Response {
        try Task.checkCancellation()
        try Self.checkOutgoing(request)
        let number = context.attempts.withLock { progress in
            progress.count += 1
            progress.failureReported = false
            return progress.count
        }
        let start = ContinuousClock.now
        monitors?.requestWillSend(request, attempt: RequestAttempt(callID: context.id, number: number, start: start))
        do {
            let (data, httpResponse) = if let transfer {
                try await transfer(transport, request)
            } else {
                try await transport.send(request)
            }
            let response = Response(request: request, httpResponse: httpResponse, data: data, start: start, duration: .now - start)
            if let monitors, isLive {
                monitors.requestDidReceive(response, attempt: RequestAttempt(callID: context.id, number: number, start: start, duration: response.duration))
            }
            return response
        } catch {
            let failure = Self.transportError(error, request: request, timeout: timeout)
            // A cancelled trip is the call's end (the caller cancelled, or the deadline passed):
            // the call reports it once, with the reason, in `finish(failing:url:method:)`.
            if let monitors, !(failure is CancellationError), markFailureReported() {
                monitors.requestDidFail(request, error: failure, attempt: RequestAttempt(callID: context.id, number: number, start: start, duration: .now - start))
            }
            throw failure
        }
    }

    /// Ends the call with an error: tells the monitors, unless the transport just reported this
    /// very failure, and silences whatever the abandoned stages report later.
    func finish(failing error: any Error, url: URL?, method: String?) {
        let (number, reported) = context.attempts.withLock { progress in
            defer { progress.finished = true }
            return (progress.count, progress.failureReported)
        }
        guard let monitors, !reported else { return }
        let attempt = RequestAttempt(callID: context.id, number: number, start: start, duration: .now - start)
        monitors.requestDidFail(Self.named(url, method), error: error, attempt: attempt)
    }

    private var isLive: Bool {
        !context.attempts.withLock { $0.finished }
    }

    private func markFailureReported() -> Bool {
        context.attempts.withLock { progress in
            guard !progress.finished else { return false }
            progress.failureReported = true
            return true
        }
    }

    // MARK: Errors

    /// A request carrying only a URL and method, for naming them in an error or event.
    static func named(_ url: URL?, _ method: String?) -> URLRequest {
        var request = URLRequest(url: url ?? URL(fileURLWithPath: "/"))
        request.httpMethod = method
        return request
    }

    /// What a stage threw, as callers see it: the library's own errors and cancellation pass
    /// through; anything else names the stage.
    static func stageError(_ error: any Error, stage: any Interceptor, request: URLRequest) -> any Error {
        if error is RequestError || error is CancellationError {
            return error
        }
        if Task.isCancelled {
            return CancellationError()
        }
        return RequestError(.interceptorFailed, request: request, detail: "\(type(of: stage))", underlyingError: error)
    }

    /// What a transport threw, as callers see it.
    static func transportError(_ error: any Error, request: URLRequest, timeout: Duration?) -> any Error {
        if Task.isCancelled {
            return CancellationError()
        }
        if let error = error as? RequestError {
            return error
        }
        let urlErrorCode = (error as? URLError)?.code
        if error is DeadlineExceeded || urlErrorCode == .timedOut {
            let detail = timeout.map { "no complete response within \($0)" } ?? "no complete response in time"
            return RequestError(.timedOut, request: request, detail: detail, underlyingError: error is DeadlineExceeded ? nil : error)
        }
        let code: RequestError.Code = urlErrorCode == .cancelled || error is CancellationError ? .cancelled : .transportFailed
        return RequestError(code, request: request, underlyingError: error)
    }
}

// MARK: - CallMonitor

/// The monitor interceptors see in ``RequestContext/monitor``: it forwards to the session's
/// monitors, and a retry it hears about means the failure before it is not the call's end.
struct CallMonitor: EventMonitor {
    let monitors: any EventMonitor
    let attempts: Guarded<CallProgress>

    func requestWillSend(_ request: URLRequest, attempt: RequestAttempt) {
        monitors.requestWillSend(request, attempt: attempt)
    }

    func requestDidReceive(_ response: Response, attempt: RequestAttempt) {
        monitors.requestDidReceive(response, attempt: attempt)
    }

    func requestDidFail(_ request: URLRequest, error: any Error, attempt: RequestAttempt) {
        monitors.requestDidFail(request, error: error, attempt: attempt)
    }

    func requestWillRetry(_ request: URLRequest, attempt: RequestAttempt, delay: Duration, reason: String) {
        attempts.withLock { $0.failureReported = false }
        monitors.requestWillRetry(request, attempt: attempt, delay: delay, reason: reason)
    }
}

/// Stands in for the monitors of a session that has none.
struct NoMonitor: EventMonitor {}
