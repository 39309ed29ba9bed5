import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Response

/// A complete HTTP response: the request that was sent, the head (status, headers, URL), the body
/// and timings.
///
/// A value: validate and decode it synchronously, keep it, pass it across tasks.
///
/// ```swift
/// let repos = try await session.request(url).validate().decode([Repo].self)
/// ```
public struct Response: Sendable {
    /// The request as it was sent, after encoding and every stage: method, target, header fields
    /// in order, body and options.
    public let outgoingRequest: OutgoingRequest
    /// The request as it was sent, as a `URLRequest`, made when asked for (repeated fields joined,
    /// a file or stream body left out: ``outgoingRequest`` has them as they were).
    public var request: URLRequest {
        outgoingRequest.unvalidatedURLRequest()
    }
    /// The response head as the transport returned it. After redirects, this is the last response's.
    public let head: ResponseHead
    /// The response body; empty when there was none, and in the head of a stream.
    public let data: Data
    /// When the transfer started.
    public let start: ContinuousClock.Instant
    /// How long the transfer took, from sending the request to receiving the whole body (to the
    /// head, for a stream).
    public let duration: Duration
    /// The tries before this response that failed, and this one if it was also retryable, when a
    /// ``RetryPolicy`` sent the request more than once; empty otherwise.
    public internal(set) var failedAttempts: [FailedAttempt] = []
    /// Which trip answered, when a ``Hedging`` stage sent the call more than once at a time: 1
    /// for the first, 2 for the first hedge, …; `nil` when the call was not hedged.
    public internal(set) var winningAttempt: Int?
    /// The URLs that answered with a redirect the ``RedirectPolicy`` followed, in order; the request
    /// of this response went to the last one's `Location`. Empty without redirects.
    public internal(set) var redirects: [URL] = []
    /// The cookies the responses of this call set, at every redirect hop, when the session keeps
    /// cookies (``Cookies``).
    public internal(set) var cookies: [HTTPCookie] {
        get { setCookies.cookies }
        set { setCookies = CookieList(cookies: newValue) }
    }
    private var setCookies = CookieList(cookies: [])
    /// Where the response came from when the session has an ``HTTPCache``: a stored response
    /// (``CacheStatus/hit``, ``CacheStatus/staleHit``), one a 304 confirmed
    /// (``CacheStatus/revalidated``), or the network (``CacheStatus/miss``); `nil` when no cache
    /// was asked (no cache, the policy ``CachePolicy/disabled``, a method other than `GET` and
    /// `HEAD`, or the caller's own conditional request).
    public internal(set) var cacheStatus: CacheStatus?
    /// Where the call's time went: the wait for a ``Throttle`` slot, then each trip's phases as
    /// far as the engine tells them (``Timings``). In a response a monitor or stage sees, the
    /// trips so far; in the call's result, all of them.
    public internal(set) var timings = Timings()
    /// Where a download put the body; `nil` for other responses, and for a download whose status
    /// was not 2xx (its body is in ``data`` then).
    public internal(set) var fileURL: URL?
    /// The body still streaming, in a response that stages see before a stream's body is read;
    /// `nil` once the body is in ``data``.
    var body: ResponseBody?

    /// Creates a response from a head; transports, stages that answer themselves, and tests use this.
    ///
    /// - Parameters:
    ///   - request: The request that was sent.
    ///   - head: Status, headers and URL.
    ///   - data: The body.
    ///   - start: When the transfer started.
    ///   - duration: How long it took.
    public init(
        request: OutgoingRequest,
        head: ResponseHead,
        data: Data,
        start: ContinuousClock.Instant = .now,
        duration: Duration = .zero
    ) {
        self.outgoingRequest = request
        self.head = head
        self.data = data
        self.start = start
        self.duration = duration
    }

    /// Creates a response from an `HTTPURLResponse`.
    ///
    /// - Parameters:
    ///   - request: The request that was sent.
    ///   - httpResponse: The response metadata.
    ///   - data: The body.
    ///   - start: When the transfer started.
    ///   - duration: How long it took.
    public init(
        request: OutgoingRequest,
        httpResponse: HTTPURLResponse,
        data: Data,
        start: ContinuousClock.Instant = .now,
        duration: Duration = .zero
    ) {
        self.init(request: request, head: ResponseHead(httpResponse), data: data, start: start, duration: duration)
    }

    /// The head as an `HTTPURLResponse`, made when asked for (it costs more than reading
    /// ``head``; repeated fields are joined with `, `); `nil` for a head `HTTPURLResponse` refuses.
    /// Read ``statusCode``, ``headers`` and ``url`` instead where you can.
    public var httpResponse: HTTPURLResponse? {
        head.makeHTTPURLResponse()
    }

    /// The HTTP status code, e.g. `200`.
    public var statusCode: Int { head.statusCode }

    /// The final URL, after redirects.
    public var url: URL? { head.url }

    /// The response headers as the transport returned them, repeated fields kept; lookups ignore case.
    public var headers: HTTPHeaders { head.headers }

    /// The media type from `Content-Type`, lowercased and without parameters, e.g. `application/json`.
    public var mimeType: String? {
        contentType.map { $0.mediaType }
    }

    /// The body as text, decoded with the charset `Content-Type` names (UTF-8 when it names none).
    ///
    /// Bytes that are invalid in that charset become U+FFFD; ``data`` keeps the exact bytes.
    public var text: String {
        let encoding = contentType?.charset.flatMap(Self.encoding(forCharset:)) ?? .utf8
        if encoding == .utf8 {
            return String(decoding: data, as: UTF8.self)
        }
        return String(data: data, encoding: encoding) ?? String(decoding: data, as: UTF8.self)
    }

    var contentType: ContentType? {
        head.headers.value(for: "Content-Type").map(ContentType.init(parsing:))
    }

    /// The `String.Encoding` for an IANA charset name; `nil` for names this module does not know.
    static func encoding(forCharset name: String) -> String.Encoding? {
        switch name.lowercased() {
        case "utf-8", "utf8": .utf8
        case "us-ascii", "ascii": .ascii
        case "iso-8859-1", "latin1", "iso_8859-1", "l1": .isoLatin1
        case "iso-8859-2", "latin2": .isoLatin2
        case "windows-1252", "cp1252": .windowsCP1252
        case "windows-1251", "cp1251": .windowsCP1251
        case "utf-16": .utf16
        case "utf-16le": .utf16LittleEndian
        case "utf-16be": .utf16BigEndian
        case "utf-32": .utf32
        case "utf-32le": .utf32LittleEndian
        case "utf-32be": .utf32BigEndian
        case "shift_jis", "shift-jis", "sjis": .shiftJIS
        case "euc-jp": .japaneseEUC
        case "iso-2022-jp": .iso2022JP
        default: nil
        }
    }
}

/// Cookies as a `Sendable` value: an `HTTPCookie` is immutable, but not every SDK marks it `Sendable`.
private struct CookieList: @unchecked Sendable {
    let cookies: [HTTPCookie]
}

// MARK: - ContentType

/// A parsed `Content-Type` value: the media type and its `charset` parameter.
struct ContentType: Sendable, Equatable {
    /// `type/subtype`, lowercased.
    let mediaType: String
    /// The `charset` parameter without quotes, if any.
    let charset: String?

    init(parsing value: String) {
        let parts = value.split(separator: ";", omittingEmptySubsequences: false)
        mediaType = parts.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        var charset: String?
        for parameter in parts.dropFirst() {
            guard let equals = parameter.firstIndex(of: "=") else { continue }
            let name = parameter[..<equals].trimmingCharacters(in: .whitespaces)
            guard name.lowercased() == "charset" else { continue }
            var value = parameter[parameter.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            charset = value
        }
        self.charset = charset
    }

    /// Whether this media type matches a pattern such as `application/json`, `text/*` or `*/*`.
    func matches(_ pattern: String) -> Bool {
        let pattern = ContentType(parsing: pattern).mediaType
        if pattern == "*/*" || pattern == "*" || pattern == mediaType {
            return true
        }
        guard pattern.hasSuffix("/*") else { return false }
        let type = pattern.dropLast(2)
        return mediaType.hasPrefix(type) && mediaType.dropFirst(type.count).first == "/"
    }
}
