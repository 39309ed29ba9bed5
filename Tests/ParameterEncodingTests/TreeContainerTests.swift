import Foundation
import TestScheduling
import Testing
import ParameterEncoding

/// How the form encoder writes an object whose `encode(to:)` encodes a key more than once: each
/// key once, at its first position and with its first spelling, with its last value, as a
/// dictionary keyed by `String` (which takes canonically equal keys for one) holds them.
@Suite(.backgroundPriority) struct TreeContainerTests {
    typealias Key = StringKey

    /// Encodes `pairs` in order, a key given again included, through one keyed container.
    struct Pairs: Encodable {
        let pairs: [(String, Int)]
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in pairs { try container.encode(value, forKey: Key(key)) }
        }
    }

    /// `b`, then `é` decomposed, `a`, `é` precomposed and `b` again.
    struct Repeats: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(1, forKey: Key("b"))
            try container.encode("first", forKey: Key("e\u{301}"))
            try container.encode(2, forKey: Key("a"))
            try container.encode("second", forKey: Key("é"))
            try container.encode(3, forKey: Key("b"))
        }
    }

    @Test func aRepeatedKeyIsWrittenOnceWithItsFirstSpellingAndLastValue() throws {
        #expect(try URLEncodedFormEncoder().encode(Repeats()) == "a=2&b=3&e%CC%81=second")
        #expect(try URLEncodedFormEncoder(alphabetizeKeyValuePairs: false).encode(Repeats()) == "b=3&e%CC%81=second&a=2")
        #expect(try URLEncodedFormEncoder().encode(["nested": Repeats()]) == "nested%5Ba%5D=2&nested%5Bb%5D=3&nested%5Be%CC%81%5D=second")
    }

    @Test(arguments: [2, 16, 17, 40])
    func repeatedKeysOfLargeObjectsAreWrittenOnceToo(count: Int) throws {
        // Every third key again, with a new value; past 16 keys other sorting and lookup paths run.
        var pairs = (0..<count).map { ("k\($0)", $0) }
        pairs += stride(from: 0, to: count, by: 3).map { ("k\($0)", 1_000 + $0) }
        let lastValues = Dictionary(pairs, uniquingKeysWith: { _, last in last })
        let firstPositions = (0..<count).map { ("k\($0)", lastValues["k\($0)"] ?? 0 as any Sendable) }
        #expect(try URLEncodedFormEncoder().encode(Pairs(pairs: pairs)) == (try URLEncoding.default.query(lastValues)))
        #expect(try URLEncodedFormEncoder(alphabetizeKeyValuePairs: false).encode(Pairs(pairs: pairs))
            == (try URLEncoding.default.query(firstPositions)))
    }

    @Test func aKeyEncodedAgainAfterItsNestedContainerReplacesTheContainer() throws {
        struct Replaced: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                var nested = container.nestedContainer(keyedBy: Key.self, forKey: Key("k"))
                try nested.encode(1, forKey: Key("x"))
                try container.encode("flat", forKey: Key("k"))
                try nested.encode(2, forKey: Key("y"))
                try container.encode(0, forKey: Key("a"))
            }
        }
        // The container written after `k` was encoded again writes into what `k` held before.
        #expect(try URLEncodedFormEncoder().encode(Replaced()) == "a=0&k=flat")
        #expect(try URLEncodedFormEncoder(alphabetizeKeyValuePairs: false).encode(Replaced()) == "k=flat&a=0")
    }
}
