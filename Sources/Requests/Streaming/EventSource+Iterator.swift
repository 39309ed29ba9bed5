import Foundation

// MARK: - EventSource.Updates.Iterator

extension EventSource.Updates {
    /// Runs the standard's processing model: connect, read, and on the end of the response or a
    /// network error, wait and connect again with `Last-Event-ID`.
    ///
    /// It is a value owned by the loop that iterates it, so it needs no lock: each step happens
    /// in that loop's task, one after another.
    public struct Iterator: AsyncIteratorProtocol {
        let source: EventSource
        private var state: State = .connecting(after: nil)
        /// The event source's last event ID string: sent as `Last-Event-ID` when not empty.
        private var lastEventID = ""
        /// The reconnection time: the policy's initial delay until a `retry:` field sets it.
        private var reconnectionTime: Duration
        /// Reconnections in a row that delivered no event.
        private var attempts = 0
        /// Updates ready to hand out, in order.
        private var ready: [EventSource.Update] = []
        private var readyIndex = 0
        /// An error to throw once the updates before it are handed out.
        private var failure: (any Error)?
        /// Connections made so far.
        private var connections = 0

        private enum State {
            /// About to connect, after waiting so long (none for the first connection).
            case connecting(after: Duration?)
            /// Reading a connection's body.
            case reading(Connection)
            /// Ended: by 204, an error, or cancellation.
            case finished
        }

        /// One connection's body, and the parse state the standard gives each stream.
        private struct Connection {
            var chunks: ResponseBody.Iterator
            var splitter = LineSplitter(breaksOnCR: true, maxLength: 1 << 20)
            var parser: ServerSentEventParser
        }

        init(source: EventSource) {
            self.source = source
            reconnectionTime = source.reconnection.initialDelay
            // A `Last-Event-ID` the caller set (resuming from a saved ID) is where it starts.
            if case .success(let request) = source.request, let id = request.headers["Last-Event-ID"] {
                lastEventID = id
            }
        }

        /// The next update.
        ///
        /// - Returns: The update, or `nil` once the server answered 204.
        /// - Throws: As ``EventSource/Iterator/next()``.
        public mutating func next() async throws -> EventSource.Update? {
            while true {
                if readyIndex < ready.count {
                    defer { readyIndex += 1 }
                    return ready[readyIndex]
                }
                ready.removeAll(keepingCapacity: true)
                readyIndex = 0
                if let failure {
                    self.failure = nil
                    throw failure
                }
                switch state {
                case .finished:
                    return nil
                case .connecting(let delay):
                    try await connect(after: delay)
                case .reading(var connection):
                    // The connection is taken out while it is read, so that a thrown error
                    // leaves the state finished and the body's iterator dropped (which ends the
                    // transfer).
                    state = .finished
                    try await read(&connection)
                }
            }
        }

        // MARK: Connecting

        private mutating func connect(after delay: Duration?) async throws {
            state = .finished
            if let delay, delay > .zero {
                try await source.sleep(delay)
            }
            try Task.checkCancellation()
            var request = try source.request.get()
            if connections > 0, !request.body.isReplayable {
                throw RequestError(.encodingFailed, request: request, detail:
                    "the event stream cannot reconnect: its request body is a stream, read by the first connection; use data or a file")
            }
            connections += 1
            // The standard fetches with the cache mode "no-store".
            request.options.cachePolicy = .disabled
            if lastEventID.isEmpty {
                request.headers.remove(name: "Last-Event-ID")
            } else {
                request.headers.update(name: "Last-Event-ID", value: lastEventID)
            }
            let stream: ResponseStream
            do {
                stream = try await source.session.stream(
                    built: request, timeout: source.timeout, interceptors: source.interceptors, redirectPolicy: source.redirectPolicy,
                    eachConnection: true
                )
            } catch let error as RequestError where Self.isConnectionFailure(error) {
                try scheduleReconnection(after: error)
                return
            }
            // The standard: 200 with `text/event-stream` announces the connection; 204 ends the
            // stream; anything else fails it, without reconnecting.
            if stream.statusCode == 204 {
                stream.cancel()
                return
            }
            guard stream.statusCode == 200 else {
                // The error keeps the head and the start of the body (an error document), as
                // `validate` does.
                try await stream.validate(statusCodes: [200])
                stream.cancel()
                throw RequestError(.unacceptableStatusCode, request: stream.response.request, response: stream.response)
            }
            guard stream.response.contentType.map({ $0.matches("text/event-stream") }) == true else {
                // At once: a body of another type may trickle for ever.
                stream.cancel()
                throw RequestError(.unacceptableContentType, request: stream.response.request, response: stream.response,
                                   detail: "an event stream needs Content-Type: text/event-stream, not \(stream.mimeType ?? "none")")
            }
            ready.append(.connected(stream.response))
            let parser = ServerSentEventParser(lastEventID: lastEventID.isEmpty ? nil : lastEventID)
            state = .reading(Connection(chunks: stream.body.makeAsyncIterator(), parser: parser))
        }

        /// Whether an error is the connection's, after which the stream connects again: the
        /// transport's failures and timeouts, except a TLS failure (futile to repeat) and a
        /// cancellation.
        static func isConnectionFailure(_ error: RequestError) -> Bool {
            guard [.transportFailed, .timedOut, .streamFailed].contains(error.code) else { return false }
            return error.transportErrorKind != .tls && error.transportErrorKind != .cancelled
        }

        /// Queues the wait before the next connection; once the policy's attempts are spent,
        /// throws the connection's failure, or ends the stream when the server ended it.
        private mutating func scheduleReconnection(after cause: RequestError?) throws {
            attempts += 1
            if let limit = source.reconnection.maximumAttempts, attempts > limit {
                state = .finished
                if let cause { throw cause }
                return
            }
            let delay = source.reconnection.delay(attempt: attempts, reconnectionTime: reconnectionTime, random: source.random())
            ready.append(.reconnecting(EventSource.ReconnectionWait(attempt: attempts, delay: delay, cause: cause, lastEventID: lastEventID)))
            state = .connecting(after: delay)
        }

        // MARK: Reading

        /// Reads one chunk of the connection: its events are queued; the end of the body or a
        /// connection failure schedules the next connection.
        private mutating func read(_ connection: inout Connection) async throws {
            let chunk: Data?
            do {
                chunk = try await connection.chunks.next()
            } catch let error as RequestError where Self.isConnectionFailure(error) {
                // An event whose blank line never came is discarded, as at any end.
                try scheduleReconnection(after: error)
                return
            }
            guard let chunk else {
                try scheduleReconnection(after: nil)
                return
            }
            let lines: [String]
            do {
                lines = try connection.splitter.feed(chunk)
            } catch {
                connection.chunks.reader.cancelTransfer()
                throw RequestError(.bodyTooLarge, detail: "a line of the event stream is longer than \(connection.splitter.maxLength) bytes")
            }
            for line in lines {
                let event: ServerSentEvent?
                do {
                    event = try connection.parser.feed(line)
                } catch {
                    // The events before it are handed out first.
                    connection.chunks.reader.cancelTransfer()
                    failure = RequestError(.bodyTooLarge, detail: "an event's data is longer than \(connection.parser.maxDataLength) bytes")
                    return
                }
                // The standard sets the source's last event ID at every dispatch, an event
                // with no data included, and the reconnection time as soon as `retry:` is read.
                if let id = connection.parser.lastDispatchedID { lastEventID = id }
                if let retry = connection.parser.reconnectionTime { reconnectionTime = retry }
                if let event {
                    attempts = 0
                    ready.append(.event(event))
                }
            }
            state = .reading(connection)
        }
    }
}
