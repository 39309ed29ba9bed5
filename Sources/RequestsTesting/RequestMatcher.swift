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
        var items = request.queryItems
        for item in query {
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

/// How a route matches the URL: whole, by path, or by path prefix.
///
/// A string literal reads as a path when it starts with `/` (a prefix when it ends with `*`:
/// `"/api/*"`), and as a whole URL otherwise.
public struct URLPattern: Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    enum Kind: Sendable {
        case any
        case exact(String)
        case path(String)
        case pathPrefix(String)
    }

    let kind: Kind

    /// Any URL.
    public static let any = URLPattern(kind: .any)

    /// The whole URL, compared as text (`absoluteString`): scheme, host, port, path and query.
    ///
    /// - Parameter url: The URL.
    /// - Returns: The pattern.
    public static func exact(_ url: URL) -> URLPattern { URLPattern(kind: .exact(url.absoluteString)) }

    /// The path, on any host; the query is not compared.
    ///
    /// - Parameter path: The path, such as `/users/7`.
    /// - Returns: The pattern.
    public static func path(_ path: String) -> URLPattern { URLPattern(kind: .path(path)) }

    /// Paths that start with `prefix`, on any host.
    ///
    /// - Parameter prefix: The start of the path, such as `/api/`.
    /// - Returns: The pattern.
    public static func pathPrefix(_ prefix: String) -> URLPattern { URLPattern(kind: .pathPrefix(prefix)) }

    init(kind: Kind) {
        self.kind = kind
    }

    /// Reads `"/path"` as ``path(_:)``, `"/prefix*"` as ``pathPrefix(_:)`` and anything else as
    /// a whole URL.
    ///
    /// - Parameter value: The literal.
    public init(stringLiteral value: String) {
        if value.hasPrefix("/") {
            kind = value.hasSuffix("*") ? .pathPrefix(String(value.dropLast())) : .path(value)
        } else {
            kind = .exact(value)
        }
    }

    func mismatch(_ url: URL) -> String? {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        switch kind {
        case .any:
            return nil
        case .exact(let expected):
            return url.absoluteString == expected ? nil : "URL is \(url.absoluteString), not \(expected)"
        case .path(let expected):
            return path == expected ? nil : "path is \(path), not \(expected)"
        case .pathPrefix(let prefix):
            return path.hasPrefix(prefix) ? nil : "path \(path) does not start with \(prefix)"
        }
    }

    /// The pattern as a route line shows it.
    public var description: String {
        switch kind {
        case .any: "any URL"
        case .exact(let url): url
        case .path(let path): path
        case .pathPrefix(let prefix): prefix + "*"
        }
    }
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
    /// - Parameter value: The value.
    /// - Returns: The pattern.
    public static func json<Value: Decodable & Equatable & Sendable>(_ value: Value) -> BodyPattern {
        BodyPattern("decoding as JSON to \(value)") { (try? JSONDecoder().decode(Value.self, from: $0)) == value }
    }
}
