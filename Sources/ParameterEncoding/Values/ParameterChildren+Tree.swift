// MARK: - ParameterChildren + tree objects

extension ParameterChildren {
    /// The children of a tree object (see ``Values/tree(_:)``) as they are written, and their
    /// order: each key once, with its first spelling and its last value, at its first position
    /// or sorted in ``KeyOrder``, as a dictionary keyed by `String` (which takes canonically
    /// equal keys for one) would hold them. A key is rarely there twice, so the entries are
    /// copied only when one is.
    static func treeObject(_ entries: [JSONTree.Entry], sorted: Bool) -> (ParameterChildren, ChildOrder) {
        let ordering: Ordering = sorted ? .byKey : .given
        if sorted {
            let (order, repeatsKeys) = KeyOrder.writingOrder(entries)
            if !repeatsKeys { return (ParameterChildren(keys: [], values: .tree(entries), ordering: ordering), order) }
        } else if !repeatsKeys(entries) {
            return (ParameterChildren(keys: [], values: .tree(entries), ordering: ordering), .asGiven)
        }
        let unique = resolvingRepeatedKeys(entries)
        return (ParameterChildren(keys: [], values: .tree(unique), ordering: ordering),
                sorted ? KeyOrder.writingOrder(unique).order : .asGiven)
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
