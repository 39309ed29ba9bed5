import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - ServerEnvironment

/// A ``RequestModifier`` that points relative requests at a server and fills in what they lack.
///
/// Define your environments as statics and pick one per session:
///
/// ```swift
/// extension ServerEnvironment {
///     static let production = ServerEnvironment(host: "api.example.com", pathPrefix: "/v2")
///     static let staging = ServerEnvironment(host: "staging.example.com", pathPrefix: "/v2",
///                                            headers: ["X-Debug": "1"])
/// }
/// let session = Session(modifiers: [ServerEnvironment.staging])
/// let user = try await session.request("users/42")   // https://staging.example.com/v2/users/42
/// ```
///
/// For a request whose URL has no host, it sets scheme, host and port, and puts the path under
/// ``pathPrefix``. Then, for requests to its own host only (so that credentials never leak to
/// another server), it adds each header the request does not already have and each query item whose
/// name the query does not already contain. It works on the URL's text, so the request's own
/// percent-encoding is kept byte for byte.
public struct ServerEnvironment: RequestModifier, Hashable {
    /// The scheme given to relative requests, `https` unless set.
    public var scheme: String
    /// The host name, e.g. `api.example.com`.
    public var host: String
    /// The port, or `nil` for the scheme's default.
    public var port: Int?
    /// A percent-encoded path put in front of relative paths, e.g. `/v2`.
    public var pathPrefix: String
    /// Headers added when the request does not set them.
    public var headers: HTTPHeaders
    /// Query items added when the query has no item of that name; escaped like
    /// ``/ParameterEncoding/URLEncoding``.
    public var query: [URLQueryItem]

    /// Creates an environment.
    ///
    /// - Parameters:
    ///   - host: The host name, without scheme or port.
    ///   - scheme: The scheme for relative requests; `https` by default.
    ///   - port: The port, or `nil` for the scheme's default.
    ///   - pathPrefix: A percent-encoded path prefix for relative paths, such as `/v2`; empty by default.
    ///   - headers: Headers to add where missing.
    ///   - query: Query items to add where missing.
    public init(
        host: String,
        scheme: String = "https",
        port: Int? = nil,
        pathPrefix: String = "",
        headers: HTTPHeaders = [:],
        query: [URLQueryItem] = []
    ) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.pathPrefix = pathPrefix
        self.headers = headers
        self.query = query
    }

    /// Fills in the request's server, path, headers and query.
    ///
    /// - Parameter request: The request to complete.
    /// - Throws: ``/ParameterEncoding/ParameterEncodingError`` when the request has no URL, when the
    ///   result is not a valid URL, or when one of ``headers`` is refused.
    public func modify(_ request: inout OutgoingRequest) throws {
        try headers.validate()
        let url = request.url
        var text: String
        var changed: Bool
        if request.target.host.isEmpty {
            text = absolute(url.relativeString)
            changed = true
        } else if servesHost(of: request.target) {
            text = url.absoluteString
            // A URL relative to a base is made whole, as a request's URL is expected to be.
            changed = url.baseURL != nil
        } else {
            return
        }
        if let added = missingQuery(in: text) {
            text = URL.appendingQuery(added, to: text)
            changed = true
        }
        // A URL already complete is left as it is, not parsed again.
        if changed {
            guard let completed = URL(string: text) else {
                throw ParameterEncodingError(.invalidURL, detail: "\"\(text)\" is not a URL")
            }
            request.target = RequestTarget(completed)
        }
        // The request's own fields replace the environment's of the same name.
        request.headers = headers.overridden(by: request.headers)
    }

    /// The origin requests are sent to: ``scheme``, ``host`` and ``port``.
    public var origin: Origin {
        Origin(scheme: scheme, host: host, port: port)
    }

    /// The ``origin``: credentials scoped to ``CredentialScope/sessionServer`` go there.
    public var serverOrigin: Origin? { origin }

    private func servesHost(of target: RequestTarget) -> Bool {
        guard target.host.lowercased() == host.lowercased() else { return false }
        return port == nil || target.port == port
    }

    /// Appends `scheme://host[:port]`.
    private func appendOrigin(to text: inout String) {
        text += scheme
        text += "://"
        text += host
        if let port {
            text += ":"
            text += String(port)
        }
    }

    /// The origin, then the prefix and a relative reference (path, query, fragment) joined by
    /// exactly one `/`, built in one string; the checks are on bytes, as `/`, `?` and `#` are
    /// ASCII.
    private func absolute(_ relative: String) -> String {
        var prefix = pathPrefix.utf8[...]
        while prefix.last == UInt8(ascii: "/") { prefix = prefix.dropLast() }
        var text = ""
        text.reserveCapacity(scheme.utf8.count + host.utf8.count + prefix.count + relative.utf8.count + 12)
        appendOrigin(to: &text)
        if !prefix.isEmpty, prefix.first != UInt8(ascii: "/") { text += "/" }
        text += Substring(prefix)
        switch relative.utf8.first {
        case nil:
            if prefix.isEmpty { text += "/" }
        case UInt8(ascii: "/"):
            text += relative
        case UInt8(ascii: "?"), UInt8(ascii: "#"):
            if prefix.isEmpty { text += "/" }
            text += relative
        default:
            text += "/"
            text += relative
        }
        return text
    }

    /// The escaped `name=value` pairs of ``query`` whose names the URL's query lacks, or `nil`.
    private func missingQuery(in text: String) -> String? {
        guard !query.isEmpty else { return nil }
        let withoutFragment = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let present: Set<String> = withoutFragment.firstIndex(of: "?").map { start in
            Set(withoutFragment[withoutFragment.index(after: start)...].split(separator: "&").map { pair in
                let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                return name.removingPercentEncoding ?? String(name)
            })
        } ?? []
        let escaping = URLEncoding.default
        let added = query.filter { !present.contains($0.name) }.map { item in
            let name = escaping.escape(item.name)
            return item.value.map { name + "=" + escaping.escape($0) } ?? name
        }
        return added.isEmpty ? nil : added.joined(separator: "&")
    }
}
