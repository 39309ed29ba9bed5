import Foundation

// MARK: - MemoryCacheStorage

/// A ``CacheStorage`` in memory, bounded in bytes: when a new entry would pass the limit, the
/// entries used least recently go first.
///
/// ```swift
/// let cache = HTTPCache(storage: MemoryCacheStorage(byteLimit: 32 << 20))
/// let session = Session(cache: cache)
/// ```
///
/// An entry counts its body and an estimate of its head. A body longer than a quarter of the
/// limit is not stored, so that one response cannot empty the cache.
public final class MemoryCacheStorage: CacheStorage {
    /// The most bytes the entries may take together.
    public let byteLimit: Int

    /// One stored response and when it was last used.
    private struct Slot {
        var entry: CacheEntry
        let body: Data
        var lastUse: UInt64
        var cost: Int { body.count + CacheEntry.headCost(entry) }
    }

    /// Invariant: `bytes` is the sum of the slots' costs and stays at most `byteLimit` after every
    /// change; `clock` grows with every use, so a smaller `lastUse` is an older one.
    private struct State {
        var slots: [String: [Slot]] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        var nextID: UInt64 = 0
    }

    private let state = Guarded(State())

    /// Creates an empty store.
    ///
    /// - Parameter byteLimit: The most bytes the entries may take; 16 MiB by default.
    public init(byteLimit: Int = 16 << 20) {
        self.byteLimit = max(0, byteLimit)
    }

    /// The bytes the entries take now.
    public var byteCount: Int { state.withLock { $0.bytes } }

    /// The entries under `key`, newest first.
    ///
    /// - Parameter key: The target URI.
    /// - Returns: The entries.
    public func entries(for key: String) async -> [CacheEntry] {
        state.withLock { state in
            guard let slots = state.slots[key] else { return [] }
            return slots.reversed().map(\.entry)
        }
    }

    /// The body of an entry, marking it used.
    ///
    /// - Parameter entry: The entry.
    /// - Returns: The body, or `nil` once the entry is gone.
    public func body(of entry: CacheEntry) async -> ResponseBody? {
        storedData(of: entry).map(ResponseBody.init)
    }

    /// The body of an entry whole, marking it used.
    ///
    /// - Parameter entry: The entry.
    /// - Returns: The body, or `nil` once the entry is gone.
    public func data(of entry: CacheEntry) async -> Data? {
        storedData(of: entry)
    }

    private func storedData(of entry: CacheEntry) -> Data? {
        state.withLock { state in
            guard let index = state.slots[entry.key]?.firstIndex(where: { $0.entry.id == entry.id }) else { return nil }
            state.clock += 1
            state.slots[entry.key]?[index].lastUse = state.clock
            return state.slots[entry.key]?[index].body
        }
    }

    /// A writer that keeps the body in memory until it commits.
    ///
    /// - Parameter entry: The response's entry.
    /// - Returns: The writer, or `nil` when the store holds nothing (a zero limit).
    public func makeWriter(for entry: CacheEntry) async -> (any CacheEntryWriter)? {
        guard byteLimit > 0 else { return nil }
        var entry = entry
        entry.id = state.withLock { state in
            state.nextID += 1
            return String(state.nextID)
        }
        return Writer(storage: self, entry: entry, limit: byteLimit / 4)
    }

    /// Replaces an entry's head and times, keeping its body.
    ///
    /// - Parameter entry: The entry.
    public func update(_ entry: CacheEntry) async {
        state.withLock { state in
            guard let index = state.slots[entry.key]?.firstIndex(where: { $0.entry.id == entry.id }),
                  let old = state.slots[entry.key]?[index] else { return }
            var slot = old
            slot.entry = entry
            slot.entry.bodyLength = old.body.count
            state.clock += 1
            slot.lastUse = state.clock
            state.bytes += slot.cost - old.cost
            state.slots[entry.key]?[index] = slot
            evict(&state, keeping: nil)
        }
    }

    /// Removes the entries under `key`.
    ///
    /// - Parameter key: The target URI.
    public func removeEntries(for key: String) async {
        state.withLock { state in
            guard let slots = state.slots.removeValue(forKey: key) else { return }
            state.bytes -= slots.reduce(0) { $0 + $1.cost }
        }
    }

    /// Removes every entry.
    public func removeAll() async {
        state.withLock { state in
            state.slots = [:]
            state.bytes = 0
        }
    }

    /// Stores a finished body: the same variant's older entries go, then the least recently used
    /// until the store fits its limit again.
    fileprivate func insert(_ entry: CacheEntry, body: Data) -> Bool {
        var entry = entry
        entry.bodyLength = body.count
        return state.withLock { state in
            var slots = state.slots[entry.key] ?? []
            for old in slots where old.entry.isSameVariant(as: entry) {
                state.bytes -= old.cost
            }
            slots.removeAll { $0.entry.isSameVariant(as: entry) }
            state.clock += 1
            let slot = Slot(entry: entry, body: body, lastUse: state.clock)
            guard slot.cost <= byteLimit else {
                state.slots[entry.key] = slots.isEmpty ? nil : slots
                return false
            }
            slots.append(slot)
            state.slots[entry.key] = slots
            state.bytes += slot.cost
            evict(&state, keeping: entry.id)
            return true
        }
    }

    /// Removes the least recently used entries, never the one just stored, until the store holds
    /// at most 90% of its limit, so that the next inserts do not sort the entries again at once.
    private func evict(_ state: inout State, keeping id: String?) {
        guard state.bytes > byteLimit else { return }
        let target = byteLimit / 10 * 9
        var order: [(key: String, id: String, lastUse: UInt64)] = []
        for (key, slots) in state.slots {
            for slot in slots where slot.entry.id != id {
                order.append((key, slot.entry.id, slot.lastUse))
            }
        }
        order.sort { $0.lastUse < $1.lastUse }
        for victim in order {
            guard state.bytes > target else { break }
            guard let index = state.slots[victim.key]?.firstIndex(where: { $0.entry.id == victim.id }),
                  let slot = state.slots[victim.key]?.remove(at: index) else { continue }
            state.bytes -= slot.cost
            if state.slots[victim.key]?.isEmpty == true {
                state.slots[victim.key] = nil
            }
        }
    }

    /// Gathers a body in memory; gives up past `limit` bytes.
    private final class Writer: CacheEntryWriter {
        private let storage: MemoryCacheStorage
        private let entry: CacheEntry
        private let limit: Int
        private let body = Guarded<(data: Data, failed: Bool)>((Data(), false))

        init(storage: MemoryCacheStorage, entry: CacheEntry, limit: Int) {
            self.storage = storage
            self.entry = entry
            self.limit = limit
        }

        func write(_ chunk: Data) async -> Bool {
            body.withLock { body in
                guard !body.failed else { return false }
                guard body.data.count + chunk.count <= limit else {
                    body = (Data(), true)
                    return false
                }
                body.data.append(chunk)
                return true
            }
        }

        func commit() async -> Bool {
            let data = body.withLock { body -> Data? in
                defer { body = (Data(), true) }
                return body.failed ? nil : body.data
            }
            guard let data else { return false }
            return storage.insert(entry, body: data)
        }

        func abort() async {
            body.withLock { $0 = (Data(), true) }
        }
    }
}

extension CacheEntry {
    /// What an entry's head costs a store, roughly: its fields and key, and a fixed overhead.
    static func headCost(_ entry: CacheEntry) -> Int {
        var cost = 256 + entry.key.utf8.count
        for header in entry.headers {
            cost += header.name.utf8.count + header.value.utf8.count + 32
        }
        return cost
    }
}
