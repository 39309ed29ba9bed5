// MARK: - URLEncoding.Escaping

extension URLEncoding {
    /// Which bytes a ``URLEncoding`` writes as they are; every other byte of a key or value's
    /// UTF-8 form is percent-encoded with uppercase hex (`%E2%9C%93`).
    ///
    /// - ``rfc3986``, the default, keeps ALPHA, DIGIT, `-._~` and `/?`: the query characters of
    ///   RFC 3986 section 3.4 less the sub-delimiters, `:` and `@`, as Alamofire does.
    /// - ``whatwgForm`` is the WHATWG `application/x-www-form-urlencoded` serializer: it keeps
    ///   ALPHA, DIGIT and `*-._`, and writes a space as `+`.
    ///
    /// `%`, `&`, `=`, `#` and `+` are always encoded, so keys and values can always be told apart.
    public struct Escaping: Hashable, Sendable {
        /// Allowed bytes 0–63, one bit each.
        private let lowMask: UInt64
        /// Allowed bytes 64–127, one bit each.
        private let highMask: UInt64
        /// Whether a space is written as `+` rather than `%20`.
        public let encodesSpaceAsPlus: Bool

        /// Creates an escaping table.
        ///
        /// - Parameters:
        ///   - allowedCharacters: ASCII characters to write as they are. Characters outside
        ///     visible ASCII, and `%`, `&`, `=`, `#` and `+`, are always encoded.
        ///   - encodesSpaceAsPlus: Whether to write a space as `+` (form style) instead of `%20`.
        public init(allowedCharacters: String, encodesSpaceAsPlus: Bool = false) {
            var low: UInt64 = 0
            var high: UInt64 = 0
            for byte in allowedCharacters.utf8 where Self.canBeAllowed(byte) {
                if byte < 64 {
                    low |= 1 << UInt64(byte)
                } else {
                    high |= 1 << UInt64(byte - 64)
                }
            }
            self.lowMask = low
            self.highMask = high
            self.encodesSpaceAsPlus = encodesSpaceAsPlus
        }

        /// RFC 3986 query escaping, Alamofire's default: keeps `A-Z a-z 0-9 - . _ ~ / ?`.
        public static let rfc3986 = Escaping(allowedCharacters: alphanumerics + "-._~/?")

        /// WHATWG form escaping: keeps `A-Z a-z 0-9 * - . _` and writes space as `+`.
        public static let whatwgForm = Escaping(allowedCharacters: alphanumerics + "*-._", encodesSpaceAsPlus: true)

        /// The characters this table writes unencoded, in ASCII order.
        public var allowedCharacters: String {
            String(decoding: (0 as UInt8..<128).filter(allows), as: UTF8.self)
        }

        /// Percent-encodes a string with this table.
        ///
        /// - Parameter string: The text to encode.
        /// - Returns: The encoded text; the same string, without copying, when nothing needs encoding.
        public func escape(_ string: String) -> String {
            var string = string
            return string.withUTF8 { source in
                var extra = 0
                var changes = false
                for byte in source where !allows(byte) {
                    changes = true
                    if !(byte == 0x20 && encodesSpaceAsPlus) { extra += 2 }
                }
                guard changes else { return nil }
                return String(unsafeUninitializedCapacity: source.count + extra) { target in
                    var position = 0
                    for byte in source {
                        if allows(byte) {
                            target[position] = byte
                            position += 1
                        } else if byte == 0x20 && encodesSpaceAsPlus {
                            target[position] = UInt8(ascii: "+")
                            position += 1
                        } else {
                            target[position] = UInt8(ascii: "%")
                            target[position + 1] = Self.hexDigit(byte >> 4)
                            target[position + 2] = Self.hexDigit(byte & 0x0F)
                            position += 3
                        }
                    }
                    return position
                }
            } ?? string
        }

        /// Appends the encoded UTF-8 bytes of `string` to `output`.
        func append(_ string: String, to output: inout [UInt8]) {
            var string = string
            string.withUTF8 { append($0, to: &output) }
        }

        /// Appends the encoded form of `source` to `output`, copying runs of allowed bytes at once.
        func append(_ source: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
            let count = source.count
            var start = 0
            while start < count {
                var end = start
                while end < count && allows(source[end]) { end += 1 }
                if end > start {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: source[start..<end]))
                }
                guard end < count else { return }
                let byte = source[end]
                if byte == 0x20 && encodesSpaceAsPlus {
                    output.append(UInt8(ascii: "+"))
                } else {
                    output.append(UInt8(ascii: "%"))
                    output.append(Self.hexDigit(byte >> 4))
                    output.append(Self.hexDigit(byte & 0x0F))
                }
                start = end + 1
            }
        }

        /// Appends one ASCII byte, encoded if the table requires it.
        func append(byte: UInt8, to output: inout [UInt8]) {
            if allows(byte) {
                output.append(byte)
            } else if byte == 0x20 && encodesSpaceAsPlus {
                output.append(UInt8(ascii: "+"))
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(Self.hexDigit(byte >> 4))
                output.append(Self.hexDigit(byte & 0x0F))
            }
        }

        /// Whether `byte` is written as it is.
        @inline(__always)
        func allows(_ byte: UInt8) -> Bool {
            if byte < 64 {
                return lowMask & (1 << UInt64(byte)) != 0
            }
            return byte < 128 && highMask & (1 << UInt64(byte &- 64)) != 0
        }

        @inline(__always)
        private static func hexDigit(_ nibble: UInt8) -> UInt8 {
            nibble < 10 ? nibble &+ UInt8(ascii: "0") : nibble &+ (UInt8(ascii: "A") &- 10)
        }

        /// Visible ASCII, less the bytes that would break a query apart or be read as a space.
        private static func canBeAllowed(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "="), UInt8(ascii: "#"), UInt8(ascii: "+"):
                false
            default:
                byte > 0x20 && byte < 0x7F
            }
        }

        private static let alphanumerics = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    }
}
