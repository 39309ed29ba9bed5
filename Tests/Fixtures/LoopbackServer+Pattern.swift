import Foundation

// MARK: - The byte pattern

extension LoopbackServer {
    /// The bytes the server's `/bytes`, `/range`, `/blob` and `/drip` routes send: byte `i` of a
    /// body is `(offset + i) % 256`.
    ///
    /// - Parameters:
    ///   - count: How many bytes.
    ///   - offset: Where in the body they start.
    /// - Returns: The bytes.
    public static func pattern(_ count: Int, from offset: Int = 0) -> Data {
        Data((offset..<offset + max(0, count)).map { UInt8(truncatingIfNeeded: $0) })
    }

    /// Whether bytes are the server's pattern, starting at `offset` of the body.
    ///
    /// - Parameters:
    ///   - bytes: The bytes read.
    ///   - offset: Where in the body they start.
    /// - Returns: `true` when every byte is `(offset + i) % 256`.
    public static func isPattern(_ bytes: some Sequence<UInt8>, from offset: Int = 0) -> Bool {
        var index = offset
        for byte in bytes {
            if byte != UInt8(truncatingIfNeeded: index) { return false }
            index += 1
        }
        return true
    }
}
