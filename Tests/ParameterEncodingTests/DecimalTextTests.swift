import Foundation
import LoopbackFixture
@testable import ParameterEncoding
import Testing

// MARK: - DecimalTextTests

/// `DecimalText` writes exactly what `Decimal.description` writes, so JSON and query bytes stay
/// as they were.
@Suite struct DecimalTextTests {
    @Test(arguments: ["0", "1", "-1", "19.99", "0.05", "-0.05", "5.0", "612.80", "1200", "1e5", "123.456e-10",
                      "18446744073709551615", "18446744073709551616", "-99999999999999999999.5", "0.000000000000000000001",
                      "340282366920938463463374607431768211455", "1e100", "1e-100", "3.14159265358979323846"])
    func aWrittenValueReadsAsItsDescription(_ text: String) throws {
        let decimal = try #require(Decimal(string: text))
        #expect(DecimalText.text(decimal) == decimal.description, "\(text)")
    }

    @Test func notANumberAndTheStorageReading() {
        #expect(DecimalText.text(.nan) == Decimal.nan.description)
        // The fast path is taken on this platform, so the comparisons here test it.
        #expect(DecimalText.readsStorage)
    }

    @Test func valuesBuiltFromEveryPartReadAsTheirDescription() {
        // Significands of every width up to 64 bits and beyond, each exponent from -40 to 40.
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<20_000 {
            let bits = Int(generator.next() % 70)
            var significand = generator.next() >> UInt64(64 - max(1, min(bits, 64)))
            if bits == 0 { significand = 0 }
            let exponent = Int(generator.next() % 81) - 40
            var decimal = Decimal(significand)
            if bits > 64 { decimal *= 1_000_003 }
            decimal = Decimal(sign: generator.next() % 2 == 0 ? .plus : .minus, exponent: exponent, significand: decimal)
            #expect(DecimalText.text(decimal) == decimal.description)
        }
    }
}

