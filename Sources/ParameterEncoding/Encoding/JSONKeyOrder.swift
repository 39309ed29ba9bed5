import Foundation

// MARK: - JSONKeyOrder

/// The order `JSONSerialization` writes keys in with `.sortedKeys`, so that ``JSONEncoding``
/// writes the same bytes it does.
///
/// Foundation compares keys with `compare(_:options:range:locale:)`, options `.numeric`,
/// `.caseInsensitive` and `.forcedOrdering`, in the system locale, which is Unicode collation:
/// punctuation before digits before letters (`_` < `-` < `.` < `0` < `a`), runs of digits by
/// their value (`a2` < `a10`), case only as a tie-break (`a` < `A` < `b`).
///
/// Calling Foundation for every comparison would cost more than the rest of the encoding, so
/// keys of printable ASCII, the common case, are turned into byte strings whose plain order is
/// that order (a collation key), built once per key; containers with any other key are sorted
/// by Foundation itself. Tests check the two agree on random keys.
enum JSONKeyOrder {
    /// The positions of `keys` in sorted order.
    static func sortedIndices(_ keys: [String]) -> [Int] {
        guard keys.count > 1 else { return Array(keys.indices) }
        // Owned buffers: appending a byte checks only the capacity.
        var collationKeys = ByteBuffer(capacity: keys.count * 12)
        var tieBreaks = ByteBuffer(capacity: 64)
        var bounds: [Range<Int>] = []
        bounds.reserveCapacity(keys.count)
        let weights = primaryWeights
        for key in keys {
            let start = collationKeys.count
            guard appendCollationKey(of: key, to: &collationKeys, tieBreaks: &tieBreaks, weights: weights) else {
                return foundationSortedIndices(keys)
            }
            bounds.append(start..<collationKeys.count)
        }
        // The keys are read inside the buffer's borrow, so it lives as long as they are read.
        return collationKeys.withBytes { bytes in
            var prefixes: [KeyOrder.Prefix] = []
            prefixes.reserveCapacity(keys.count)
            for (index, range) in bounds.enumerated() {
                var prefix = KeyOrder.Prefix(index: index)
                for position in 0..<min(range.count, 16) {
                    prefix.add(bytes[range.lowerBound + position], at: position)
                }
                prefixes.append(prefix)
            }
            return KeyOrder.sortedIndices(prefixes) { KeyOrder.compareBytes(bytes[bounds[$0]], bytes[bounds[$1]]) }
        }
    }

    /// The order to write a container's keys in: packed, without an array, when it is small.
    static func writingOrder(_ keys: [String]) -> ChildOrder {
        guard keys.count > 1 else { return .asGiven }
        return letterKeysOrder(keys) ?? .positions(sortedIndices(keys))
    }

    /// The order of keys made only of ASCII letters and `_`, no two of them the same but for
    /// case, or `nil` for any other keys. Such keys collate in the byte order of their lowercase
    /// forms (`_` sorts before every letter in both orders, and without two keys the same but
    /// for case no tie-break applies), so they are sorted as ``KeyOrder`` sorts ASCII keys: by
    /// 16-byte prefixes as integers, in scratch space on the stack, with no collation keys built.
    private static func letterKeysOrder(_ keys: [String]) -> ChildOrder? {
        keys.withUnsafeBufferPointer { keys in
            withUnsafeTemporaryAllocation(of: KeyOrder.Prefix.self, capacity: keys.count) { prefixes -> ChildOrder? in
                for index in keys.indices {
                    var prefix = KeyOrder.Prefix(index: index)
                    var position = 0
                    for byte in keys[index].utf8 {
                        guard let folded = foldedLetter(byte) else { return nil }
                        prefix.add(folded, at: position)
                        position += 1
                    }
                    prefixes.initializeElement(at: index, to: prefix)
                }
                KeyOrder.sort(prefixes) { foldedOrder(keys[$0], keys[$1]) }
                // Two keys the same but for case sit next to each other; their order needs the
                // case tie-break, which the full collation keys have.
                for position in prefixes.indices.dropFirst() {
                    let previous = prefixes[position - 1]
                    let current = prefixes[position]
                    if previous.high == current.high, previous.low == current.low,
                       foldedOrder(keys[previous.index], keys[current.index]) == 0 {
                        return nil
                    }
                }
                return ChildOrder.make(count: prefixes.count) { prefixes[$0].index }
            }
        }
    }

    /// A letter in lowercase, `_` as it is; `nil` for any other byte.
    @inline(__always)
    private static func foldedLetter(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "_"): byte
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte | 0x20
        default: nil
        }
    }

    /// Compares two keys of letters and `_` by their lowercase bytes: negative, zero or positive.
    private static func foldedOrder(_ lhs: String, _ rhs: String) -> Int {
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (l?, r?):
                let a = l | (l >= UInt8(ascii: "A") && l <= UInt8(ascii: "Z") ? 0x20 : 0)
                let b = r | (r >= UInt8(ascii: "A") && r <= UInt8(ascii: "Z") ? 0x20 : 0)
                if a != b { return a < b ? -1 : 1 }
            }
        }
    }

    /// Sorts with Foundation's comparison, as `JSONSerialization` does.
    static func foundationSortedIndices(_ keys: [String]) -> [Int] {
        var order = Array(keys.indices)
        order.sort { lhs, rhs in
            let left = keys[lhs]
            let result = left.compare(keys[rhs], options: options, range: left.startIndex..<left.endIndex, locale: NSLocale.system)
            return result == .orderedSame ? lhs < rhs : result == .orderedAscending
        }
        return order
    }

    static let options: String.CompareOptions = [.numeric, .caseInsensitive, .forcedOrdering]

    // MARK: Collation keys

    /// Appends the collation key of `key`: the primary weights of its elements (a character, or
    /// a run of digits as its value), a 0 byte, then one tie-break byte per element (the number
    /// of leading zeros of a digit run, 1 for an uppercase letter, else 0).
    ///
    /// Returns `false` for keys this table does not cover: bytes outside printable ASCII and
    /// tab to carriage return (control characters are ignorable in collation, and non-ASCII
    /// needs the full Unicode tables), or digit runs longer than 100 digits.
    ///
    /// `tieBreaks` is scratch space, reused from key to key.
    private static func appendCollationKey(of key: String, to target: inout ByteBuffer, tieBreaks: inout ByteBuffer, weights: [UInt8]) -> Bool {
        tieBreaks.truncate(to: 0)
        var key = key
        let covered = key.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte &- UInt8(ascii: "0") < 10 {
                    var end = index
                    while end < bytes.count, bytes[end] &- UInt8(ascii: "0") < 10 { end += 1 }
                    var first = index
                    while first < end, bytes[first] == UInt8(ascii: "0") { first += 1 }
                    guard end - index <= 100 else { return false }
                    target.append(digitsWeight)
                    target.append(UInt8(end - first))
                    target.append(UnsafeBufferPointer(rebasing: bytes[first..<end]))
                    tieBreaks.append(UInt8(first - index))
                    index = end
                } else {
                    let weight = byte < 0x80 ? weights[Int(byte)] : 0
                    guard weight != 0 else { return false }
                    target.append(weight)
                    tieBreaks.append(byte &- UInt8(ascii: "A") < 26 ? 1 : 0)
                    index += 1
                }
            }
            return true
        }
        guard covered else { return false }
        target.append(0)
        target.append(tieBreaks)
        return true
    }

    /// Characters before digits, in collation order.
    private static let punctuation = Array("\t\n\u{0B}\u{0C}\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$".utf8)

    /// The weight of a run of digits: after all punctuation, before all letters.
    private static let digitsWeight = UInt8(punctuation.count + 1)

    /// Primary weight of each ASCII byte, 0 for those not covered. Letters weigh the same in
    /// either case.
    private static let primaryWeights: [UInt8] = {
        var weights = [UInt8](repeating: 0, count: 128)
        for (position, byte) in punctuation.enumerated() { weights[Int(byte)] = UInt8(position + 1) }
        for offset in 0..<26 {
            let weight = digitsWeight + 1 + UInt8(offset)
            weights[Int(UInt8(ascii: "a")) + offset] = weight
            weights[Int(UInt8(ascii: "A")) + offset] = weight
        }
        return weights
    }()
}
