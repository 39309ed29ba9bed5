import Foundation
import Requests

// MARK: - RequestMatcher

/// Which requests a route answers: any mix of method, URL, query items, headers and a body
/// predicate. What is left out matches anything.
public struct RequestMatcher: Sendable, CustomStringConvertible {
    /// The method, or `nil` for any.
    public var method: HTTPMethod?
    /// The URL, its path or a path prefix.
    public var url: URLPattern
    /// Query items the request must carry (others may come beside them); a name given twice
    /// must appear with both values.
    public var query: [URLQueryItem]
    /// Headers the request must carry: names without case, values exactly.
    public var headers: HTTPHeaders
    /// A predicate on the whole body, or `nil` for any body.
    public var body: BodyPattern?

    /// A matcher.
    ///
    /// - Parameters:
    ///   - method: The method, or `nil` for any.
    ///   - url: The URL, its path or a path prefix; any by default.
    ///   - query: Query items the request must carry, as `name: value`.
    ///   - headers: Headers the request must carry.
    ///   - body: A predicate on the body.
    public init(
        _ method: HTTPMethod? = nil, _ url: URLPattern = .any, query: KeyValuePairs<String, String> = [:],
        headers: HTTPHeaders = [:], body: BodyPattern? = nil
    ) {
        self.method = method
        self.url = url
        self.query = query.map { URLQueryItem(name: $0.key, value: $0.value) }
        self.headers = headers
        self.body = body
    }

    /// Whether `request` matches.
    ///
    /// - Parameter request: A request.
    /// - Returns: `true` when every part matches.
    public func matches(_ request: RecordedRequest) -> Bool {
        mismatches(request).isEmpty
    }

    /// What differs between `request` and this matcher, one phrase per part; empty when it matches.
    ///
    /// - Parameter request: A request.
    /// - Returns: The phrases, such as `method is POST, not GET`.
    public func mismatches(_ request: RecordedRequest) -> [String] {
        var found: [String] = []
        if let method, method != request.method {
            found.append("method is \(request.method.rawValue), not \(method.rawValue)")
        }
        if let mismatch = url.mismatch(request.url) {
            found.append(mismatch)
        }
        var items = request.queryItems.map { URLQueryItem(name: $0.name, value: $0.value ?? "") }
        for item in url.query + query {
            let item = URLQueryItem(name: item.name, value: item.value ?? "")
            if let index = items.firstIndex(of: item) {
                items.remove(at: index)
            } else {
                let values = request.queryItems.filter { $0.name == item.name }.map { $0.value ?? "" }
                found.append(values.isEmpty
                    ? "query has no \(item.name)"
                    : "query \(item.name) is \(values.map { "\"\($0)\"" }.joined(separator: ", ")), not \"\(item.value ?? "")\"")
            }
        }
        for header in headers where !request.headers.values(for: header.name).contains(header.value) {
            let values = request.headers.values(for: header.name)
            found.append(values.isEmpty
                ? "header \(header.name) is missing"
                : "header \(header.name) is \"\(values.joined(separator: ", "))\", not \"\(header.value)\"")
        }
        if let body, !body.matches(request.body) {
            found.append("body does not match \(body.description)")
        }
        return found
    }

    /// The matcher as a request line: `GET /users?page=2 [Accept: application/json] body …`.
    public var description: String {
        var text = (method?.rawValue ?? "any method") + " " + url.description
        if !query.isEmpty {
            text += (text.contains("?") ? "&" : "?") + query.map { "\($0.name)=\($0.value ?? "")" }.joined(separator: "&")
        }
        if !headers.isEmpty {
            text += " [" + headers.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + "]"
        }
        if let body { text += " body " + body.description }
        return text
    }
}

// MARK: - URLPattern

/// How a route matches the URL: whole, by path, or by prefix.
///
/// A string reads as a path when it starts with `/` (a prefix when it ends with `*`: `"/api/*"`),
/// as any URL when it is `*`, and as a whole URL otherwise (a prefix of whole URLs when it ends
/// with `*`). A query written in it (`"/search?page=2"`) must be carried by the request, as
/// `query:` items must. Paths are compared percent-decoded, and an empty path is `/`. String
/// interpolation works: `"/users/\(id)"`.
public struct URLPattern: Sendable, CustomStringConvertible, ExpressibleByStringInterpolation {
    enum Kind: Sendable {
        case any
        /// Scheme, host, port and path (decoded); the query only when ``query`` has items.
        case exact(URLComponents)
        case path(String)
        case pathPrefix(String)
        /// The start of the whole URL as text.
        case urlPrefix(String)
    }

    let kind: Kind
    /// Query items written in the pattern, which the request must carry (others may come beside).
    let query: [URLQueryItem]
    private let text: String

    /// Any URL.
    public static let any = URLPattern(kind: .any, query: [], text: "any URL")

    /// The whole URL: scheme, host, port and path, and the query when `url` has one.
    ///
    /// - Parameter url: The URL.
    /// - Returns: The pattern.
    public static func exact(_ url: URL) -> URLPattern { URLPattern(text: url.absoluteString) }

    /// The path, on any host; the query is not compared.
    ///
    /// - Parameter path: The path, such as `/users/7`.
    /// - Returns: The pattern.
    public static func path(_ path: String) -> URLPattern {
        URLPattern(kind: .path(Self.decoded(path)), query: [], text: path)
    }

    /// Paths that start with `prefix`, on any host.
    ///
    /// - Parameter prefix: The start of the path, such as `/api/`.
    /// - Returns: The pattern.
    public static func pathPrefix(_ prefix: String) -> URLPattern {
        URLPattern(kind: .pathPrefix(Self.decoded(prefix)), query: [], text: prefix + "*")
    }

    private init(kind: Kind, query: [URLQueryItem], text: String) {
        self.kind = kind
        self.query = query
        self.text = text
    }

    /// Reads a pattern as the type's description says.
    ///
    /// - Parameter value: The text.
    public init(stringLiteral value: String) {
        self.init(text: value)
    }

    /// Reads an interpolated pattern as the type's description says.
    ///
    /// - Parameter stringInterpolation: The interpolated text.
    public init(stringInterpolation: DefaultStringInterpolation) {
        self.init(text: String(stringInterpolation: stringInterpolation))
    }

    private init(text value: String) {
        text = value
        if value == "*" {
            kind = .any
            query = []
        } else if value.hasPrefix("/") {
            let parts = value.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            let path = String(parts[0])
            query = parts.count > 1 ? URLComponents(string: "?" + parts[1])?.queryItems ?? [] : []
            kind = path.hasSuffix("*") ? .pathPrefix(Self.decoded(String(path.dropLast()))) : .path(Self.decoded(path))
        } else if value.hasSuffix("*") {
            kind = .urlPrefix(String(value.dropLast()))
            query = []
        } else if let components = URLComponents(string: value) {
            query = components.queryItems ?? []
            var whole = components
            whole.query = nil
            kind = .exact(whole)
        } else {
            kind = .urlPrefix(value)
            query = []
        }
    }

    func mismatch(_ url: URL) -> String? {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = Self.normalized(components?.path ?? url.path)
        switch kind {
        case .any:
            return nil
        case .exact(let expected):
            guard let components else { return "URL is \(url.absoluteString), not \(text)" }
            let same = components.scheme?.lowercased() == expected.scheme?.lowercased()
                && components.host?.lowercased() == expected.host?.lowercased()
                && components.port == expected.port
                && path == Self.normalized(expected.path)
            return same ? nil : "URL is \(url.absoluteString), not \(text)"
        case .path(let expected):
            return path == Self.normalized(expected) ? nil : "path is \(path), not \(expected)"
        case .pathPrefix(let prefix):
            return path.hasPrefix(prefix) ? nil : "path \(path) does not start with \(prefix)"
        case .urlPrefix(let prefix):
            return url.absoluteString.hasPrefix(prefix) ? nil : "URL \(url.absoluteString) does not start with \(prefix)"
        }
    }

    /// A path as compared: percent-decoded, `/` when empty.
    private static func normalized(_ path: String) -> String {
        path.isEmpty ? "/" : path
    }

    private static func decoded(_ path: String) -> String {
        normalized(path.removingPercentEncoding ?? path)
    }

    /// The pattern as written.
    public var description: String { text }
}

// MARK: - BodyPattern

/// A predicate on a request's whole body, with words for error messages.
public struct BodyPattern: Sendable, CustomStringConvertible {
    /// What the predicate asks, for error messages.
    public let description: String
    let matches: @Sendable (Data) -> Bool

    /// A predicate of your own.
    ///
    /// - Parameters:
    ///   - description: What it asks, for error messages.
    ///   - matches: The predicate.
    public init(_ description: String, _ matches: @escaping @Sendable (Data) -> Bool) {
        self.description = description
        self.matches = matches
    }

    /// The body is exactly these bytes.
    ///
    /// - Parameter data: The bytes.
    /// - Returns: The pattern.
    public static func equals(_ data: Data) -> BodyPattern {
        BodyPattern("equal to \(data.count) bytes") { $0 == data }
    }

    /// The body is exactly this text in UTF-8.
    ///
    /// - Parameter text: The text.
    /// - Returns: The pattern.
    public static func text(_ text: String) -> BodyPattern {
        BodyPattern("equal to \"\(text)\"") { $0 == Data(text.utf8) }
    }

    /// The body, read as UTF-8, contains `text`.
    ///
    /// - Parameter text: The text.
    /// - Returns: The pattern.
    public static func containing(_ text: String) -> BodyPattern {
        BodyPattern("containing \"\(text)\"") { String(decoding: $0, as: UTF8.self).contains(text) }
    }

    /// The body decodes as JSON to a value equal to `value`, whatever its key order and spacing.
    ///
    /// Decoding reads the keys `Value` has: a body with more keys matches too. For the whole
    /// document, pass a type that holds all of it (a `[String: …]` dictionary, say).
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - decoder: Makes the decoder, for date or key strategies; a plain `JSONDecoder` by default.
    /// - Returns: The pattern.
    public static func json<Value: Decodable & Equatable & Sendable>(
        _ value: Value, decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
    ) -> BodyPattern {
        BodyPattern("decoding as JSON to \(value)") { (try? decoder().decode(Value.self, from: $0)) == value }
    }
}
