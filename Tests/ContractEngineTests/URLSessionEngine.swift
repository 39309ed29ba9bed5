import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - Locked

/// A value behind a lock: this target's only lock. Inside it, only state is read and written.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

// MARK: - URLSessionEngine

/// An engine over a `URLSession` of its own and its delegate callbacks, as a third party would
/// write one: redirects returned, no cookies, no cache, no timer of the engine's own. It cannot
/// hold a transfer back on Linux (`suspend()` restarts a libcurl transfer), so it says so and the
/// transfer spills to disk instead.
final class URLSessionEngine: NSObject, Engine, URLSessionDataDelegate, @unchecked Sendable {
    let pauses = false
    /// The calls under way, by task identifier. Invariant: a call is here from its task's start to
    /// its completion.
    private let calls = Locked<[Int: Call]>([:])
    private var session: URLSession!

    override init() {
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 7 * 24 * 3600
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    /// Ends the engine's session (it holds its delegate until then).
    func shutdown() {
        session.invalidateAndCancel()
    }

    func start(_ request: OutgoingRequest, body: ChunkStream, events: EngineEvents) throws -> any EngineCall {
        var urlRequest = try request.urlRequest()
        let call = Call(events: events)
        let session = self.session!
        // The body is read before the task starts: this engine sends bodies whole.
        let reading = Task {
            var data = Data()
            do {
                while let chunk = try await body.next() { data.append(chunk) }
            } catch {
                events.end(error)
                return
            }
            if !data.isEmpty { urlRequest.httpBody = data }
            let task = session.dataTask(with: urlRequest)
            self.calls.withLock { $0[task.taskIdentifier] = call }
            call.started(task)
        }
        call.reading(reading)
        return call
    }

    private func call(for task: URLSessionTask) -> Call? {
        calls.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        if let http = response as? HTTPURLResponse, let call = call(for: dataTask) {
            call.events.head(http.statusCode, Self.fields(of: http))
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if let call = call(for: dataTask) { call.events.chunk(data, call) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)                                   // the session follows redirects
    }

    /// A 401 or 407 is the session's to answer: returned as the response. FoundationNetworking
    /// never completes a task under default handling, so there the challenge's failure response
    /// is the head (with no body), and the challenge is declined off the delegate's queue.
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        #if canImport(FoundationNetworking)
        if let http = challenge.failureResponse as? HTTPURLResponse,
           let call = calls.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) {
            call.events.head(http.statusCode, Self.fields(of: http))
            call.events.end(nil)
        }
        DispatchQueue.global().async { completionHandler(.cancelAuthenticationChallenge, nil) }
        #else
        let method = challenge.protectionSpace.authenticationMethod
        let isTLS = method == NSURLAuthenticationMethodServerTrust || method == NSURLAuthenticationMethodClientCertificate
        completionHandler(isTLS ? .performDefaultHandling : .rejectProtectionSpace, nil)
        #endif
    }

    private static func fields(of response: HTTPURLResponse) -> [(String, String)] {
        response.allHeaderFields.compactMap { name, value -> (String, String)? in
            guard let name = name as? String else { return nil }
            return (name, "\(value)")
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let call = calls.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        call?.events.end(error)
    }
}

// MARK: - Call

/// One exchange: the body being read, then its task. Invariant: once `cancelled`, no task
/// starts, and the one that started is cancelled (after the lock).
private final class Call: EngineCall {
    let events: EngineEvents
    private let state = Locked<(reading: Task<Void, Never>?, task: URLSessionDataTask?, cancelled: Bool)>((nil, nil, false))

    init(events: EngineEvents) {
        self.events = events
    }

    func reading(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { state -> Bool in
            if !state.cancelled { state.reading = task }
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    func started(_ task: URLSessionDataTask) {
        let cancelled = state.withLock { state -> Bool in
            if !state.cancelled { state.task = task }
            return state.cancelled
        }
        if cancelled {
            task.cancel()
            events.end(CancellationError())
        } else {
            task.resume()
        }
    }

    func pause() {}
    func resume() {}

    func cancel() {
        let (reading, task) = state.withLock { state -> (Task<Void, Never>?, URLSessionDataTask?) in
            state.cancelled = true
            return (state.reading.take(), state.task.take())
        }
        reading?.cancel()
        task?.cancel()
    }
}
