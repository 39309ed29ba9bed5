import Foundation

// MARK: - ServerSentEvent

/// One event of a `text/event-stream` body, as the WHATWG HTML standard's event-stream rules
/// dispatch it.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type: the `event` field, or `"message"` when the block had none.
    public var type: String
    /// The `data` fields of the block, joined with LF.
    public var data: String
    /// The last event ID when the event was dispatched: the newest `id` field seen so far in the
    /// stream, from this block or an earlier one; `nil` when none has been seen.
    public var id: String?
    /// The reconnection time the stream most recently set with a `retry` field, if any.
    public var retry: Duration?

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - data: The data.
    ///   - id: The last event ID.
    ///   - retry: The reconnection time.
    public init(type: String = "message", data: String, id: String? = nil, retry: Duration? = nil) {
        self.type = type
        self.data = data
        self.id = id
        self.retry = retry
    }
}

// MARK: - ServerSentEventParser

/// Turns the lines of a `text/event-stream` into events.
///
/// Lines starting with `:` are comments. A line is split at its first `:` into field and value,
/// one leading space of the value dropped; a line without `:` is a field with an empty value.
/// `data` appends the value and an LF to the data buffer, `event` sets the type, `id` sets the
/// last event ID (unless the value contains NUL), `retry` sets the reconnection time when the
/// value is all ASCII digits; other fields are ignored. An empty line dispatches the event,
/// unless its data buffer is empty; the type is reset either way. At the end of the stream an
/// event without its empty line is discarded.
struct ServerSentEventParser: Sendable {
    /// The most bytes one event's data may hold; more is ``EventTooLarge``.
    let maxDataLength: Int
    private var data = ""
    private var dataLength = 0
    private var hasData = false
    private var type = ""
    private var lastEventID: String?
    private var retry: Duration?
    private var firstLine = true
    /// The last event ID buffer as it was at the most recent dispatch (an empty line), even one
    /// that dispatched nothing; `nil` before the first. An event source keeps it as its last
    /// event ID string, which it sends as `Last-Event-ID`.
    private(set) var lastDispatchedID: String?

    /// The reconnection time the most recent valid `retry` field set, if any.
    var reconnectionTime: Duration? { retry }

    /// Creates a parser.
    ///
    /// - Parameters:
    ///   - maxDataLength: The most bytes one event's data may hold.
    ///   - lastEventID: The last event ID the stream starts from: an event source's, when it
    ///     reconnects (as browsers carry it into the new connection), so that an event without
    ///     an `id` field still carries it and the source keeps resuming from it.
    init(maxDataLength: Int = 16 << 20, lastEventID: String? = nil) {
        self.maxDataLength = maxDataLength
        self.lastEventID = lastEventID
    }

    /// Takes one line, without its terminator, and returns the event it dispatches, if any.
    ///
    /// Fields are split by code point, not by `Character`, so that a combining mark after the
    /// `:` or the space does not hide them.
    ///
    /// - Throws: ``EventTooLarge`` when the event's data grows past ``maxDataLength``.
    mutating func feed(_ line: String) throws -> ServerSentEvent? {
        var scalars = Substring(line).unicodeScalars
        if firstLine {
            firstLine = false
            if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
        }
        if scalars.isEmpty {
            return dispatch()
        }
        if scalars.first == ":" {
            return nil
        }
        let field: String
        var value: Substring.UnicodeScalarView
        if let colon = scalars.firstIndex(of: ":") {
            field = String(scalars[..<colon])
            value = scalars[scalars.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            field = String(scalars)
            value = Substring.UnicodeScalarView()
        }
        switch field {
        case "data":
            let text = String(value)
            dataLength += text.utf8.count + 1
            guard dataLength <= maxDataLength else { throw EventTooLarge(limit: maxDataLength) }
            data += text
            data += "\n"
            hasData = true
        case "event":
            type = String(value)
        case "id":
            if !value.contains("\0") { lastEventID = String(value) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0.value >= 0x30 && $0.value <= 0x39 }),
               let milliseconds = Int64(String(value)) {
                retry = .milliseconds(milliseconds)
            }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        lastDispatchedID = lastEventID ?? ""
        defer {
            data = ""
            dataLength = 0
            hasData = false
            type = ""
        }
        guard hasData else { return nil }
        if data.hasSuffix("\n") { data.removeLast() }
        return ServerSentEvent(type: type.isEmpty ? "message" : type, data: data, id: lastEventID, retry: retry)
    }
}

/// One event's data was longer than the parser's limit.
struct EventTooLarge: Error {
    let limit: Int
}

// MARK: - Events

extension ResponseBody {
    /// The body as server-sent events (`text/event-stream`), parsed by the WHATWG rules.
    ///
    /// ```swift
    /// for try await event in try await session.stream(url).validate().body.events {
    ///     print(event.type, event.data)
    /// }
    /// ```
    ///
    /// Lines may end in LF, CR LF or CR. A line longer than 1 MiB, or an event whose data is longer
    /// than 16 MiB, ends the sequence with ``RequestError/Code/bodyTooLarge``.
    public var events: Events { Events(body: self, maxLength: 1 << 20) }

    /// A body's server-sent events, as an `AsyncSequence` of ``ServerSentEvent``.
    public struct Events: AsyncSequence, Sendable {
        /// One event.
        public typealias Element = ServerSentEvent

        let body: ResponseBody
        let maxLength: Int

        /// Starts reading the body.
        ///
        /// - Returns: The iterator; destroying it before the end cancels the transfer.
        public func makeAsyncIterator() -> Iterator {
            Iterator(chunks: body.makeAsyncIterator(), splitter: LineSplitter(breaksOnCR: true, maxLength: maxLength))
        }

        /// Reads events one after another.
        public struct Iterator: AsyncIteratorProtocol {
            var chunks: ResponseBody.Iterator
            var splitter: LineSplitter
            var parser = ServerSentEventParser()
            var ready: [ServerSentEvent] = []
            var index = 0
            var ended = false

            /// The next event.
            ///
            /// - Returns: The event, or `nil` at the end of the body.
            /// - Throws: ``RequestError`` (``RequestError/Code/bodyTooLarge`` for a line over the limit,
            ///   ``RequestError/Code/streamFailed`` for a broken transfer), or `CancellationError`.
            public mutating func next() async throws -> ServerSentEvent? {
                while index == ready.count {
                    guard !ended else { return nil }
                    ready.removeAll(keepingCapacity: true)
                    index = 0
                    guard let chunk = try await chunks.next() else {
                        ended = true
                        return nil
                    }
                    let lines: [String]
                    do {
                        lines = try splitter.feed(chunk)
                    } catch {
                        chunks.reader.cancelTransfer()
                        throw RequestError(.bodyTooLarge, detail: "a line is longer than \(splitter.maxLength) bytes")
                    }
                    do {
                        for line in lines {
                            if let event = try parser.feed(line) { ready.append(event) }
                        }
                    } catch {
                        chunks.reader.cancelTransfer()
                        throw RequestError(.bodyTooLarge, detail: "an event's data is longer than \(parser.maxDataLength) bytes")
                    }
                }
                defer { index += 1 }
                return ready[index]
            }
        }
    }
}
