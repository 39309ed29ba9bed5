import Foundation

// MARK: - FormBody

/// A form body, `application/x-www-form-urlencoded; charset=utf-8`, written by ``URLEncoding``'s
/// rules and options: RFC 3986 escaping by default, `key[]` and `key[nested]` for containers,
/// keys sorted at every level.
///
/// ```swift
/// FormBody(["greeting": "Hello, ", "target": "🌎"])  // greeting=Hello%2C%20&target=%F0%9F%8C%8E
/// ```
public struct FormBody: HTTPBody {
    private enum Source: Sendable {
        case items([URLQueryItem])
        case parameters(Parameters)
    }

    private let source: Source
    /// The encoding whose rules and options write the form.
    public let encoding: URLEncoding

    /// Creates a form from query items, kept in their order; an item without a value is
    /// written as its name alone.
    ///
    /// - Parameters:
    ///   - items: The fields.
    ///   - encoding: Escaping and options; ``URLEncoding/httpBody`` by default.
    public init(_ items: [URLQueryItem], encoding: URLEncoding = .httpBody) {
        self.source = .items(items)
        self.encoding = encoding
    }

    /// Creates a form from string fields, written sorted by name.
    ///
    /// - Parameters:
    ///   - fields: The fields.
    ///   - encoding: Escaping and options; ``URLEncoding/httpBody`` by default.
    public init(_ fields: [String: String], encoding: URLEncoding = .httpBody) {
        self.source = .parameters(fields)
        self.encoding = encoding
    }

    /// Creates a form from parameters of any shape, exactly as ``URLEncoding`` writes them.
    ///
    /// - Parameters:
    ///   - parameters: The parameters.
    ///   - encoding: Escaping, array, bool and nil options; ``URLEncoding/httpBody`` by default.
    public init(_ parameters: Parameters, encoding: URLEncoding = .httpBody) {
        self.source = .parameters(parameters)
        self.encoding = encoding
    }

    /// Whether there are no fields.
    public var isEmpty: Bool {
        switch source {
        case .items(let items): items.isEmpty
        case .parameters(let parameters): parameters.isEmpty
        }
    }

    /// `Content-Type: application/x-www-form-urlencoded; charset=utf-8`.
    public var additionalHeaders: HTTPHeaders {
        HTTPHeaders([HTTPHeader(name: "Content-Type", value: "application/x-www-form-urlencoded; charset=utf-8")])
    }

    /// Returns the encoded form.
    ///
    /// - Returns: The `name=value&…` bytes.
    /// - Throws: ``ParameterEncodingError`` for parameters nested too deeply.
    public func encode() throws -> Data {
        switch source {
        case .parameters(let parameters):
            return try encoding.queryBuffer(.parameters(parameters)).data
        case .items(let items):
            var output = ByteBuffer()
            for item in items {
                if !output.isEmpty { output.append(UInt8(ascii: "&")) }
                encoding.escaping.append(item.name, to: &output)
                if let value = item.value {
                    output.append(UInt8(ascii: "="))
                    encoding.escaping.append(value, to: &output)
                }
            }
            return output.data
        }
    }
}
