// MARK: - DecimalDigits

/// Writes integers as ASCII decimal digits straight into a byte buffer, without a `String`.
enum DecimalDigits {
    /// Appends `value` in decimal, with a leading `-` when negative.
    static func append<Integer: BinaryInteger>(_ value: Integer, to target: inout [UInt8]) {
        guard let small = Int64(exactly: value) else {
            return target.append(contentsOf: String(value).utf8)
        }
        if small < 0 { target.append(UInt8(ascii: "-")) }
        var magnitude = small.magnitude
        // Up to 20 digits, written backwards into a fixed-size scratch space.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var position = 20
            repeat {
                position -= 1
                digits[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            target.append(contentsOf: UnsafeBufferPointer(rebasing: digits[position..<20]))
        }
    }
}
