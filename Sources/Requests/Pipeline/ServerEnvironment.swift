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
/// name the query does not already contain.
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
    /// Query items added when the query has no item of that name; escaped like ``URLEncoding``.
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
    /// - Throws: ``ParameterEncodingError`` when the request has no URL, when the result is not a valid
    ///   URL, or when one of ``headers`` is refused.
    public func modify(_ request: inout URLRequest) throws {
        guard let url = request.url else {
            throw ParameterEncodingError(.missingURL, detail: "the request has no URL to complete")
        }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw ParameterEncodingError(.invalidURL, detail: "\"\(url.absoluteString)\" cannot be split into components")
        }
        if components.host == nil || components.host?.isEmpty == true {
            components.scheme = scheme
            components.host = host
            components.port = port
            components.percentEncodedPath = joined(prefix: pathPrefix, path: components.percentEncodedPath)
        } else if !servesHost(of: components) {
            return
        }
        addMissingQueryItems(to: &components)
        guard let completed = components.url else {
            throw ParameterEncodingError(.invalidURL, detail: "\(components) does not form a URL")
        }
        request.url = completed
        var missing = HTTPHeaders()
        for header in headers where request.value(forHTTPHeaderField: header.name) == nil {
            missing.add(header)
        }
        try request.setHeaders(missing)
    }

    private func servesHost(of components: URLComponents) -> Bool {
        guard components.host?.lowercased() == host.lowercased() else { return false }
        return port == nil || components.port == port
    }

    private func joined(prefix: String, path: String) -> String {
        var prefix = prefix
        while prefix.hasSuffix("/") {
            prefix.removeLast()
        }
        if !prefix.isEmpty, !prefix.hasPrefix("/") {
            prefix = "/" + prefix
        }
        if path.isEmpty {
            return prefix.isEmpty ? "/" : prefix
        }
        return prefix + (path.hasPrefix("/") ? path : "/" + path)
    }

    private func addMissingQueryItems(to components: inout URLComponents) {
        guard !query.isEmpty else { return }
        let escaping = URLEncoding.default
        let present = Set((components.percentEncodedQueryItems ?? []).map { $0.name.removingPercentEncoding ?? $0.name })
        var added: [String] = []
        for item in query where !present.contains(item.name) {
            let name = escaping.escape(item.name)
            added.append(item.value.map { name + "=" + escaping.escape($0) } ?? name)
        }
        guard !added.isEmpty else { return }
        let existing = components.percentEncodedQuery.map { [$0] } ?? []
        components.percentEncodedQuery = (existing.filter { !$0.isEmpty } + added).joined(separator: "&")
    }
}
