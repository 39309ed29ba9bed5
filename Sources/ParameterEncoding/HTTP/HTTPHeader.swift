import Foundation

// MARK: - HTTPHeader

/// One HTTP header field: a name and a value.
///
/// Creating a header never fails; the name and value are checked by ``validate()``, which runs
/// whenever headers are written into a `URLRequest`, so a header carrying CR, LF or NUL never
/// reaches the wire.
public struct HTTPHeader: Hashable, Sendable, CustomStringConvertible {
    /// The field name, as given. Comparisons in ``HTTPHeaders`` ignore its case.
    public let name: String
    /// The field value.
    public let value: String

    /// Creates a header.
    ///
    /// - Parameters:
    ///   - name: The field name, e.g. `"Accept"`.
    ///   - value: The field value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `Name: Value`
    public var description: String { "\(name): \(value)" }

    /// Checks that the name is an HTTP token and the value holds no CR, LF or NUL.
    ///
    /// - Throws: ``ParameterEncodingError`` with code ``ParameterEncodingError/Code/invalidHeader``
    ///   naming the header and the character that was refused.
    public func validate() throws {
        guard !name.isEmpty else {
            throw ParameterEncodingError(.invalidHeader, detail: "a header has an empty name")
        }
        if let bad = Self.firstByte(of: name, where: { !HTTPToken.isTokenByte($0) }) {
            throw ParameterEncodingError(
                .invalidHeader,
                detail: "the name \(HTTPToken.quoted(name)) contains \(Self.describe(bad)), which a header name cannot hold"
            )
        }
        if let bad = Self.firstByte(of: value, where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
            throw ParameterEncodingError(
                .invalidHeader,
                detail: "the value of \(HTTPToken.quoted(name)) contains \(Self.describe(bad))"
            )
        }
    }

    /// The first byte of `text` that `matches`, read from its contiguous UTF-8 when it has it
    /// (a native string always does): every request's headers are checked before they are sent.
    @inline(__always)
    private static func firstByte(of text: String, where matches: (UInt8) -> Bool) -> UInt8? {
        if let found = text.utf8.withContiguousStorageIfAvailable({ $0.first(where: matches) }) { return found }
        return text.utf8.first(where: matches)
    }

    private static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x0D: "a carriage return (CR)"
        case 0x0A: "a line feed (LF)"
        case 0x00: "a NUL byte"
        case 0x20: "a space"
        case 0x21...0x7E: "\"\(Character(Unicode.Scalar(byte)))\""
        default: "the byte 0x" + String(byte, radix: 16, uppercase: true)
        }
    }
}

// MARK: Common headers

extension HTTPHeader {
    /// `Accept: value`
    ///
    /// - Parameter value: The accepted media types, e.g. `"application/json"`.
    /// - Returns: The header.
    public static func accept(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept", value: value)
    }

    /// `Accept-Charset: value`
    ///
    /// - Parameter value: The accepted character sets.
    /// - Returns: The header.
    public static func acceptCharset(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept-Charset", value: value)
    }

    /// `Accept-Encoding: value`
    ///
    /// - Parameter value: The accepted content codings, e.g. `"gzip, br"`.
    /// - Returns: The header.
    public static func acceptEncoding(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept-Encoding", value: value)
    }

    /// `Accept-Language: value`
    ///
    /// - Parameter value: The accepted languages, e.g. `"en;q=1.0"`.
    /// - Returns: The header.
    public static func acceptLanguage(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept-Language", value: value)
    }

    /// `Authorization: value`
    ///
    /// - Parameter value: The complete credentials.
    /// - Returns: The header.
    public static func authorization(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Authorization", value: value)
    }

    /// `Authorization: Basic …` from a user name and password (RFC 7617, UTF-8).
    ///
    /// - Parameters:
    ///   - username: The user name.
    ///   - password: The password.
    /// - Returns: The header.
    public static func authorization(username: String, password: String) -> HTTPHeader {
        let credentials = Data("\(username):\(password)".utf8).base64EncodedString()
        return authorization("Basic \(credentials)")
    }

    /// `Authorization: Bearer token`
    ///
    /// - Parameter bearerToken: The token.
    /// - Returns: The header.
    public static func authorization(bearerToken: String) -> HTTPHeader {
        authorization("Bearer \(bearerToken)")
    }

    /// `Content-Disposition: value`
    ///
    /// - Parameter value: The disposition.
    /// - Returns: The header.
    public static func contentDisposition(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Content-Disposition", value: value)
    }

    /// `Content-Encoding: value`
    ///
    /// - Parameter value: The content coding, e.g. `"gzip"`.
    /// - Returns: The header.
    public static func contentEncoding(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Content-Encoding", value: value)
    }

    /// `Content-Type: value`
    ///
    /// - Parameter value: The media type, e.g. `"application/json"`.
    /// - Returns: The header.
    public static func contentType(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Content-Type", value: value)
    }

    /// `User-Agent: value`
    ///
    /// - Parameter value: The product description.
    /// - Returns: The header.
    public static func userAgent(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "User-Agent", value: value)
    }
}
