// MARK: - DecimalDigits

/// Writes integers as ASCII decimal digits straight into a byte buffer, without a `String`.
enum DecimalDigits {
    /// Appends `value` in decimal, with a leading `-` when negative.
    static func append<Integer: BinaryInteger>(_ value: Integer, to target: inout [UInt8]) {
        withDigits(of: value) { target.append(contentsOf: $0) }
    }

    /// Appends `value` in decimal, with a leading `-` when negative.
    static func append<Integer: BinaryInteger>(_ value: Integer, to target: inout ByteBuffer) {
        withDigits(of: value) { target.append($0) }
    }

    /// Calls `body` with the decimal text of `value`.
    @inline(__always)
    private static func withDigits<Integer: BinaryInteger>(of value: Integer, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard let small = Int64(exactly: value) else {
            var text = String(value)
            return text.withUTF8(body)
        }
        var magnitude = small.magnitude
        // Up to 19 digits and a sign, written backwards into a fixed-size scratch space.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var position = 20
            repeat {
                position -= 1
                digits[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if small < 0 {
                position -= 1
                digits[position] = UInt8(ascii: "-")
            }
            body(UnsafeBufferPointer(rebasing: digits[position..<20]))
        }
    }
}
