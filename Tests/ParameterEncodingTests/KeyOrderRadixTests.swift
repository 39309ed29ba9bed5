import Foundation
import LoopbackFixture
@testable import ParameterEncoding
import Testing

// MARK: - KeyOrderRadixTests

/// Large containers are sorted by their prefixes' bytes; the order is the one a stable
/// comparison sort gives, for keys that share long prefixes, tie beyond 16 bytes, or repeat.
@Suite struct KeyOrderRadixTests {
    /// Keys drawn so that ranges share bytes at every depth: a common stem, digit runs, long
    /// tails that tie in their first 16 bytes, and the empty key.
    static func keys(_ count: Int, seed: UInt64) -> [String] {
        var generator = SplitMix64(seed: seed)
        let stems = ["", "key", "user_", "a_rather_long_shared_stem_", "Z", "~"]
        return (0..<count).map { _ in
            let stem = stems[Int.random(in: 0..<stems.count, using: &generator)]
            let digits = String(Int.random(in: 0..<(count * 4), using: &generator))
            let tail = Int.random(in: 0..<4, using: &generator) == 0 ? String(repeating: "x", count: Int.random(in: 0...20, using: &generator)) : ""
            return stem + digits + tail
        }
    }

    @Test(arguments: [2_049, 5_000, 40_000])
    func largeUniqueKeysSortAsByteOrder(count: Int) {
        let keys = Array(Set(Self.keys(count, seed: UInt64(count))))
        let ours = KeyOrder.sortedIndices(keys).map { keys[$0] }
        let expected = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(ours == expected)
    }

    @Test func largeRepeatedKeysKeepTheirEncodingOrder() {
        // Tree entries may repeat a key; the writer needs them next to each other, in the order
        // they were encoded.
        let keys = Self.keys(6_000, seed: 7).map { String($0.prefix(5)) }
        let entries = keys.enumerated().map { JSONTree.Entry(key: $1, value: .integer(Int64($0))) }
        guard let (order, repeats) = KeyOrder.asciiWritingOrder(entries) else {
            Issue.record("the keys are ASCII")
            return
        }
        #expect(repeats)
        let ours = entries.indices.map { order.slot($0) }
        let expected = entries.indices.sorted { lhs, rhs in
            let left = entries[lhs].key.utf8
            let right = entries[rhs].key.utf8
            return left.elementsEqual(right) ? lhs < rhs : left.lexicographicallyPrecedes(right)
        }
        #expect(ours == expected)
    }
}
