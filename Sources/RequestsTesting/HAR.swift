import Foundation

// MARK: - HAR

/// An HTTP Archive (HAR 1.2): the format browser developer tools, Charles and Proxyman open.
///
/// ``RecordingTransport`` writes one; ``ReplayTransport`` serves one back. Only the fields this
/// package writes and reads are modelled; unknown fields of a file from elsewhere are ignored.
/// Fields of this package's own start with `_`, as the format allows.
public struct HAR: Codable, Sendable, Equatable {
    /// The archive's one top-level object.
    public var log: Log

    /// An archive of entries.
    ///
    /// - Parameter entries: The exchanges, in the order they started.
    public init(entries: [Entry] = []) {
        log = Log(entries: entries)
    }

    /// Reads an archive from a file.
    ///
    /// - Parameter url: The `.har` file.
    /// - Throws: The read error, or a `DecodingError` naming the field that is missing or wrong.
    public init(contentsOf url: URL) throws {
        self = try JSONDecoder().decode(HAR.self, from: Data(contentsOf: url))
    }

    /// The archive as JSON: keys sorted and indented, so that the same traffic gives the same
    /// bytes and a diff reads well.
    ///
    /// - Returns: The JSON.
    /// - Throws: An `EncodingError` (not expected for an archive of valid values).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// The archive's top-level object.
    public struct Log: Codable, Sendable, Equatable {
        /// The format version, `1.2`.
        public var version = "1.2"
        /// The program that wrote the archive.
        public var creator = Creator(name: "swift-requests RequestsTesting", version: "1")
        /// The exchanges, in the order they started.
        public var entries: [Entry]
    }

    /// The program that wrote an archive.
    public struct Creator: Codable, Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Its version.
        public var version: String
    }

    /// One exchange: a request, its response, and how long each part took.
    public struct Entry: Codable, Sendable, Equatable {
        /// When the request started, in ISO 8601 with milliseconds.
        public var startedDateTime: String
        /// The whole exchange, in milliseconds.
        public var time: Double
        /// The request.
        public var request: Request
        /// The response; status 0 with ``Response/error`` when the exchange failed before one.
        public var response: Response
        /// Caching details: the stored response a validation or an answer from the cache used.
        public var cache = Cache()
        /// How long each part took.
        public var timings: Timings
        /// The operation's name (``/Requests/RequestOptions/operationName``), when the request
        /// had one: `operation getUser`.
        public var comment: String?
        /// Set on an answer the session's cache made: `hit` or `stale hit` (nothing went to the
        /// network), or `revalidated` (the stored body answered after a 304, which has an entry
        /// of its own). This package's own field, `_fromCache`, as browsers write it;
        /// ``ReplayTransport`` never answers with such an entry.
        public var fromCache: String?

        enum CodingKeys: String, CodingKey {
            case startedDateTime, time, request, response, cache, timings, comment
            case fromCache = "_fromCache"
        }
    }

    /// A request as sent.
    public struct Request: Codable, Sendable, Equatable {
        /// The method.
        public var method: String
        /// The absolute URL.
        public var url: String
        /// The protocol version, such as `HTTP/1.1`.
        public var httpVersion: String
        /// The cookies sent; empty here (the `Cookie` header is in ``headers``).
        public var cookies: [NameValue] = []
        /// The header fields in the order they were sent, `Cookie` fields joined into one.
        public var headers: [NameValue]
        /// The query items of the URL.
        public var queryString: [NameValue]
        /// The body, when there was one.
        public var postData: PostData?
        /// The size of the head; -1, not known here.
        public var headersSize = -1
        /// The size of the body in bytes.
        public var bodySize: Int
    }

    /// A request body.
    public struct PostData: Codable, Sendable, Equatable {
        /// The body's `Content-Type`.
        public var mimeType: String
        /// The body: its text, or Base64 when ``encoding`` says so. Absent in files from tools
        /// that give a form's `params` instead (read as an empty body here).
        public var text: String?
        /// `base64` for a body that is not UTF-8 text (this package's own field).
        public var encoding: String?

        enum CodingKeys: String, CodingKey {
            case mimeType, text
            case encoding = "_encoding"
        }
    }

    /// A response as received.
    public struct Response: Codable, Sendable, Equatable {
        /// The status code; 0 when the exchange failed before a response.
        public var status: Int
        /// The reason phrase for the status.
        public var statusText: String
        /// The protocol version, such as `HTTP/1.1`.
        public var httpVersion: String
        /// The cookies set; empty here (`Set-Cookie` is in ``headers``).
        public var cookies: [NameValue] = []
        /// The headers.
        public var headers: [NameValue]
        /// The body.
        public var content: Content
        /// The `Location` of a redirect, or empty.
        public var redirectURL: String
        /// The size of the head; -1, not known here.
        public var headersSize = -1
        /// The size of the body as received, in bytes; -1 when the transport decoded a
        /// `Content-Encoding` and the size on the wire is not known.
        public var bodySize: Int
        /// Why the exchange failed, for status 0 (this package's own field).
        public var error: String?
        /// The transport-error kind of that failure, such as `connectionLost` (this package's own field).
        public var errorKind: String?

        enum CodingKeys: String, CodingKey {
            case status, statusText, httpVersion, cookies, headers, content, redirectURL, headersSize, bodySize
            case error = "_error"
            case errorKind = "_errorKind"
        }
    }

    /// A response body.
    public struct Content: Codable, Sendable, Equatable {
        /// Its length in bytes.
        public var size: Int
        /// Its `Content-Type`.
        public var mimeType: String
        /// The body: its text, or Base64 when ``encoding`` is `base64`; absent when empty.
        public var text: String?
        /// `base64` for a body that is not UTF-8 text.
        public var encoding: String?
        /// Set when the body was not read to its end (cancelled, or failed), saying so.
        public var comment: String?
        /// The transport-error kind that ended the body early, such as `connectionLost`, or
        /// `cancelled` when the reader stopped (this package's own field); replay ends the body
        /// there the same way.
        public var errorKind: String?

        enum CodingKeys: String, CodingKey {
            case size, mimeType, text, encoding, comment
            case errorKind = "_errorKind"
        }
    }

    /// Caching details: the state of the stored response before the exchange, when the
    /// session's ``/Requests/HTTPCache`` validated one or answered from one; empty otherwise.
    public struct Cache: Codable, Sendable, Equatable {
        /// The stored response before the request; `nil` when none was involved.
        public var beforeRequest: CacheState?
        /// The stored response after the request; `nil` when not known.
        public var afterRequest: CacheState?

        /// Caching details.
        ///
        /// - Parameters:
        ///   - beforeRequest: The stored response before the request.
        ///   - afterRequest: The stored response after it.
        public init(beforeRequest: CacheState? = nil, afterRequest: CacheState? = nil) {
            self.beforeRequest = beforeRequest
            self.afterRequest = afterRequest
        }

        /// Reads what it can: a member another tool wrote in another shape is left out.
        ///
        /// - Parameter decoder: The decoder.
        /// - Throws: Never for a member's shape; the decoder's error when this is not an object.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            beforeRequest = (try? container.decodeIfPresent(CacheState.self, forKey: .beforeRequest)) ?? nil
            afterRequest = (try? container.decodeIfPresent(CacheState.self, forKey: .afterRequest)) ?? nil
        }

        private enum CodingKeys: String, CodingKey {
            case beforeRequest, afterRequest
        }
    }

    /// The state of a stored response (HAR's `beforeRequest` and `afterRequest`).
    public struct CacheState: Codable, Sendable, Equatable {
        /// When it stops being fresh, in ISO 8601.
        public var expires: String?
        /// When it arrived or was last validated, in ISO 8601.
        public var lastAccess: String
        /// Its `ETag`, or empty.
        public var eTag: String
        /// How often it answered; 0 where not counted.
        public var hitCount: Int

        /// A stored response's state.
        ///
        /// - Parameters:
        ///   - expires: When it stops being fresh.
        ///   - lastAccess: When it arrived or was last validated.
        ///   - eTag: Its `ETag`.
        ///   - hitCount: How often it answered.
        public init(expires: String?, lastAccess: String, eTag: String, hitCount: Int = 0) {
            self.expires = expires
            self.lastAccess = lastAccess
            self.eTag = eTag
            self.hitCount = hitCount
        }

        /// Reads a state, a missing member read as empty (or 0).
        ///
        /// - Parameter decoder: The decoder.
        /// - Throws: The decoder's error when a member has the wrong type.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            expires = try container.decodeIfPresent(String.self, forKey: .expires)
            lastAccess = try container.decodeIfPresent(String.self, forKey: .lastAccess) ?? ""
            eTag = try container.decodeIfPresent(String.self, forKey: .eTag) ?? ""
            hitCount = try container.decodeIfPresent(Int.self, forKey: .hitCount) ?? 0
        }

        private enum CodingKeys: String, CodingKey {
            case expires, lastAccess, eTag, hitCount
        }
    }

    /// How long the parts of an exchange took, in milliseconds; -1 where not known.
    ///
    /// A recording takes them from what the engine reported of the trip (``/Requests/TripTimings``,
    /// the same figures as ``/Requests/Response/timings``): the connection's phases when the engine
    /// tells them (`URLSession` on Apple platforms), and the request's sending when it tells when
    /// the last byte went out; otherwise those are -1 and 0, and ``wait`` holds them.
    public struct Timings: Codable, Sendable, Equatable {
        /// Waiting for a connection; -1, not known here.
        public var blocked: Double = -1
        /// The DNS lookup; -1 when no lookup was timed (or a connection was reused).
        public var dns: Double = -1
        /// Opening the connection, TLS included; -1 when not timed (or a connection was reused).
        public var connect: Double = -1
        /// Sending the request; 0 when the engine does not tell (then ``wait`` includes it).
        public var send: Double = 0
        /// From the request sent (or the start, when that is not known) to the response head.
        public var wait: Double
        /// From the head to the end of the body.
        public var receive: Double
        /// The TLS handshake, a part of ``connect``; -1 when not timed.
        public var ssl: Double = -1

        init(wait: Double, receive: Double) {
            self.wait = wait
            self.receive = receive
        }

        /// The figures of one trip, from what its engine reported.
        ///
        /// - Parameters:
        ///   - trip: The trip's phases as its handle holds them.
        ///   - headArrived: When the recorder got the head, or `nil` for a trip that failed first.
        ///   - end: When the body ended (or the trip failed).
        init(_ trip: TripTimings, headArrived: ContinuousClock.Instant?, end: ContinuousClock.Instant) {
            let ms = EntryDraft.milliseconds
            var ready = trip.start
            if let connection = trip.connection, !connection.isReused {
                if let dns = connection.dns {
                    self.dns = ms(dns)
                    ready += dns
                }
                if let connect = connection.connect {
                    self.connect = ms(connect)
                    ready += connect
                }
                ssl = connection.tls.map(ms) ?? -1
            }
            let sent = trip.requestSent.map { max($0, ready) } ?? ready
            send = ms(sent - ready)
            // The engine's first byte, else the head's arrival here; for a failure, the end.
            let first = max(sent, min(trip.responseStart ?? headArrived ?? end, end))
            wait = ms(first - sent)
            // Each figure is rounded to the microsecond, so `time` is their sum to within a few.
            receive = ms(end - first)
        }

        /// Reads timings, taking -1 for the optional ones a file leaves out (`blocked`, `dns`,
        /// `connect`, `ssl`).
        ///
        /// - Parameter decoder: The decoder.
        /// - Throws: A `DecodingError` when `send`, `wait` or `receive` is missing or not a number.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            blocked = try container.decodeIfPresent(Double.self, forKey: .blocked) ?? -1
            dns = try container.decodeIfPresent(Double.self, forKey: .dns) ?? -1
            connect = try container.decodeIfPresent(Double.self, forKey: .connect) ?? -1
            send = try container.decode(Double.self, forKey: .send)
            wait = try container.decode(Double.self, forKey: .wait)
            receive = try container.decode(Double.self, forKey: .receive)
            ssl = try container.decodeIfPresent(Double.self, forKey: .ssl) ?? -1
        }
    }

    /// A name and a value: a header, a query item, a cookie.
    public struct NameValue: Codable, Sendable, Equatable {
        /// The name.
        public var name: String
        /// The value.
        public var value: String

        /// A pair.
        ///
        /// - Parameters:
        ///   - name: The name.
        ///   - value: The value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }
}

// MARK: - Bodies as HAR text

extension HAR {
    /// A body as HAR text: the text itself when it is UTF-8 that gives back the same bytes (a
    /// byte-order mark would be lost), Base64 otherwise.
    static func text(of data: Data) -> (text: String, encoding: String?) {
        if let text = String(data: data, encoding: .utf8), Data(text.utf8) == data { return (text, nil) }
        return (data.base64EncodedString(), "base64")
    }

    /// The bytes of HAR text.
    static func data(of text: String?, encoding: String?) -> Data {
        guard let text else { return Data() }
        if encoding == "base64" { return Data(base64Encoded: text) ?? Data() }
        return Data(text.utf8)
    }
}
