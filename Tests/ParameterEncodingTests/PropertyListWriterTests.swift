import Foundation
import LoopbackFixture
import TestScheduling
import Testing
@testable import ParameterEncoding

/// The XML and binary property-list writers, checked against `PropertyListSerialization`.
@Suite(.backgroundPriority) struct PropertyListWriterTests {
    func read(_ data: Data) throws -> Any {
        try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    }

    @Test func xmlHasPropertyListSerializationsLayout() throws {
        let value: Parameters = [
            "b": ["x", 1, 2.5, true, false] as [any Sendable], "a": ["n": "<&>\"'é"] as Parameters,
            "e": [:] as Parameters, "f": [] as [Int], "d": Date(timeIntervalSinceReferenceDate: 0),
            "data": Data((0..<70).map { UInt8($0) }), "r": [0.1, 1.0, 1e20, -Double.infinity], "u": UInt64.max,
        ]
        let text = String(decoding: try PropertyListEncoding.xml.data(for: value), as: UTF8.self)
        #expect(text == """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>a</key>
            \t<dict>
            \t\t<key>n</key>
            \t\t<string>&lt;&amp;&gt;"'é</string>
            \t</dict>
            \t<key>b</key>
            \t<array>
            \t\t<string>x</string>
            \t\t<integer>1</integer>
            \t\t<real>2.5</real>
            \t\t<true/>
            \t\t<false/>
            \t</array>
            \t<key>d</key>
            \t<date>2001-01-01T00:00:00Z</date>
            \t<key>data</key>
            \t<data>
            \tAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEy
            \tMzQ1Njc4OTo7PD0+P0BBQkNERQ==
            \t</data>
            \t<key>e</key>
            \t<dict/>
            \t<key>f</key>
            \t<array/>
            \t<key>r</key>
            \t<array>
            \t\t<real>0.1</real>
            \t\t<real>1.0</real>
            \t\t<real>1e+20</real>
            \t\t<real>-infinity</real>
            \t</array>
            \t<key>u</key>
            \t<integer>18446744073709551615</integer>
            </dict>
            </plist>

            """)
        #expect(PropertyListTrees.matches(try read(text.data(using: .utf8) ?? Data()), value))
    }

    /// Dates from year 1 to 9999, leap days and times before 1970 read back to the second.
    @Test(arguments: [-62_135_596_800.0, -86_401, -1, 0, 951_782_400, 951_868_799, 1_700_000_000, 253_402_300_799])
    func xmlDatesReadBackExactly(secondsSince1970: Double) throws {
        let date = Date(timeIntervalSince1970: secondsSince1970)
        let data = try PropertyListEncoding.xml.data(for: ["d": date] as Parameters)
        let read = try #require(try read(data) as? [String: Any])
        #expect(read["d"] as? Date == date)
    }

    @Test func xmlRefusesDatesOutsideFourDigitYears() throws {
        let error = try #require(throws: ParameterEncodingError.self) {
            try PropertyListEncoding.xml.data(for: ["d": Date(timeIntervalSince1970: 253_402_300_800)] as Parameters)
        }
        #expect(error.code == .invalidPropertyListValue)
        #expect(error.description == "Invalid property list value at d: XML property lists hold dates from year 1 to 9999, "
            + "and this one is 253402300800.0 seconds from 1970; use the binary format")
    }

    /// 10,000 seeded random trees of every property-list type read back through
    /// `PropertyListSerialization` as exactly the values written, in both formats.
    @Test(arguments: [PropertyListEncoding.xml, .binary])
    func randomTreesReadBackEqual(encoding: PropertyListEncoding) async throws {
        let firstMismatch = try await inBackground { () throws -> String? in
            var generator = SplitMix64(seed: 0x0150_2029)
            for _ in 0..<10_000 {
                let tree = PropertyListTrees.tree(using: &generator)
                let data = try encoding.data(for: tree)
                guard PropertyListTrees.matches(try read(data), tree) else {
                    return String(decoding: data, as: UTF8.self)
                }
            }
            return nil
        }
        #expect(firstMismatch == nil)
    }
}

/// Random property-list trees with every value kind, and a strict comparison of what was read.
enum PropertyListTrees {
    static func tree(using generator: inout SplitMix64, depth: Int = 0) -> Parameters {
        var parameters: Parameters = [:]
        for _ in 0..<Int.random(in: 0...5, using: &generator) {
            parameters[RandomParameters.word(&generator) + ["", "&", "<x>", "\t", " ", "\n"][Int.random(in: 0...5, using: &generator)]] =
                value(using: &generator, depth: depth + 1)
        }
        return parameters
    }

    static func value(using generator: inout SplitMix64, depth: Int) -> any Sendable {
        switch Int.random(in: 0..<(depth > 3 ? 7 : 9), using: &generator) {
        case 0: return RandomParameters.word(&generator) + ["", "a & b", "<tag>", "]]>", "line\nbreak"][Int.random(in: 0...4, using: &generator)]
        case 1:
            var double = Double(bitPattern: generator.next())
            while !double.isFinite { double = Double(bitPattern: generator.next()) }
            return double
        case 2: return [Int.min, Int.max, 0, -1, Int.random(in: -1_000...1_000, using: &generator)][Int.random(in: 0...4, using: &generator)]
        case 3: return Bool.random(using: &generator)
        case 4: return Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -60_000_000_000...200_000_000_000, using: &generator)))
        case 5: return Data((0..<Int.random(in: 0...90, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        case 6: return UInt64.random(in: UInt64(Int64.max)...UInt64.max, using: &generator)
        case 7:
            return (0..<Int.random(in: 0...3, using: &generator)).map { _ in value(using: &generator, depth: depth + 1) }
        default: return tree(using: &generator, depth: depth)
        }
    }

    /// Whether `read` is exactly `expected`, doubles bit for bit.
    static func matches(_ read: Any, _ expected: Any) -> Bool {
        ReadBack.matches(read, expected) { $0.bitPattern == $1.bitPattern }
    }
}
