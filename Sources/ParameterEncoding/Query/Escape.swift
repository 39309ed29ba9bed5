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
        /// For each byte, its 1 to 3 output bytes (little-endian) with their count in the top byte.
        private let table: [UInt32]
        /// For each byte, 1 if it is written differently, else 0.
        private let changes: [UInt8]

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
            self.table = (0...255).map { (byte: Int) -> UInt32 in
                let byte = UInt8(byte)
                if Self.allows(byte, low: low, high: high) { return UInt32(byte) | 1 << 24 }
                if byte == 0x20 && encodesSpaceAsPlus { return UInt32(UInt8(ascii: "+")) | 1 << 24 }
                return UInt32(UInt8(ascii: "%")) | UInt32(Self.hexDigit(byte >> 4)) << 8
                    | UInt32(Self.hexDigit(byte & 0x0F)) << 16 | 3 << 24
            }
            self.changes = (0...255).map { byte in
                Self.allows(UInt8(byte), low: low, high: high) ? 0 : 1
            }
        }

        /// Tables are equal when they allow the same bytes and write spaces the same way.
        public static func == (lhs: Escaping, rhs: Escaping) -> Bool {
            lhs.lowMask == rhs.lowMask && lhs.highMask == rhs.highMask && lhs.encodesSpaceAsPlus == rhs.encodesSpaceAsPlus
        }

        /// Hashes what ``==(_:_:)`` compares.
        ///
        /// - Parameter hasher: The hasher.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(lowMask)
            hasher.combine(highMask)
            hasher.combine(encodesSpaceAsPlus)
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
            let escaped = string.withUTF8 { source in
                table.withUnsafeBufferPointer { table -> String? in
                    let start = firstChange(in: source)
                    guard start < source.count else { return nil }
                    let capacity = Self.encodedCapacity(of: source, from: start, table: table)
                    return String(unsafeUninitializedCapacity: capacity) { target in
                        Self.encode(source, from: start, table: table, into: target)
                    }
                }
            }
            return escaped ?? string
        }

        /// Appends the encoded UTF-8 bytes of `string` to `output`.
        func append(_ string: String, to output: inout ByteBuffer) {
            // Native strings lend their bytes without a copy; bridged ones are made native first.
            let done: Void? = string.utf8.withContiguousStorageIfAvailable { append($0, to: &output) }
            if done == nil {
                var string = string
                string.withUTF8 { append($0, to: &output) }
            }
        }

        /// Appends the encoded form of `source` to `output`, encoding straight into its storage.
        ///
        /// Keys and values are mostly short: those are encoded from their first byte. Searching
        /// them for the first byte to change costs more than it saves, as its exit branch
        /// mispredicts (800 short appends took 13.4 µs with the search, 8.8 µs without). Longer
        /// text is searched, so that a long safe prefix is copied whole.
        func append(_ source: UnsafeBufferPointer<UInt8>, to output: inout ByteBuffer) {
            table.withUnsafeBufferPointer { table in
                let start = source.count <= Self.shortText ? 0 : firstChange(in: source)
                guard start < source.count else {
                    return output.append(source)
                }
                let capacity = Self.encodedCapacity(of: source, from: start, table: table)
                let target = output.reserve(capacity)
                output.commit(Self.encode(source, from: start, table: table, into: UnsafeMutableBufferPointer(start: target, count: capacity)))
            }
        }

        /// Appends one byte, encoded if the table requires it: its table entry is stored whole
        /// and only its width is counted.
        @inline(__always)
        func append(byte: UInt8, to output: inout ByteBuffer) {
            let entry = table.withUnsafeBufferPointer { $0[Int(byte)] }
            UnsafeMutableRawPointer(output.reserve(4)).storeBytes(of: entry.littleEndian, as: UInt32.self)
            output.commit(Int(entry >> 24))
        }

        // MARK: Table-driven encoding

        /// Up to this many bytes, ``append(_:to:)-(UnsafeBufferPointer<UInt8>,_)`` encodes
        /// without looking for the first byte to change.
        private static let shortText = 32

        /// The index of the first byte that does not stay as it is, or `source.count`.
        /// Eight bytes are tested per step, with one branch, before the exact byte is found.
        @inline(__always)
        private func firstChange(in source: UnsafeBufferPointer<UInt8>) -> Int {
            changes.withUnsafeBufferPointer { changes in
                guard let bytes = source.baseAddress, let changes = changes.baseAddress else { return 0 }
                let count = source.count
                var index = 0
                while index + 8 <= count {
                    let any = changes[Int(bytes[index])] | changes[Int(bytes[index + 1])]
                        | changes[Int(bytes[index + 2])] | changes[Int(bytes[index + 3])]
                        | changes[Int(bytes[index + 4])] | changes[Int(bytes[index + 5])]
                        | changes[Int(bytes[index + 6])] | changes[Int(bytes[index + 7])]
                    if any != 0 { break }
                    index += 8
                }
                while index < count && changes[Int(bytes[index])] == 0 { index += 1 }
                return index
            }
        }

        /// Room for the encoded text plus the three bytes the last 32-bit store may spill.
        /// Short inputs take the worst case (three bytes each) to save a counting pass.
        @inline(__always)
        private static func encodedCapacity(of source: UnsafeBufferPointer<UInt8>, from start: Int, table: UnsafeBufferPointer<UInt32>) -> Int {
            let rest = source.count - start
            guard rest > 4_096 else { return start + 3 * rest + 3 }
            var length = start
            for byte in source[start...] { length &+= Int(table[Int(byte)] >> 24) }
            return length + 3
        }

        /// Copies the unchanged prefix, then stores each byte's 32-bit table entry and advances by
        /// its width: no branches per byte. Returns the number of bytes written.
        @inline(__always)
        private static func encode(
            _ source: UnsafeBufferPointer<UInt8>,
            from start: Int,
            table: UnsafeBufferPointer<UInt32>,
            into target: UnsafeMutableBufferPointer<UInt8>
        ) -> Int {
            guard let base = target.baseAddress, let input = source.baseAddress else { return 0 }
            base.update(from: input, count: start)
            var output = UnsafeMutableRawPointer(base + start)
            var position = input + start
            let end = input + source.count
            // Four bytes a step: the table loads are independent, only the offsets chain.
            while end - position >= 4 {
                let first = table[Int(position[0])]
                let second = table[Int(position[1])]
                let third = table[Int(position[2])]
                let fourth = table[Int(position[3])]
                output.storeBytes(of: first.littleEndian, as: UInt32.self)
                output += Int(first >> 24)
                output.storeBytes(of: second.littleEndian, as: UInt32.self)
                output += Int(second >> 24)
                output.storeBytes(of: third.littleEndian, as: UInt32.self)
                output += Int(third >> 24)
                output.storeBytes(of: fourth.littleEndian, as: UInt32.self)
                output += Int(fourth >> 24)
                position += 4
            }
            while position < end {
                let entry = table[Int(position.pointee)]
                output.storeBytes(of: entry.littleEndian, as: UInt32.self)
                output += Int(entry >> 24)
                position += 1
            }
            return output - UnsafeMutableRawPointer(base)
        }

        /// Whether `byte` is written as it is.
        @inline(__always)
        func allows(_ byte: UInt8) -> Bool {
            Self.allows(byte, low: lowMask, high: highMask)
        }

        @inline(__always)
        private static func allows(_ byte: UInt8, low: UInt64, high: UInt64) -> Bool {
            if byte < 64 {
                return low & (1 << UInt64(byte)) != 0
            }
            return byte < 128 && high & (1 << UInt64(byte &- 64)) != 0
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
