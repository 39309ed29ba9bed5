import Foundation

// MARK: - RequestTarget

/// Where a request goes: scheme, host, port, path, query and fragment, each as it appears in the
/// URL (already percent-encoded).
///
/// A target made from a `URL` keeps that URL until one of its parts changes, so reading ``url``
/// costs nothing in the common case; its parts are read from the URL on demand. A changed target
/// holds its parts and builds the URL when asked. Every change is checked, so a target always
/// forms a valid absolute URL: a part that would not is refused with an error that names it.
///
/// ```swift
/// var target = RequestTarget(URL(string: "https://api.example.com/v1/users?page=2")!)
/// target.host                               // "api.example.com"
/// try target.appendQuery("sort=name")       // ?page=2&sort=name
/// try target.setOrigin(scheme: "http", host: "127.0.0.1", port: 8080)
/// target.url                                // http://127.0.0.1:8080/v1/users?page=2&sort=name
/// ```
public struct RequestTarget: Sendable, Hashable, CustomStringConvertible {
    private enum Form: Sendable {
        /// The URL the target was made from, untouched.
        case url(URL)
        /// Parts changed since, and the URL they form, built (and so checked) at the change.
        case parts(Parts, URL)
    }

    /// The parts of an absolute URL, percent-encoded as they appear in it.
    struct Parts: Sendable {
        var scheme: String
        var user: String?
        var password: String?
        var host: String
        var port: Int?
        var path: String
        var query: String?
        var fragment: String?
    }

    private var form: Form

    /// A target for an absolute URL.
    ///
    /// - Parameter url: The URL; kept as it is until a part changes.
    public init(_ url: URL) {
        form = .url(url)
    }

    /// A target made from its parts, each percent-encoded as it would appear in the URL.
    ///
    /// - Parameters:
    ///   - scheme: The scheme, such as `https`.
    ///   - host: The host: a name, an IPv4 address, or an IPv6 address (with or without brackets).
    ///   - port: The port, or `nil` for the scheme's default.
    ///   - path: The path, empty or starting with `/`.
    ///   - query: The query, without its `?`, or `nil` for none.
    ///   - fragment: The fragment, without its `#`, or `nil` for none.
    /// - Throws: ``/ParameterEncoding/ParameterEncodingError`` (`invalidURL`) naming the part
    ///   that cannot appear in a URL.
    public init(scheme: String, host: String, port: Int? = nil, path: String = "", query: String? = nil, fragment: String? = nil) throws {
        let parts = Parts(scheme: scheme, host: Self.unbracketed(host), port: port, path: path, query: query, fragment: fragment)
        try Self.checkScheme(scheme)
        try Self.checkHost(parts.host)
        try Self.checkPort(port)
        try Self.checkPath(path)
        try Self.checkQuery(query, part: "query")
        try Self.checkQuery(fragment, part: "fragment")
        form = .parts(parts, try Self.url(of: parts))
    }

    // MARK: Reading

    /// The URL the parts form: the URL the target was made from when no part changed.
    public var url: URL {
        switch form {
        case .url(let url), .parts(_, let url): url
        }
    }

    /// The scheme, such as `https`, as written.
    public var scheme: String {
        switch form {
        case .url(let url): url.scheme ?? ""
        case .parts(let parts, _): parts.scheme
        }
    }
    /// The host, without the brackets of an IPv6 address, percent-encoded as in the URL.
    public var host: String {
        switch form {
        case .url(let url): Self.unbracketed(url.host(percentEncoded: true) ?? "")
        case .parts(let parts, _): parts.host
        }
    }
    /// The port written in the URL, or `nil` when it names none (the scheme's default applies).
    public var port: Int? {
        switch form {
        case .url(let url): url.port
        case .parts(let parts, _): parts.port
        }
    }
    /// The path, percent-encoded; empty when the URL has none.
    public var path: String {
        switch form {
        case .url(let url): url.path(percentEncoded: true)
        case .parts(let parts, _): parts.path
        }
    }
    /// The query without its `?`, percent-encoded, or `nil` when there is none.
    public var query: String? {
        switch form {
        case .url(let url): url.query(percentEncoded: true)
        case .parts(let parts, _): parts.query
        }
    }
    /// The fragment without its `#`, percent-encoded, or `nil` when there is none.
    public var fragment: String? {
        switch form {
        case .url(let url): url.fragment(percentEncoded: true)
        case .parts(let parts, _): parts.fragment
        }
    }
    /// The user name of the URL's userinfo, percent-encoded, or `nil`.
    public var user: String? {
        switch form {
        case .url(let url): url.user(percentEncoded: true)
        case .parts(let parts, _): parts.user
        }
    }
    /// The password of the URL's userinfo, percent-encoded, or `nil`.
    public var password: String? {
        switch form {
        case .url(let url): url.password(percentEncoded: true)
        case .parts(let parts, _): parts.password
        }
    }

    /// The origin (scheme, host, port), which credentials, cookies and redirects compare; `nil`
    /// for a URL without a host.
    public var origin: Origin? {
        let host = host
        guard !host.isEmpty else { return nil }
        // Decoding goes through NSString on Linux: only for a host that has an escape.
        let decoded = host.utf8.contains(UInt8(ascii: "%")) ? host.removingPercentEncoding ?? host : host
        return Origin(scheme: scheme, host: decoded, port: port)
    }

    /// The path and query as a request line carries them: `/v1/users?page=2` (`/` for an empty path).
    public var pathAndQuery: String {
        let path = path
        return query.map { (path.isEmpty ? "/" : path) + "?" + $0 } ?? (path.isEmpty ? "/" : path)
    }

    /// The URL's text.
    public var description: String {
        url.absoluteString
    }

    private var parts: Parts {
        switch form {
        case .parts(let parts, _):
            return parts
        case .url(let url):
            return Parts(
                scheme: url.scheme ?? "", user: url.user(percentEncoded: true), password: url.password(percentEncoded: true),
                host: Self.unbracketed(url.host(percentEncoded: true) ?? ""), port: url.port,
                path: url.path(percentEncoded: true), query: url.query(percentEncoded: true),
                fragment: url.fragment(percentEncoded: true)
            )
        }
    }

    // MARK: Changing

    /// Replaces the scheme, host and port, keeping path, query and fragment (a server
    /// environment's move to another server).
    ///
    /// - Parameters:
    ///   - scheme: The new scheme.
    ///   - host: The new host.
    ///   - port: The new port, or `nil` for the scheme's default.
    /// - Throws: ``/ParameterEncoding/ParameterEncodingError`` (`invalidURL`) naming the part
    ///   that cannot appear in a URL; the target is then unchanged.
    public mutating func setOrigin(scheme: String, host: String, port: Int?) throws {
        try Self.checkScheme(scheme)
        try Self.checkHost(Self.unbracketed(host))
        try Self.checkPort(port)
        try change { parts in
            parts.scheme = scheme
            parts.host = Self.unbracketed(host)
            parts.port = port
        }
    }

    /// Replaces the path.
    ///
    /// - Parameter path: The new path, percent-encoded: empty or starting with `/`.
    /// - Throws: ``/ParameterEncoding/ParameterEncodingError`` (`invalidURL`) for a path that
    ///   cannot appear in a URL; the target is then unchanged.
    public mutating func setPath(_ path: String) throws {
        try Self.checkPath(path)
        try change { $0.path = path }
    }

    /// Replaces the query.
    ///
    /// - Parameter query: The new query without its `?`, percent-encoded, or `nil` for none.
    /// - Throws: ``/ParameterEncoding/ParameterEncodingError`` (`invalidURL`) for a query that
    ///   cannot appear in a URL; the target is then unchanged.
    public mutating func setQuery(_ query: String?) throws {
        try Self.checkQuery(query, part: "query")
        try change { $0.query = query }
    }

    /// Appends percent-encoded `name=value` pairs to the query, after an `&` when it has some
    /// already: what `URLEncoding` does with a GET's parameters.
    ///
    /// - Parameter encoded: The pairs, percent-encoded, such as `page=2&sort=name`; nothing
    ///   changes when it is empty.
    /// - Throws: ``/ParameterEncoding/ParameterEncodingError`` (`invalidURL`) for text that
    ///   cannot appear in a query; the target is then unchanged.
    public mutating func appendQuery(_ encoded: String) throws {
        guard !encoded.isEmpty else { return }
        try Self.checkQuery(encoded, part: "query")
        if case .url(let url) = form {
            // The common case, a query added to the URL a call was made with: one string and one
            // parse, and the target keeps the URL form.
            let text = URL.appendingQuery(encoded, to: url.absoluteString)
            guard let appended = URL(string: text) else {
                throw ParameterEncodingError(.invalidURL, detail: "\"\(text)\" is not a URL")
            }
            form = .url(appended)
            return
        }
        try change { parts in
            if let query = parts.query, !query.isEmpty {
                parts.query = query + "&" + encoded
            } else {
                parts.query = encoded
            }
        }
    }

    /// Replaces the fragment.
    ///
    /// - Parameter fragment: The new fragment without its `#`, percent-encoded, or `nil`.
    /// - Throws: ``/ParameterEncoding/ParameterEncodingError`` (`invalidURL`) for a fragment
    ///   that cannot appear in a URL; the target is then unchanged.
    public mutating func setFragment(_ fragment: String?) throws {
        try Self.checkQuery(fragment, part: "fragment")
        try change { $0.fragment = fragment }
    }

    /// Applies a change whose new parts were checked, and builds the URL they form.
    private mutating func change(_ body: (inout Parts) -> Void) throws {
        var parts = parts
        body(&parts)
        form = .parts(parts, try Self.url(of: parts))
    }

    // MARK: Hashable

    /// Whether two targets form the same URL, however each was made.
    ///
    /// - Parameters:
    ///   - lhs: A target.
    ///   - rhs: Another target.
    /// - Returns: `true` when their URLs' texts are the same.
    public static func == (lhs: RequestTarget, rhs: RequestTarget) -> Bool {
        lhs.url.absoluteString == rhs.url.absoluteString
    }

    /// Hashes the URL's text, as ``==(_:_:)`` compares it.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(url.absoluteString)
    }
}
