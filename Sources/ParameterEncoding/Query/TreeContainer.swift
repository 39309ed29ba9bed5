// MARK: - TreeContainer

/// A container of the ``JSONTree`` that a ``QueryWriter`` writes (an `Encodable` value's, from
/// ``URLEncodedFormEncoder``): its entries, whose keys and typed values need no classifying.
///
/// The writer keeps tree containers in frames of their own rather than in ``ParameterChildren``:
/// a fifth case of ``ParameterChildren/Values`` made every `Parameters` walk 3% slower.
struct TreeContainer {
    let entries: [JSONTree.Entry]
    let isObject: Bool

    init(entries: [JSONTree.Entry], isObject: Bool) {
        self.entries = entries
        self.isObject = isObject
    }

    /// The container at `index` of `tree`.
    init(_ tree: JSONTree, at index: Int) {
        let container = tree.containers[index]
        entries = container.entries
        isObject = container.isObject
    }

    /// The entries to write and their order. An array's are all written, in order. An object's
    /// keys are written once each, with their first spelling and their last value, sorted in
    /// ``KeyOrder`` or at their first position, as a dictionary keyed by `String` (which takes
    /// canonically equal keys for one) would hold them. A key is rarely there twice, so the
    /// entries are copied only when one is.
    func writingOrder(sortsKeys: Bool) -> (entries: [JSONTree.Entry], order: ChildOrder) {
        guard isObject else { return (entries, .asGiven) }
        if sortsKeys {
            let (order, repeatsKeys) = KeyOrder.writingOrder(entries)
            if !repeatsKeys { return (entries, order) }
        } else if !Self.repeatsKeys(entries) {
            return (entries, .asGiven)
        }
        let unique = Self.resolvingRepeatedKeys(entries)
        return (unique, sortsKeys ? KeyOrder.writingOrder(unique).order : .asGiven)
    }

    /// Whether two entries have equal keys.
    private static func repeatsKeys(_ entries: [JSONTree.Entry]) -> Bool {
        guard entries.count > 1 else { return false }
        guard entries.count > 16 else {
            for later in 1..<entries.count {
                for earlier in 0..<later where entries[earlier].key == entries[later].key { return true }
            }
            return false
        }
        var seen = Set<String>(minimumCapacity: entries.count)
        for entry in entries where !seen.insert(entry.key).inserted { return true }
        return false
    }

    /// Each key once, at its first position, with its first spelling and its last value.
    private static func resolvingRepeatedKeys(_ entries: [JSONTree.Entry]) -> [JSONTree.Entry] {
        var positions: [String: Int] = [:]
        var unique: [JSONTree.Entry] = []
        for entry in entries {
            if let position = positions[entry.key] {
                unique[position].value = entry.value
            } else {
                positions[entry.key] = unique.count
                unique.append(entry)
            }
        }
        return unique
    }
}
