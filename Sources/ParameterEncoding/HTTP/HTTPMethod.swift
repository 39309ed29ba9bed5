import Foundation

// MARK: - HTTPMethod

/// An HTTP request method: one of the standard constants or any custom token.
///
/// ```swift
/// let method: HTTPMethod = .post
/// let custom = HTTPMethod(rawValue: "PURGE")
/// ```
///
/// Methods are case-sensitive (RFC 9110, section 9.1): `"get"` is not ``get``.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method token as sent on the wire.
    public let rawValue: String

    /// Creates a method from its token.
    ///
    /// - Parameter rawValue: The method token, e.g. `"PATCH"`. It is checked when a request is
    ///   built from it (see ``validate()``), not here.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a method from a string literal.
    ///
    /// - Parameter value: The method token.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// The method token.
    public var description: String { rawValue }

    /// Checks that the method is a valid HTTP token (RFC 9110, section 5.6.2).
    ///
    /// - Throws: ``ParameterEncodingError`` with code ``ParameterEncodingError/Code/invalidMethod``
    ///   naming the method when it is empty or contains a character a token cannot hold.
    public func validate() throws {
        guard HTTPToken.isValid(rawValue) else {
            throw ParameterEncodingError(.invalidMethod, detail: "\(HTTPToken.quoted(rawValue)) is not an HTTP token")
        }
    }

    /// `CONNECT`
    public static let connect: HTTPMethod = "CONNECT"
    /// `DELETE`
    public static let delete: HTTPMethod = "DELETE"
    /// `GET`
    public static let get: HTTPMethod = "GET"
    /// `HEAD`
    public static let head: HTTPMethod = "HEAD"
    /// `OPTIONS`
    public static let options: HTTPMethod = "OPTIONS"
    /// `PATCH`
    public static let patch: HTTPMethod = "PATCH"
    /// `POST`
    public static let post: HTTPMethod = "POST"
    /// `PUT`
    public static let put: HTTPMethod = "PUT"
    /// `QUERY`
    public static let query: HTTPMethod = "QUERY"
    /// `TRACE`
    public static let trace: HTTPMethod = "TRACE"
}

// MARK: - HTTPToken

/// Character rules shared by methods and header fields.
package enum HTTPToken {
    /// `tchar` from RFC 9110, section 5.6.2: visible ASCII except separators.
    static func isValid(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.allSatisfy(isTokenByte)
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Shows text in quotes, on one line, with its control characters and quotes made visible:
    /// for error messages (a token, a header, a `Location`, a body's first bytes).
    package static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\r": result += "\\r"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\0": result += "\\0"
            case "\"": result += "\\\""
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
