import Foundation
import LoopbackFixture

// MARK: - RandomEncodable

/// Random `Encodable` values for the differential tests of the `Encodable` → JSON writer: every
/// container kind and call a hand-written or synthesised `encode(to:)` makes, with edge values.
indirect enum RandomEncodable: Encodable, Sendable {
    case string(String), bool(Bool), null
    case int(Int), int8(Int8), int64(Int64), uint8(UInt8), uint64(UInt64), int128(Int128)
    case double(Double), float(Float)
    case date(Date), data(Data), url(URL), decimal(Decimal)
    case optional(RandomEncodable?)
    case array([RandomEncodable])
    /// A keyed container with the caller's keys (repeats included), `encodeIfPresent` for optionals.
    case object([Member])
    case stringDictionary([String: RandomEncodable])
    case intDictionary([Int: RandomEncodable])
    case record(Record)
    /// Nested keyed and unkeyed containers written interleaved, one asked for twice, and super encoders.
    case nested(String, RandomEncodable, RandomEncodable)
    /// An `encode(to:)` that writes nothing: `{}` when nested, an error at the top.
    case nothing

    struct Member: Sendable {
        let key: String
        let value: RandomEncodable?
    }

    /// A synthesised conformance, with camel-case names for the key strategies.
    struct Record: Encodable, Sendable {
        var myName: String
        var userID: Int?
        var createdAt: Date
        var payload: Data?
        var score: Double
        var smallScore: Float
        var tags: [String]
        var homeURL: URL?
        var children: [RandomEncodable]
        var _private_thing_: Bool
    }

    typealias Key = StringKey

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let value): var c = encoder.singleValueContainer(); try c.encode(value)
        case .bool(let value): var c = encoder.singleValueContainer(); try c.encode(value)
        case .null: var c = encoder.singleValueContainer(); try c.encodeNil()
        case .int(let value): var c = encoder.singleValueContainer(); try c.encode(value)
        case .int8(let value): var c = encoder.singleValueContainer(); try c.encode(value)
        case .int64(let value): var c = encoder.singleValueContainer(); try c.encode(value)
        case .uint8(let value): var c = encoder.singleValueContainer(); try c.encode(value)
        case .uint64(let value): var c = encoder.singleValueContainer(); try c.encode(value)
        case .int128(let value): var c = encoder.singleValueContainer(); try c.encode(value)
        case .double(let value): var c = encoder.singleValueContainer(); try c.encode(value)
        case .float(let value): var c = encoder.singleValueContainer(); try c.encode(value)
        case .date(let value): var c = encoder.singleValueContainer(); try c.encode(value)
        case .data(let value): var c = encoder.singleValueContainer(); try c.encode(value)
        case .url(let value): var c = encoder.singleValueContainer(); try c.encode(value)
        case .decimal(let value): var c = encoder.singleValueContainer(); try c.encode(value)
        case .optional(let value): var c = encoder.singleValueContainer(); try c.encode(value)
        case .array(let values):
            var c = encoder.unkeyedContainer()
            for value in values {
                switch value {
                case .double(let double): try c.encode(double)
                case .string(let string): try c.encode(string)
                case .null: try c.encodeNil()
                default: try c.encode(value)
                }
            }
        case .object(let members):
            var c = encoder.container(keyedBy: Key.self)
            for member in members {
                switch member.value {
                case .int(let int)?: try c.encode(int, forKey: Key(member.key))
                case .float(let float)?: try c.encode(float, forKey: Key(member.key))
                case .null?: try c.encodeNil(forKey: Key(member.key))
                default: try c.encodeIfPresent(member.value, forKey: Key(member.key))
                }
            }
        case .stringDictionary(let value): try value.encode(to: encoder)
        case .intDictionary(let value): try value.encode(to: encoder)
        case .record(let value): try value.encode(to: encoder)
        case .nested(let key, let first, let second):
            var c = encoder.container(keyedBy: Key.self)
            var inner = c.nestedContainer(keyedBy: Key.self, forKey: Key("inner"))
            var list = c.nestedUnkeyedContainer(forKey: Key("list"))
            try c.encode(first, forKey: Key(key))
            try inner.encode(second, forKey: Key("second"))
            try list.encode(first)
            var again = c.nestedContainer(keyedBy: Key.self, forKey: Key("inner"))
            try again.encode(key, forKey: Key("again"))
            var deeper = list.nestedContainer(keyedBy: Key.self)
            try deeper.encode(second, forKey: Key(key))
            var superValue = c.superEncoder().singleValueContainer()
            try superValue.encode(second)
            var keyedSuper = c.superEncoder(forKey: Key("parent")).unkeyedContainer()
            try keyedSuper.encode(first)
            var elementSuper = list.superEncoder().container(keyedBy: Key.self)
            try elementSuper.encode(1, forKey: Key("up"))
        case .nothing:
            break
        }
    }
}

// MARK: - Generating

extension RandomEncodable {
    static let keys = ["a", "b", "B", "a10", "a2", "myKey", "myURLKey", "URLThing", "aB_c", "_lead", "trail_", "__both__",
                       "ABC", "a1B2c", "ÉtéÀb", "ßeta", "key/slash", "\"quote", "back\\slash", "ctl\u{1}\u{1f}", "tab\t",
                       "é", "e\u{301}", "日本", "😀", "\u{FFFF}", "\u{E000}", "", "Index 0", "super", "x y", "-", "0", "~"]

    static func key(_ generator: inout SplitMix64) -> String {
        keys[Int.random(in: 0..<keys.count, using: &generator)]
    }

    static func string(_ generator: inout SplitMix64) -> String {
        if Bool.random(using: &generator) { return key(&generator) }
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...8, using: &generator) {
            let range: ClosedRange<UInt32> = [0x00...0x7F, 0x00...0x20, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF]
                .randomElement(using: &generator) ?? 0x00...0x7F
            // Scalars only: a Swift string cannot hold a lone surrogate.
            if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &generator)) { scalars.append(scalar) }
        }
        return String(scalars)
    }

    static let doubles: [Double] = [0, -0.0, 1, -1, 0.1, 1.5, 1e15, 1e16, 1e21, 1e-5, 1e-7, 123456789.123, 9007199254740992,
                                    .leastNonzeroMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                    .leastNormalMagnitude, .nan, .infinity, -.infinity]
    static let floats: [Float] = [0, -0.0, 0.1, 1, 3.4e38, 1e15, 1e-7, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .nan, .infinity, -.infinity]
    static let seconds: [Double] = [0, -1.5, 0.1, 12.5, 978_307_200, 1e9 + 0.123, -62_135_596_800, -62_135_596_801, 253_402_300_799,
                                    253_402_300_800, 1e12, -1e12]

    static func double(_ generator: inout SplitMix64) -> Double {
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: doubles[Int.random(in: 0..<doubles.count, using: &generator)]
        case 1: Double.random(in: -1e6...1e6, using: &generator)
        default: Double(bitPattern: generator.next())
        }
    }

    static func float(_ generator: inout SplitMix64) -> Float {
        Bool.random(using: &generator) ? floats[Int.random(in: 0..<floats.count, using: &generator)] : Float(bitPattern: UInt32(truncatingIfNeeded: generator.next()))
    }

    static func date(_ generator: inout SplitMix64) -> Date {
        Bool.random(using: &generator)
            ? Date(timeIntervalSince1970: seconds[Int.random(in: 0..<seconds.count, using: &generator)])
            : Date(timeIntervalSince1970: Double.random(in: -4e9...4e9, using: &generator))
    }

    static func random(_ generator: inout SplitMix64, depth: Int = 0) -> RandomEncodable {
        let leaves = 17
        let choice = Int.random(in: 0..<(depth >= 4 ? leaves : leaves + 9), using: &generator)
        switch choice {
        case 0, 1: return .string(string(&generator))
        case 2: return .bool(Bool.random(using: &generator))
        case 3: return .null
        case 4: return .int(Int.random(in: .min ... .max, using: &generator))
        case 5: return .int8(Int8.random(in: .min ... .max, using: &generator))
        case 6: return .int64(Int64.random(in: -1000...1000, using: &generator))
        case 7: return .uint8(UInt8.random(in: .min ... .max, using: &generator))
        case 8: return .uint64(generator.next())
        case 9: return .int128(Int128(Int64.random(in: .min ... .max, using: &generator)) * 1_000_003)
        case 10, 11: return .double(double(&generator))
        case 12: return .float(float(&generator))
        case 13: return .date(date(&generator))
        case 14: return .data(Data((0..<Int.random(in: 0...9, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        case 15: return .url(URL(string: ["https://example.com/a?b=c&d=/e", "file:///tmp/x%20y", "rel/path"][Int.random(in: 0..<3, using: &generator)]) ?? URL(fileURLWithPath: "/"))
        case 16: return .decimal(Decimal(string: ["0", "1.25", "-0.000123", "1e40", "123456789012345678901234567890"][Int.random(in: 0..<5, using: &generator)]) ?? 0)
        case 17: return .optional(Bool.random(using: &generator) ? nil : random(&generator, depth: depth + 1))
        case 18, 19: return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in random(&generator, depth: depth + 1) })
        case 20, 21:
            return .object((0..<Int.random(in: 0...5, using: &generator)).map { _ in
                Member(key: key(&generator), value: Int.random(in: 0..<5, using: &generator) == 0 ? nil : random(&generator, depth: depth + 1))
            })
        case 22:
            var dictionary: [String: RandomEncodable] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &generator) { dictionary[key(&generator)] = random(&generator, depth: depth + 1) }
            return .stringDictionary(dictionary)
        case 23:
            var dictionary: [Int: RandomEncodable] = [:]
            for _ in 0..<Int.random(in: 0...3, using: &generator) { dictionary[Int.random(in: -20...20, using: &generator)] = random(&generator, depth: depth + 1) }
            return .intDictionary(dictionary)
        case 24:
            return .record(Record(
                myName: string(&generator), userID: Bool.random(using: &generator) ? nil : Int.random(in: -99...99, using: &generator),
                createdAt: date(&generator), payload: Bool.random(using: &generator) ? nil : Data(string(&generator).utf8),
                score: double(&generator), smallScore: float(&generator), tags: [string(&generator), key(&generator)],
                homeURL: Bool.random(using: &generator) ? URL(string: "https://x.example/p/q") : nil,
                children: (0..<Int.random(in: 0...2, using: &generator)).map { _ in random(&generator, depth: depth + 1) },
                _private_thing_: Bool.random(using: &generator)))
        case 25:
            return Bool.random(using: &generator)
                ? .nested(key(&generator), random(&generator, depth: depth + 1), random(&generator, depth: depth + 1))
                : .nothing
        default: return .null
        }
    }
}
