import Foundation

// MARK: - CacheStorage

/// Where an ``HTTPCache`` keeps responses: entries under their key, each with a body.
///
/// ``MemoryCacheStorage`` keeps them in memory, ``DiskCacheStorage`` in a folder; conform a type
/// of your own for another store. A storage is shared by every call of every session that uses
/// the cache, so each method may be called from many tasks at once. A storage never returns a
/// wrong body: an entry whose body it cannot read whole, or that fails its check, is a miss
/// (`nil`), never an error.
public protocol CacheStorage: Sendable {
    /// The entries stored under `key`, every variant, newest first.
    ///
    /// - Parameter key: The target URI.
    /// - Returns: The entries; empty when there are none.
    func entries(for key: String) async -> [CacheEntry]

    /// The body of a stored entry, read from the start.
    ///
    /// - Parameter entry: An entry ``entries(for:)`` returned.
    /// - Returns: The body, or `nil` when the entry is gone or its body is damaged.
    func body(of entry: CacheEntry) async -> ResponseBody?

    /// The body of a stored entry whole, for a response read into memory.
    ///
    /// - Parameter entry: An entry ``entries(for:)`` returned.
    /// - Returns: The body, or `nil` when it is gone, damaged, or not ``CacheEntry/bodyLength`` long.
    func data(of entry: CacheEntry) async -> Data?

    /// Starts storing a response: its body goes to the writer chunk by chunk and becomes visible
    /// only when the writer commits, replacing the entries of the same variant.
    ///
    /// - Parameter entry: The response's entry; its ``CacheEntry/id`` is set by the storage.
    /// - Returns: The writer, or `nil` when the storage will not take the entry (a body longer
    ///   than it holds, say).
    func makeWriter(for entry: CacheEntry) async -> (any CacheEntryWriter)?

    /// Replaces a stored entry's head and times, keeping its body: what a 304 does.
    ///
    /// - Parameter entry: The entry, with the ``CacheEntry/key`` and ``CacheEntry/id`` it was
    ///   stored under; nothing happens when it is gone.
    func update(_ entry: CacheEntry) async

    /// Removes every entry under `key`.
    ///
    /// - Parameter key: The target URI.
    func removeEntries(for key: String) async

    /// Removes every entry.
    func removeAll() async
}

extension CacheStorage {
    /// Reads ``body(of:)`` whole and checks its length against the entry's.
    ///
    /// - Parameter entry: An entry ``entries(for:)`` returned.
    /// - Returns: The body, or `nil` when it cannot be read whole.
    public func data(of entry: CacheEntry) async -> Data? {
        guard let body = await body(of: entry) else { return nil }
        var data = body.takeWhole()
        if data == nil {
            data = try? await body.collect(upTo: max(entry.bodyLength, 0))
        }
        guard let data, data.count == entry.bodyLength else { return nil }
        return data
    }
}

// MARK: - CacheEntryWriter

/// Writes one response's body into a ``CacheStorage`` as it streams.
///
/// Nothing written is visible until ``commit()``; ``abort()`` (or dropping the writer
/// uncommitted) discards it. A writer is used by one task at a time.
public protocol CacheEntryWriter: AnyObject, Sendable {
    /// Adds the next chunk of the body.
    ///
    /// - Parameter chunk: The bytes.
    /// - Returns: `false` when the storage gave up on the entry (it grew past the storage's
    ///   limit, or the disk failed): the rest need not be written, and ``commit()`` stores nothing.
    func write(_ chunk: Data) async -> Bool

    /// Makes the entry visible, with the body written, replacing the entries of the same variant.
    ///
    /// - Returns: Whether the entry is now stored.
    @discardableResult
    func commit() async -> Bool

    /// Discards what was written.
    func abort() async
}
