import Foundation

// MARK: - Origin

/// A URL's origin: scheme, host and port (RFC 6454). Credentials, cookies and redirect rules
/// compare requests by origin.
///
/// ```swift
/// let api = try Origin("https://api.example.com")      // port 443
/// api.contains(URL(string: "https://API.example.com:443/v1")!)   // true
/// ```
public struct Origin: Hashable, Sendable, CustomStringConvertible {
    /// The scheme, lowercased, e.g. `https`.
    public let scheme: String
    /// The host, lowercased, e.g. `api.example.com`.
    public let host: String
    /// The port, with the scheme's default filled in (80 for http, 443 for https).
    public let port: Int?

    /// Creates an origin from its parts.
    ///
    /// - Parameters:
    ///   - scheme: The scheme; compared without case.
    ///   - host: The host; compared without case.
    ///   - port: The port, or `nil` for the scheme's default.
    public init(scheme: String, host: String, port: Int? = nil) {
        let scheme = Self.lowercased(scheme)
        self.scheme = scheme
        self.host = Self.lowercased(host)
        self.port = port ?? Self.defaultPort(for: scheme)
    }

    /// The origin of a URL, or `nil` for a URL without scheme or host (a relative one).
    ///
    /// - Parameter url: The URL.
    public init?(_ url: URL) {
        guard let scheme = url.scheme, let host = url.host, !host.isEmpty else { return nil }
        self.init(scheme: scheme, host: host, port: url.port)
    }

    /// The origin of a URL string such as `https://api.example.com`.
    ///
    /// - Parameter url: An absolute URL.
    /// - Throws: ``/ParameterEncoding/ParameterEncodingError`` when the text is not an absolute URL
    ///   with a host.
    public init(_ url: some URLConvertible) throws {
        let parsed = try url.asURL()
        guard let origin = Origin(parsed) else {
            throw ParameterEncodingError(.invalidURL, detail: "\"\(parsed.absoluteString)\" has no scheme and host")
        }
        self = origin
    }

    /// Whether a URL belongs to this origin.
    ///
    /// - Parameter url: The URL to test.
    /// - Returns: `true` when scheme, host and port are the same.
    public func contains(_ url: URL) -> Bool {
        Origin(url) == self
    }

    /// `scheme://host:port`, with the port left out when it is the scheme's default.
    public var description: String {
        let shownPort = port.flatMap { $0 == Self.defaultPort(for: scheme) ? nil : $0 }
        return scheme + "://" + host + (shownPort.map { ":\($0)" } ?? "")
    }

    /// `text` lowercased; as it is, without a copy, when it has no uppercase ASCII letter (the
    /// usual URL), which is every request's case.
    private static func lowercased(_ text: String) -> String {
        text.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) || !text.utf8.allSatisfy({ $0 < 0x80 })
            ? text.lowercased() : text
    }

    private static func defaultPort(for scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": 80
        case "https", "wss": 443
        default: nil
        }
    }
}

extension OutgoingRequest {
    /// The name under which the stages that keep state per origin (``Throttle``, ``RetryBudget``,
    /// ``CircuitBreaker``) file a request: its origin, `https://api.example.com`, or the whole
    /// URL when it has none.
    var originKey: String {
        target.origin?.description ?? url.absoluteString
    }
}
