import Foundation

// MARK: - DecimalText

/// A `Decimal`'s `description`, the text `JSONEncoder` writes for it, made without Foundation's
/// digit-by-digit division of the 128-bit significand when the significand fits in 64 bits
/// (every price, amount and rate in practice): Foundation's conversion was a third of the time
/// of encoding a model with a few decimals in it.
enum DecimalText {
    /// The text of `decimal`, byte for byte its `description`: the significand's digits, then
    /// the exponent's zeros (`1200`), or a point that many digits from the right (`19.99`,
    /// `0.05`, trailing zeros kept); `NaN` and the widest significands are left to Foundation.
    ///
    /// - Parameter decimal: The value.
    /// - Returns: Its text.
    static func text(_ decimal: Decimal) -> String {
        guard !decimal.isNaN, let (significand, exponent) = parts(of: decimal) else { return decimal.description }
        if significand == 0 { return "0" }
        let negative = decimal.sign == .minus
        // Up to 20 digits, a sign, "0." and the zeros of an exponent of at most ±128.
        return String(unsafeUninitializedCapacity: 160) { text in
            var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
            let count = withUnsafeMutableBytes(of: &digits) { scratch -> Int in
                var value = significand
                var position = scratch.count
                repeat {
                    position -= 1
                    scratch[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
                    value /= 10
                } while value != 0
                return scratch.count - position
            }
            return withUnsafeBytes(of: &digits) { scratch -> Int in
                let significandDigits = UnsafeRawBufferPointer(rebasing: scratch[(scratch.count - count)...])
                var length = 0
                func put(_ byte: UInt8) {
                    text[length] = byte
                    length += 1
                }
                if negative { put(UInt8(ascii: "-")) }
                if exponent >= 0 {
                    for digit in significandDigits { put(digit) }
                    for _ in 0..<exponent { put(UInt8(ascii: "0")) }
                } else if count > -exponent {
                    // A point that many digits from the right.
                    for (index, digit) in significandDigits.enumerated() {
                        if index == count + exponent { put(UInt8(ascii: ".")) }
                        put(digit)
                    }
                } else {
                    put(UInt8(ascii: "0"))
                    put(UInt8(ascii: "."))
                    for _ in 0..<(-exponent - count) { put(UInt8(ascii: "0")) }
                    for digit in significandDigits { put(digit) }
                }
                return length
            }
        }
    }

    /// The significand, when it fits in 64 bits, and the exponent, read from the value's
    /// storage: a byte of exponent, a byte holding the length in 16-bit words and flags, two
    /// reserved bytes, then eight 16-bit words of significand, lowest first. These parts are not
    /// public API and the length's place in its byte differs between Apple's `NSDecimal` (low
    /// four bits) and swift-foundation (high four bits), so ``layout`` finds it once from known
    /// values; `nil` when it could not, or when the significand is wider than 64 bits.
    private static func parts(of decimal: Decimal) -> (significand: UInt64, exponent: Int)? {
        let shift: UInt8
        switch layout {
        case .lengthInLowBits: shift = 0
        case .lengthInHighBits: shift = 4
        case .unknown: return nil
        }
        return withUnsafeBytes(of: decimal) { bytes -> (UInt64, Int)? in
            let length = Int((bytes[1] >> shift) & 0x0F)
            guard length <= 4 else { return nil }
            var significand: UInt64 = 0
            for word in 0..<length {
                significand |= (UInt64(bytes[4 + 2 * word]) | UInt64(bytes[5 + 2 * word]) << 8) << UInt64(16 * word)
            }
            return (significand, Int(Int8(bitPattern: bytes[0])))
        }
    }

    /// Whether values are read from their storage (the layout was found), not all through
    /// `description`.
    static var readsStorage: Bool { layout != .unknown }

    /// Where a `Decimal` keeps its length.
    private enum Layout {
        case lengthInLowBits, lengthInHighBits, unknown
    }

    /// The layout that reads known values back as they are; ``Layout/unknown`` (and
    /// `description` for every value) when none does.
    private static let layout: Layout = {
        guard MemoryLayout<Decimal>.size == 20 else { return .unknown }
        // Values with significands of 1, 1 and 5 words, a negative one and a zero.
        let probes: [(decimal: Decimal, length: UInt8, exponent: Int8, lowWord: UInt16)] = [
            (Decimal(sign: .plus, exponent: 0, significand: 5), 1, 0, 5),
            (Decimal(sign: .minus, exponent: -2, significand: 1_999), 1, -2, 1_999),
            (Decimal(UInt64.max) + 1, 5, 0, 0),
            (Decimal(UInt64.max), 4, 0, 0xFFFF),
            (Decimal(0), 0, 0, 0),
        ]
        for (layout, shift) in [(Layout.lengthInLowBits, UInt8(0)), (.lengthInHighBits, 4)] {
            let matches = probes.allSatisfy { probe in
                withUnsafeBytes(of: probe.decimal) { bytes in
                    (bytes[1] >> shift) & 0x0F == probe.length && Int8(bitPattern: bytes[0]) == probe.exponent
                        && UInt16(bytes[4]) | UInt16(bytes[5]) << 8 == probe.lowWord
                }
            }
            if matches { return layout }
        }
        return .unknown
    }()
}
