import Foundation

// MARK: - RequestTarget checks

/// What each part of a target may hold (RFC 3986, section 3), and how the parts form a URL.
extension RequestTarget {
    static func checkScheme(_ scheme: String) throws {
        let bytes = Array(scheme.utf8)
        guard let first = bytes.first, isLetter(first),
              bytes.allSatisfy({ isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        else {
            throw refused("scheme", scheme, "a letter followed by letters, digits, \"+\", \"-\" or \".\"")
        }
    }

    static func checkHost(_ host: String) throws {
        guard !host.isEmpty else {
            throw refused("host", host, "a name or an address; a request needs one")
        }
        if host.utf8.contains(UInt8(ascii: ":")) {
            // An IPv6 address, written without its brackets here.
            guard host.utf8.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else {
                throw refused("host", host, "an IPv6 address of hex digits, \":\" and \".\"")
            }
            return
        }
        try checkEncoded(host, part: "host", allowed: hostBytes, explanation: "letters, digits, \"-._~\", sub-delimiters or %XX escapes")
    }

    static func checkPort(_ port: Int?) throws {
        if let port, !(0...65535).contains(port) {
            throw refused("port", "\(port)", "a number from 0 to 65535")
        }
    }

    static func checkPath(_ path: String) throws {
        guard path.isEmpty || path.utf8.first == UInt8(ascii: "/") else {
            throw refused("path", path, "empty or starting with \"/\"")
        }
        try checkEncoded(path, part: "path", allowed: pathBytes, explanation: "path characters or %XX escapes")
    }

    static func checkQuery(_ text: String?, part: String) throws {
        guard let text else { return }
        try checkEncoded(text, part: part, allowed: queryBytes, explanation: "\(part) characters or %XX escapes")
    }

    /// Builds the URL of `parts`, which were checked.
    ///
    /// - Throws: ``/ParameterEncoding/ParameterEncodingError`` (`invalidURL`) when Foundation
    ///   does not parse the text the parts form.
    static func url(of parts: Parts) throws -> URL {
        if parts.scheme.isEmpty, parts.host.isEmpty {
            // A relative reference, which a ServerEnvironment completes later.
            var text = parts.path
            if let query = parts.query { text += "?" + query }
            if let fragment = parts.fragment { text += "#" + fragment }
            guard let url = URL(string: text) else {
                throw ParameterEncodingError(.invalidURL, detail: "the parts form \"\(text)\", which is not a URL")
            }
            return url
        }
        var text = parts.scheme + "://"
        if let user = parts.user {
            text += user
            if let password = parts.password { text += ":" + password }
            text += "@"
        }
        text += parts.host.utf8.contains(UInt8(ascii: ":")) ? "[" + parts.host + "]" : parts.host
        if let port = parts.port { text += ":\(port)" }
        text += parts.path
        if let query = parts.query { text += "?" + query }
        if let fragment = parts.fragment { text += "#" + fragment }
        guard let url = URL(string: text), url.host != nil else {
            throw ParameterEncodingError(.invalidURL, detail: "the parts form \"\(text)\", which is not a URL")
        }
        return url
    }

    /// A host as the parts keep it: an IPv6 address without its brackets.
    static func unbracketed(_ host: String) -> String {
        if host.hasPrefix("["), host.hasSuffix("]"), host.count >= 2 {
            return String(host.dropFirst().dropLast())
        }
        return host
    }

    // MARK: Characters

    /// Which bytes may appear as they are, by byte value: unreserved characters and sub-delimiters,
    /// plus `extra`.
    private static func table(_ extra: String) -> [Bool] {
        var table = [Bool](repeating: false, count: 256)
        for byte in UInt8(0)...UInt8(127) where isUnreserved(byte) { table[Int(byte)] = true }
        for byte in ("!$&'()*+,;=" + extra).utf8 { table[Int(byte)] = true }
        return table
    }

    private static let hostBytes = table("")
    private static let pathBytes = table(":@/")
    private static let queryBytes = table(":@/?")

    private static func checkEncoded(_ text: String, part: String, allowed: [Bool], explanation: String) throws {
        var index = 0
        var escape = 0
        for byte in text.utf8 {
            defer { index += 1 }
            if escape > 0 {
                guard isHexDigit(byte) else {
                    throw refused(part, text, "a \"%\" followed by two hex digits (at byte \(index))")
                }
                escape -= 1
            } else if byte == UInt8(ascii: "%") {
                escape = 2
            } else if !allowed[Int(byte)] {
                let shown = byte < 0x80 ? "\"\(Character(Unicode.Scalar(byte)))\"" : "a non-ASCII byte"
                throw refused(part, text, "\(explanation); \(shown) at byte \(index) is not")
            }
        }
        if escape > 0 {
            throw refused(part, text, "a \"%\" followed by two hex digits (at the end)")
        }
    }

    private static func refused(_ part: String, _ value: String, _ expected: String) -> ParameterEncodingError {
        ParameterEncodingError(.invalidURL, detail: "the \(part) \"\(value)\" cannot appear in a URL: it must be \(expected)")
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }
}
