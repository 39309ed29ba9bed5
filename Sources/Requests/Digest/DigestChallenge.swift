import Foundation

// MARK: - DigestChallenge

/// One `Digest` challenge of a `WWW-Authenticate` header (RFC 7616 section 3.3), and the
/// `Authorization` value that answers it.
struct DigestChallenge: Sendable, Equatable {
    var realm = ""
    var nonce = ""
    var opaque: String?
    /// As the server named it; `MD5` when it named none.
    var algorithm = "MD5"
    /// The `qop` options offered; empty for an RFC 2069 server.
    var qop: [String] = []
    /// The previous nonce was refused only for being old: the credentials were right.
    var stale = false
    /// Whether the server wants the user name hashed.
    var userhash = false

    /// The hash function of ``algorithm``, and whether it is a `-sess` variant; `nil` for one this
    /// library does not implement (SHA-512-256, say).
    var hashFunction: (hash: @Sendable ([UInt8]) -> [UInt8], session: Bool)? {
        switch algorithm.uppercased() {
        // Closures rather than the functions themselves: a closure is inferred `@Sendable` in
        // every language mode (the fuzz build compiles these sources in Swift 5 mode).
        case "MD5": ({ MD5.hash($0) }, false)
        case "MD5-SESS": ({ MD5.hash($0) }, true)
        case "SHA-256": ({ SHA256.hash($0) }, false)
        case "SHA-256-SESS": ({ SHA256.hash($0) }, true)
        default: nil
        }
    }

    /// Whether this library can answer the challenge: a known algorithm, and `auth` among the
    /// `qop` options or none offered (`auth-int` alone would need the body's hash).
    var isAnswerable: Bool {
        hashFunction != nil && !nonce.isEmpty && (qop.isEmpty || qop.contains("auth"))
    }

    /// The `Authorization` header value answering the challenge.
    ///
    /// - Parameters:
    ///   - username: The user name.
    ///   - password: The password.
    ///   - method: The request's method.
    ///   - uri: The request target as sent: path and query.
    ///   - cnonce: The client nonce.
    ///   - count: The nonce count, 1 for the first request with this nonce.
    /// - Returns: The value, or `nil` when the challenge cannot be answered (``isAnswerable``).
    func authorization(username: String, password: String, method: String, uri: String, cnonce: String, count: Int) -> String? {
        guard isAnswerable, let (hash, session) = hashFunction else { return nil }
        func h(_ text: String) -> String { hex(hash(Array(text.utf8))) }
        var ha1 = h("\(username):\(realm):\(password)")
        if session {
            ha1 = h("\(ha1):\(nonce):\(cnonce)")
        }
        let ha2 = h("\(method):\(uri)")
        let digits = String(count, radix: 16)
        let nc = String(repeating: "0", count: max(0, 8 - digits.count)) + digits
        let qop = self.qop.isEmpty ? nil : "auth"
        let response = qop.map { h("\(ha1):\(nonce):\(nc):\(cnonce):\($0):\(ha2)") } ?? h("\(ha1):\(nonce):\(ha2)")
        var fields: [String] = []
        if userhash {
            fields.append("username=\(Self.quoted(h("\(username):\(realm)")))")
        } else if username.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F }) {
            fields.append("username=\(Self.quoted(username))")
        } else {
            // RFC 7616 section 3.4.4: a name quoted-string cannot carry, as RFC 8187 extended notation.
            fields.append("username*=UTF-8''\(Self.percentEncoded(username))")
        }
        fields.append("realm=\(Self.quoted(realm))")
        fields.append("uri=\(Self.quoted(uri))")
        fields.append("algorithm=\(algorithm)")
        fields.append("nonce=\(Self.quoted(nonce))")
        if let qop {
            fields.append("nc=\(nc)")
            fields.append("cnonce=\(Self.quoted(cnonce))")
            fields.append("qop=\(qop)")
        }
        fields.append("response=\(Self.quoted(response))")
        if let opaque {
            fields.append("opaque=\(Self.quoted(opaque))")
        }
        if userhash {
            fields.append("userhash=true")
        }
        return "Digest " + fields.joined(separator: ", ")
    }

    // MARK: Parsing

    /// The `Digest` challenges of a response's `WWW-Authenticate` values, in order.
    ///
    /// - Parameter values: The header's values (a value may hold several challenges).
    /// - Returns: The challenges whose scheme is `Digest`.
    static func parse(_ values: [String]) -> [DigestChallenge] {
        var challenges: [DigestChallenge] = []
        for value in values {
            var current: DigestChallenge?
            var isDigest = false
            for item in Self.items(value) {
                var parameter = item
                // A new challenge starts with its scheme: a token followed by a space, not by "=".
                if let space = item.firstIndex(of: " "), !item[..<space].contains("=") {
                    if let current, isDigest { challenges.append(current) }
                    isDigest = item[..<space].lowercased() == "digest"
                    current = DigestChallenge()
                    parameter = String(item[item.index(after: space)...]).trimmingCharacters(in: .whitespaces)
                } else if !item.contains("=") {
                    if let current, isDigest { challenges.append(current) }
                    isDigest = item.lowercased() == "digest"
                    current = DigestChallenge()
                    continue
                }
                guard isDigest, let equals = parameter.firstIndex(of: "=") else { continue }
                let name = parameter[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
                let value = Self.unquoted(parameter[parameter.index(after: equals)...].trimmingCharacters(in: .whitespaces))
                current?.set(name, value)
            }
            if let current, isDigest { challenges.append(current) }
        }
        return challenges
    }

    private mutating func set(_ name: String, _ value: String) {
        switch name {
        case "realm": realm = value
        case "nonce": nonce = value
        case "opaque": opaque = value
        case "algorithm": algorithm = value
        case "qop": qop = HTTPHeaders.listMembers(value)
        case "stale": stale = value.lowercased() == "true"
        case "userhash": userhash = value.lowercased() == "true"
        default: break
        }
    }

    /// The comma-separated items of a header value, commas inside quoted strings kept.
    private static func items(_ value: String) -> [String] {
        var items: [String] = []
        var item = ""
        var quoted = false
        var escaped = false
        for character in value {
            if escaped {
                escaped = false
            } else if quoted, character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                items.append(item.trimmingCharacters(in: .whitespaces))
                item = ""
                continue
            }
            item.append(character)
        }
        items.append(item.trimmingCharacters(in: .whitespaces))
        return items.filter { !$0.isEmpty }
    }

    /// A quoted-string's content, its escapes undone; a token as it is.
    private static func unquoted(_ text: String) -> String {
        guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return text }
        var result = ""
        var escaped = false
        for character in text.dropFirst().dropLast() {
            if !escaped, character == "\\" {
                escaped = true
                continue
            }
            escaped = false
            result.append(character)
        }
        return result
    }

    /// `text` as a quoted-string.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// RFC 8187's `value-chars`: attr-char as it is, every other UTF-8 byte percent-encoded.
    private static func percentEncoded(_ text: String) -> String {
        let kept = Set("!#$&+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        var result = ""
        for byte in text.utf8 {
            if kept.contains(byte) {
                result.append(Character(Unicode.Scalar(byte)))
            } else {
                result += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return result
    }
}

/// Lowercase hexadecimal.
func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        result.append(digits[Int(byte >> 4)])
        result.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: result, as: UTF8.self)
}
