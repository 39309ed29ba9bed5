import Foundation

// MARK: - KeyOrder

/// The order the query, form and property-list writers put dictionary keys in. `JSONEncoding`
/// writes `JSONSerialization`'s `.sortedKeys` order instead (``JSONKeyOrder``).
///
/// It is the order `String`'s `<` documents (Unicode canonical equivalence: NFC-normalized
/// scalars compared in turn), made total: keys that are canonically equal but spelled
/// differently (`"é"` and `"e\u{301}"`) are ordered by their UTF-8 bytes. `String`'s own `<`
/// cannot be used directly for such keys: it is not a strict weak ordering when precomposed
/// and decomposed forms mix (`"e\u{301}"` is neither less nor greater than `"é1"`, yet
/// `"é1" < "é2"`), so a sort with it depends on the input order. For ASCII keys, by far the most
/// common, both orders are plain byte order, which is sorted by 16-byte integer prefixes.
enum KeyOrder {
    /// Returns `items` sorted by the key of each.
    static func sorted<Item>(_ items: [Item], by key: (Item) -> String) -> [Item] {
        sortedIndices(items.map(key)).map { items[$0] }
    }

    /// Returns keys sorted in this order.
    static func sorted(_ keys: [String]) -> [String] {
        sortedIndices(keys).map { keys[$0] }
    }

    /// The positions of `keys` in sorted order. Sorting positions rather than the items keeps
    /// the comparisons on plain strings, without copying values or their existential boxes.
    static func sortedIndices(_ keys: [String]) -> [Int] {
        guard keys.count > 1 else { return Array(keys.indices) }
        if let order = asciiSorted(keys, finish: { prefixes in prefixes.map(\.index) }) {
            return order
        }
        return unicodeSortedIndices(keys)
    }

    /// The order to write a container's keys in: packed, without an array, when it is small.
    static func writingOrder(_ keys: [String]) -> ChildOrder {
        guard keys.count > 1 else { return .asGiven }
        let order = asciiSorted(keys) { prefixes in
            ChildOrder.make(count: prefixes.count) { prefixes[$0].index }
        }
        return order ?? .positions(unicodeSortedIndices(keys))
    }

    /// The order to write a tree object's entries in, by key, and whether a key is there more
    /// than once (its entries are then next to each other, in encoding order).
    static func writingOrder(_ entries: [JSONTree.Entry]) -> (order: ChildOrder, repeatsKeys: Bool) {
        if let ascii = asciiWritingOrder(entries) { return ascii }
        let keys = entries.map(\.key)
        return (.positions(unicodeSortedIndices(keys)), Set(keys).count < keys.count)
    }

    /// The writing order of a tree object when every key is ASCII, in byte order, else `nil`:
    /// the JSON writer orders other keys by their UTF-8 bytes, as `JSONEncoder` does, not by
    /// their canonical form.
    static func asciiWritingOrder(_ entries: [JSONTree.Entry]) -> (order: ChildOrder, repeatsKeys: Bool)? {
        guard entries.count > 1 else { return (.asGiven, false) }
        return entries.withUnsafeBufferPointer { entries in
            asciiSorted(entries) { prefixes in
                var repeatsKeys = false
                for position in prefixes.indices.dropFirst() {
                    let previous = prefixes[position - 1]
                    let current = prefixes[position]
                    if previous.high == current.high, previous.low == current.low,
                       entries[previous.index].key.utf8.elementsEqual(entries[current.index].key.utf8) {
                        repeatsKeys = true
                        break
                    }
                }
                return (ChildOrder.make(count: prefixes.count) { prefixes[$0].index }, repeatsKeys)
            }
        }
    }

    /// Sorts any keys: canonical order, ties broken by UTF-8 bytes.
    private static func unicodeSortedIndices(_ keys: [String]) -> [Int] {
        let normalized = keys.map { isASCII($0) ? $0 : $0.precomposedStringWithCanonicalMapping }
        var order = Array(keys.indices)
        order.sort { lhs, rhs in
            // UTF-8 byte order is scalar order, so comparing NFC bytes compares NFC scalars.
            if normalized[lhs].utf8.elementsEqual(normalized[rhs].utf8) {
                return keys[lhs].utf8.lexicographicallyPrecedes(keys[rhs].utf8)
            }
            return normalized[lhs].utf8.lexicographicallyPrecedes(normalized[rhs].utf8)
        }
        return order
    }

    /// A key's first 16 bytes, big-endian, so integer order is byte order, plus its position.
    struct Prefix {
        var high: UInt64 = 0
        var low: UInt64 = 0
        let index: Int

        init(index: Int) {
            self.index = index
        }

        /// Adds the byte at `position` of the key; bytes past the 16th are ignored.
        @inline(__always)
        mutating func add(_ byte: UInt8, at position: Int) {
            if position < 8 {
                high |= UInt64(byte) << UInt64(56 - 8 * position)
            } else if position < 16 {
                low |= UInt64(byte) << UInt64(56 - 8 * (position - 8))
            }
        }
    }

    /// Sorts keys by their prefixes, as integers, and calls `compare` only when two prefixes
    /// tie; returns the keys' positions in order.
    static func sortedIndices(_ prefixes: [Prefix], compare: (Int, Int) -> Int) -> [Int] {
        var prefixes = prefixes
        prefixes.withUnsafeMutableBufferPointer { sort($0, compare: compare) }
        return prefixes.map(\.index)
    }

    /// Sorts prefixes in place, as integers, calling `compare` (negative, zero or positive, as
    /// the keys at two positions compare) only when two of them tie; items whose keys are equal
    /// stay in their original order.
    ///
    /// Small containers are sorted by insertion; large ones by their prefixes' bytes, most
    /// significant first (``radixSort(_:byte:ordered:)``), whose cost per key grows with the
    /// length of the keys' common prefixes rather than with the logarithm of their number.
    static func sort(_ items: UnsafeMutableBufferPointer<Prefix>, compare: (Int, Int) -> Int) {
        // A total order: prefix, then the keys (one comparison), then the original position, so
        // that an unstable partition ends in the same order a stable sort would.
        @inline(__always)
        func ordered(_ lhs: Prefix, _ rhs: Prefix) -> Bool {
            if lhs.high != rhs.high { return lhs.high < rhs.high }
            if lhs.low != rhs.low { return lhs.low < rhs.low }
            let order = compare(lhs.index, rhs.index)
            return order != 0 ? order < 0 : lhs.index < rhs.index
        }
        if items.count > radixCount {
            return radixSort(items, byte: 0, ordered: ordered)
        }
        comparisonSort(items, ordered: ordered)
    }

    /// Sorts by insertion up to ``smallCount`` items, with the standard sort above.
    @inline(__always)
    private static func comparisonSort(_ items: UnsafeMutableBufferPointer<Prefix>, ordered: (Prefix, Prefix) -> Bool) {
        if items.count > smallCount {
            var items = items
            return items.sort(by: ordered)
        }
        // Most containers are small: an insertion sort, without the general sort's setup and
        // its calls through a closure per comparison.
        for next in items.indices.dropFirst() {
            let item = items[next]
            var position = next
            while position > 0, ordered(item, items[position - 1]) {
                items[position] = items[position - 1]
                position -= 1
            }
            items[position] = item
        }
    }

    /// Sorts items whose prefixes agree before byte `byte` (0 to 15, most significant first):
    /// counts each value of that byte, moves every item into its byte's range in place
    /// (American flag sort), then sorts each range by the next byte. A byte all items share
    /// costs one counting pass; ranges of up to ``radixRangeCount`` items, and items whose whole
    /// prefixes agree, are sorted by comparison.
    private static func radixSort(_ items: UnsafeMutableBufferPointer<Prefix>, byte: Int, ordered: (Prefix, Prefix) -> Bool) {
        guard items.count > radixRangeCount, byte < 16 else { return comparisonSort(items, ordered: ordered) }
        @inline(__always)
        func digit(_ item: Prefix) -> Int {
            byte < 8 ? Int(truncatingIfNeeded: item.high >> UInt64(56 - 8 * byte)) & 0xFF
                : Int(truncatingIfNeeded: item.low >> UInt64(56 - 8 * (byte - 8))) & 0xFF
        }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 512) { scratch in
            // The first 256 are each byte value's count, then the next free place in its range;
            // the last 256 each range's end.
            scratch.initialize(repeating: 0)
            for item in items { scratch[digit(item)] += 1 }
            if scratch[digit(items[0])] == items.count {
                return radixSort(items, byte: byte + 1, ordered: ordered)
            }
            var start = 0
            for value in 0..<256 {
                let count = scratch[value]
                scratch[value] = start
                start += count
                scratch[256 + value] = start
            }
            for value in 0..<256 {
                while scratch[value] < scratch[256 + value] {
                    var item = items[scratch[value]]
                    var target = digit(item)
                    // Carry the item to its range, taking the one found there, until one
                    // belongs here.
                    while target != value {
                        swap(&item, &items[scratch[target]])
                        scratch[target] += 1
                        target = digit(item)
                    }
                    items[scratch[value]] = item
                    scratch[value] += 1
                }
            }
            var lower = 0
            for value in 0..<256 {
                let upper = scratch[256 + value]
                if upper - lower > 1 {
                    radixSort(UnsafeMutableBufferPointer(rebasing: items[lower..<upper]), byte: byte + 1, ordered: ordered)
                }
                lower = upper
            }
        }
    }

    /// Containers up to this many keys are sorted by insertion.
    private static let smallCount = 16

    /// Containers above this many keys are sorted by their prefixes' bytes: below it, the
    /// standard sort is as quick and needs no counting passes.
    private static let radixCount = 2_048

    /// Within a radix sort, ranges above this many keys are sorted by the next byte.
    private static let radixRangeCount = 48

    /// Sorts ASCII keys, for which `<` is plain byte order, by comparing 16-byte prefixes as
    /// integers and whole keys only when prefixes tie, then hands the sorted prefixes to
    /// `finish`. Returns `nil` if any key is not ASCII. The prefixes live in scratch space, on
    /// the stack for small containers.
    private static func asciiSorted<Order>(_ keys: [String], finish: (UnsafeMutableBufferPointer<Prefix>) -> Order) -> Order? {
        keys.withUnsafeBufferPointer { keys in
            withUnsafeTemporaryAllocation(of: Prefix.self, capacity: keys.count) { prefixes -> Order? in
                for index in keys.indices {
                    guard let prefix = asciiPrefix(keys[index], index: index) else { return nil }
                    prefixes.initializeElement(at: index, to: prefix)
                }
                sort(prefixes) { compareBytes(keys[$0], keys[$1]) }
                return finish(prefixes)
            }
        }
    }

    /// ``asciiSorted(_:finish:)`` for the keys of tree entries.
    private static func asciiSorted<Order>(_ entries: UnsafeBufferPointer<JSONTree.Entry>,
                                           finish: (UnsafeMutableBufferPointer<Prefix>) -> Order) -> Order? {
        withUnsafeTemporaryAllocation(of: Prefix.self, capacity: entries.count) { prefixes -> Order? in
            for index in entries.indices {
                guard let prefix = asciiPrefix(entries[index].key, index: index) else { return nil }
                prefixes.initializeElement(at: index, to: prefix)
            }
            sort(prefixes) { compareBytes(entries[$0].key, entries[$1].key) }
            return finish(prefixes)
        }
    }

    /// The prefix of the key at `index`, or `nil` if the key is not ASCII.
    @inline(__always)
    private static func asciiPrefix(_ key: String, index: Int) -> Prefix? {
        var prefix = Prefix(index: index)
        // Native strings hand out their bytes directly; bridged ones are walked.
        let isASCII = key.utf8.withContiguousStorageIfAvailable { bytes in
            Self.addASCII(bytes, to: &prefix)
        } ?? Self.addASCII(key.utf8, to: &prefix)
        return isASCII ? prefix : nil
    }

    /// Adds a key's contiguous bytes to its prefix, eight at a time; `false` if one of them is
    /// not ASCII.
    @inline(__always)
    private static func addASCII(_ bytes: UnsafeBufferPointer<UInt8>, to prefix: inout Prefix) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        // The first 16 bytes, zero-padded, as two big-endian words: integer order is byte order.
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: base, count: min(count, 16)))
        }
        var any = words.0 | words.1
        var index = 16
        while index < count {
            any |= UInt64(base[index])
            index += 1
        }
        guard any & 0x8080_8080_8080_8080 == 0 else { return false }
        prefix.high = UInt64(bigEndian: words.0)
        prefix.low = UInt64(bigEndian: words.1)
        return true
    }

    /// Adds a key's bytes to its prefix; `false` if one of them is not ASCII.
    @inline(__always)
    private static func addASCII<Bytes: Collection<UInt8>>(_ bytes: Bytes, to prefix: inout Prefix) -> Bool {
        var position = 0
        for byte in bytes {
            guard byte < 0x80 else { return false }
            prefix.add(byte, at: position)
            position += 1
        }
        return true
    }

    /// Compares two strings by their UTF-8 bytes in one pass: negative, zero or positive.
    static func compareBytes(_ lhs: String, _ rhs: String) -> Int {
        let fast = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in compareBytes(left, right) }
        }
        if let order = fast ?? nil { return order }
        return compareBytes(lhs.utf8, rhs.utf8)
    }

    /// Compares two byte sequences lexicographically: negative, zero or positive.
    static func compareBytes<Left: Sequence<UInt8>, Right: Sequence<UInt8>>(_ lhs: Left, _ rhs: Right) -> Int {
        var left = lhs.makeIterator()
        var right = rhs.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (l?, r?) where l != r: return l < r ? -1 : 1
            default: continue
            }
        }
    }

    private static func isASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 }
    }
}
