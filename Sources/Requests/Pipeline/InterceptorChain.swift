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
    /// What a trip does with the body the transport returns.
    enum Mode {
        /// Reads it into ``Response/data`` before the stages see the response (`request`).
        case collect
        /// Leaves it streaming in the response the stages see (`stream`, `download`).
        case stream
    }

    let stages: [any Interceptor]
    let transport: any Transport
    let context: RequestContext
    /// The monitors, or `nil` when the session has none (nothing is reported then).
    let monitors: (any EventMonitor)?
    /// The call's limits: its deadline and the idle limit of each wait on the transport.
    let clock: CallClock
    let mode: Mode
    /// Called as a request body is sent: an upload's progress.
    let progress: (@Sendable (_ sent: Int64, _ total: Int64?) -> Void)?
    /// Whether a body that can be sent once only (a stream) went out already.
    let streamSent = Guarded(false)
    /// The body of the newest trip, for a stream call.
    let latest = LatestBody()
    /// Whether the session was shut down: checked before every trip, retries and redirects included.
    let isShutDown: @Sendable () -> Bool
    let start: ContinuousClock.Instant

    init(
        stages: [any Interceptor],
        transport: any Transport,
        context: RequestContext,
        monitors: (any EventMonitor)?,
        clock: CallClock,
        mode: Mode,
        progress: (@Sendable (_ sent: Int64, _ total: Int64?) -> Void)? = nil,
        isShutDown: @escaping @Sendable () -> Bool = { false }
    ) {
        self.clock = clock
        self.isShutDown = isShutDown
        self.stages = stages
        self.transport = transport
        self.context = context
        self.monitors = monitors
        self.mode = mode
        self.progress = progress
        self.start = .now
    }

    /// Runs the stage at `index` with the rest of the chain, or the transport after the last stage.
    func run(_ request: consuming OutgoingRequest, from index: Int) async throws -> Response {
        guard index < stages.count else {
            return try await send(request)
        }
        try Task.checkCancellation()
        let stage = stages[index]
        // Read before the stage takes the request: keeping the request itself would make the
        // stage's first change copy it.
        let url = request.url
        let method = request.method
        do {
            return try await stage.intercept(request, next: InterceptorNext(chain: self, index: index + 1))
        } catch {
            throw Self.stageError(error, stage: stage, url: url, method: method)
        }
    }

    /// One trip to the transport, reported to the monitors: the head, then the body read into the
    /// response (``Mode/collect``) or left streaming in it (``Mode/stream``).
    private func send(_ request: OutgoingRequest) async throws -> Response {
        try Task.checkCancellation()
        try Self.checkOutgoing(request)
        // The idle limit starts afresh; a passed deadline sends nothing.
        try clock.startTrip()
        let number = context.attempts.withLock { progress in
            progress.count += 1
            progress.failureReported = false
            return progress.count
        }
        var request = request
        // The trip's span starts, and its context goes out in the request's fields.
        let observer = context.observer?.tripStarted(&request, number: number)
        let start = ContinuousClock.now
        monitors?.requestWillSend(request, attempt: RequestAttempt(callID: context.id, number: number, start: start))
        let handle = TransferHandle()
        // What the transport and the collect step hang on the handle goes with the trip.
        defer { handle.finish() }
        // A new trip: a body an earlier trip left behind (a retry or a redirect moved on from
        // it) is cancelled now, not when this head arrives.
        if mode == .stream {
            latest.cancelCurrent()
        }
        do {
            try clock.waiting(for: .head, on: .trip(handle))
            if isShutDown() {
                throw RequestError(.sessionShutDown, request: request, detail: "shutdown() was called on this session")
            }
            let outgoing = try transportRequest(for: request, handle: handle)
            var (head, body) = try await transport.send(outgoing)
            body.request = (request.method, request.url)
            var response: Response
            let headArrived = ContinuousClock.now
            var trip: TripTimings
            switch mode {
            case .collect:
                let data = try await collect(body, handle: handle)
                let end = ContinuousClock.now
                response = Response(request: request, head: head, data: data, start: start, duration: end - start)
                // Read after the body: an engine may tell its phases only as the task ends
                // (`URLSessionTaskMetrics`).
                trip = handle.timings(start: start)
                trip.responseEnd = end
                clock.stopped()
            case .stream:
                clock.stopped()
                if let verdict = clock.verdict {
                    // A limit passed just as the head arrived: the handle has cancelled the body.
                    body.cancel()
                    throw verdict
                }
                // The reader waits on the same clock: the deadline runs to the body's end.
                body.clock = clock
                latest.replace(with: body)
                response = Response(request: request, head: head, data: Data(), start: start, duration: headArrived - start)
                response.body = body
                trip = handle.timings(start: start)
            }
            // The engine's mark of the response's first byte, else the head's arrival here.
            if trip.responseStart == nil { trip.responseStart = headArrived }
            response.timings = context.record(trip)
            observer?.ended(response, timings: trip)
            if let monitors, isLive {
                monitors.requestDidReceive(response, attempt: RequestAttempt(callID: context.id, number: number, start: start, duration: response.duration))
            }
            return response
        } catch {
            clock.stopped()
            let cause: any Error = clock.verdict ?? error
            let failure = Self.transportError(cause, request: request)
            let trip = handle.timings(start: start)
            _ = context.record(trip)
            observer?.failed(failure, timings: trip)
            // A cancelled trip is the call's end (the caller cancelled, or the deadline passed):
            // the call reports it once, with the reason, in `finish(failing:url:method:)`.
            if let monitors, !(failure is CancellationError), markFailureReported() {
                monitors.requestDidFail(request, error: failure, attempt: RequestAttempt(callID: context.id, number: number, start: start, duration: .now - start))
            }
            throw failure
        }
    }

    /// Reads a body whole, each chunk a sign of life for the clock. A connection that fails
    /// mid-body fails the trip as the transport's failure (retryable like any other): the caller
    /// never saw a stream.
    private func collect(_ body: ResponseBody, handle: TransferHandle) async throws -> Data {
        if let whole = body.takeWhole() {
            return whole
        }
        // The clock cuts a silent body off through the handle, too.
        handle.onCancel { body.cancel() }
        try clock.waiting(for: .body, on: .trip(handle))
        // The source itself, not the body's reader: what it throws is classified once, as this
        // trip's failure (``TransportFailure``), by ``send(_:)``.
        let source = body.source
        var data = Data()
        do {
            while let chunk = try await source.next() {
                data.append(chunk)
                clock.heard()
            }
        } catch {
            source.cancel()
            throw error
        }
        return data
    }

    /// The request as the transport gets it. A body in memory travels in the request itself; the
    /// call's file or stream goes with every trip that keeps the call's method (a stage that
    /// turns a `POST` into a `GET`, as a 303 redirect does, drops it), and a stream only once.
    private func transportRequest(for request: OutgoingRequest, handle: TransferHandle) throws -> TransportRequest {
        guard !request.body.isEmpty else {
            return TransportRequest(request, handle: handle, readsBodyWhole: mode == .collect)
        }
        if !request.body.isReplayable, streamSent.withLock({ sent in defer { sent = true }; return sent }) {
            throw RequestError(.encodingFailed, request: request,
                               detail: "the body is a stream, which is sent once; a redirect or retry cannot send it again")
        }
        // Bytes sent are signs of life too: a long upload is not a silent server.
        let progress: (@Sendable (Int64, Int64?) -> Void)? = if clock.idleLimit != nil || self.progress != nil {
            { [clock, report = self.progress] sent, total in
                clock.heard()
                report?(sent, total)
            }
        } else {
            nil
        }
        return TransportRequest(request, progress: progress, handle: handle, readsBodyWhole: mode == .collect)
    }

    func finish(failing error: any Error, url: URL?, method: HTTPMethod?, options: RequestOptions = RequestOptions()) {
        latest.close()
        let (number, reported) = context.attempts.withLock { progress in
            defer { progress.finished = true }
            return (progress.count, progress.failureReported)
        }
        guard let monitors, !reported else { return }
        let attempt = RequestAttempt(callID: context.id, number: number, start: start, duration: .now - start)
        monitors.requestDidFail(Self.named(url, method, options), error: error, attempt: attempt)
    }

    /// Tells the monitors that the cache answered this call.
    func reportCacheAnswer(_ response: Response) {
        context.observer?.answeredFromCache(response)
        guard let monitors, isLive else { return }
        let number = context.attempts.withLock { $0.count }
        monitors.requestWasAnsweredFromCache(response, attempt: RequestAttempt(callID: context.id, number: number, start: response.start, duration: response.duration))
    }

    /// A chain of no stages over the same transport and monitors, for a request sent on behalf of
    /// this call but outside it (a background revalidation): a call of its own, collecting its
    /// body, with a clock of its own whose deadline is this call's timeout, else its idle limit.
    func detached() -> InterceptorChain {
        let limit = clock.timeout ?? clock.idleLimit ?? .seconds(60)
        return InterceptorChain(
            stages: [], transport: transport,
            // Its trips' spans are children of this call's.
            context: RequestContext(deadline: .now + limit, serverOrigins: context.serverOrigins, monitors: monitors, observer: context.observer),
            monitors: monitors, clock: CallClock(timeout: limit, idleLimit: clock.idleLimit), mode: .collect, isShutDown: isShutDown
        )
    }

    /// The same chain for one more trip beside the call's own (a hedge): the same stages, call
    /// and monitors, and a clock of its own on the call's deadline, ended with ``InterceptorNext/endSibling()``.
    func sibling() -> InterceptorChain {
        InterceptorChain(stages: stages, transport: transport, context: context, monitors: monitors, clock: clock.sibling(),
                         mode: mode, progress: progress, isShutDown: isShutDown)
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
    /// A request that names the URL and method of a failure, for monitors told of it after the
    /// request itself is gone.
    static func named(_ url: URL?, _ method: HTTPMethod?, _ options: RequestOptions = RequestOptions()) -> OutgoingRequest {
        OutgoingRequest(url: url ?? URL(fileURLWithPath: "/"), method: method ?? .get, options: options)
    }

    static func stageError(_ error: any Error, stage: any Interceptor, url: URL?, method: HTTPMethod?) -> any Error {
        if error is RequestError || error is CancellationError {
            return error
        }
        if Task.isCancelled {
            return CancellationError()
        }
        if error is TimeoutExceeded {
            // A wait of a stage's that the call's clock ended (the cache's, say).
            return TransportFailure.requestError(error, method: method, url: url, phase: .trip)
        }
        return RequestError(.interceptorFailed, method: method, url: url, detail: "\(type(of: stage))", underlyingError: error)
    }

    static func transportError(_ error: any Error, request: OutgoingRequest) -> any Error {
        transportError(error, method: request.method, url: request.url)
    }

    static func transportError(_ error: any Error, method: HTTPMethod?, url: URL?) -> any Error {
        if Task.isCancelled {
            return CancellationError()
        }
        return TransportFailure.requestError(error, method: method, url: url, phase: .trip)
    }
}

// MARK: - LatestBody

/// The body of the newest transfer of one stream call. Invariant: it holds at most one body; a
/// body it lets go of for a newer one is cancelled (a retry or a redirect leaves it behind), and
/// so is one that arrives after the call ended (a transfer the call's deadline abandoned).
final class LatestBody: Sendable {
    private let state = Guarded<(body: ResponseBody?, closed: Bool)>((nil, false))

    func replace(with newer: ResponseBody) {
        let dropped: ResponseBody? = state.withLock { state in
            if state.closed { return newer }
            defer { state.body = newer }
            return state.body
        }
        dropped?.cancel()
    }

    /// Takes the body and closes the slot; the body is left running.
    func take() -> ResponseBody? {
        state.withLock { state in
            defer { state = (nil, true) }
            return state.body
        }
    }

    /// Closes the slot and cancels the body in it.
    func close() {
        take()?.cancel()
    }

    /// Cancels the body in the slot, leaving the slot open for the next trip's.
    func cancelCurrent() {
        let current = state.withLock { state -> ResponseBody? in
            defer { state.body = nil }
            return state.body
        }
        current?.cancel()
    }
}

// MARK: - CallMonitor

/// The monitor interceptors see in ``RequestContext/monitor``: it forwards to the session's
/// monitors, and a retry it hears about means the failure before it is not the call's end.
struct CallMonitor: EventMonitor {
    let monitors: any EventMonitor
    let attempts: Guarded<CallProgress>

    func requestWillSend(_ request: OutgoingRequest, attempt: RequestAttempt) {
        monitors.requestWillSend(request, attempt: attempt)
    }

    func requestDidReceive(_ response: Response, attempt: RequestAttempt) {
        monitors.requestDidReceive(response, attempt: attempt)
    }

    func requestDidFail(_ request: OutgoingRequest, error: any Error, attempt: RequestAttempt) {
        monitors.requestDidFail(request, error: error, attempt: attempt)
    }

    func requestWillRetry(_ request: OutgoingRequest, attempt: RequestAttempt, delay: Duration, reason: String) {
        attempts.withLock { $0.failureReported = false }
        monitors.requestWillRetry(request, attempt: attempt, delay: delay, reason: reason)
    }

    func requestWasAnsweredFromCache(_ response: Response, attempt: RequestAttempt) {
        monitors.requestWasAnsweredFromCache(response, attempt: attempt)
    }

    func resilienceEvent(_ event: ResilienceEvent, request: OutgoingRequest, attempt: RequestAttempt) {
        monitors.resilienceEvent(event, request: request, attempt: attempt)
    }
}

/// Stands in for the monitors of a session that has none.
struct NoMonitor: EventMonitor {}
