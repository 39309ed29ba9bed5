import Foundation

// MARK: - DiskCacheStorage

/// A ``CacheStorage`` in one folder: it survives a restart, and several sessions, or several
/// stores on the same folder in one process, can share it.
///
/// ```swift
/// let folder = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0].appendingPathComponent("http")
/// let session = Session(cache: HTTPCache(storage: try DiskCacheStorage(directory: folder)))
/// ```
///
/// Each entry is two files in a folder named after its key's hash: the body, and a head (the
/// response's fields, times, the body's length and checksum). A body is written to a temporary
/// file as it streams and moved into place, then its head; the head appearing is the commit, so a
/// reader sees a whole entry or none. A head that cannot be read, or a body whose length or
/// checksum differs from its head's, is a miss (and is removed), never an error or a wrong body.
/// When the folder passes ``byteLimit``, the entries used least recently go first.
public final class DiskCacheStorage: CacheStorage {
    /// The folder.
    public let directory: URL
    /// The most bytes the entries' files may take together.
    public let byteLimit: Int
    /// The bytes this store believes the folder holds: counted at start, grown by its own writes;
    /// when it passes the limit, the folder is measured again and trimmed.
    private let bytes: Guarded<Int>
    /// Bodies at most this long are read and checked in one piece; longer ones stream after a
    /// checking pass.
    static let wholeReadLimit = 1 << 20

    /// Opens (and creates) a store in a folder.
    ///
    /// - Parameters:
    ///   - directory: The folder; created when missing. Stores opened on one folder share its
    ///     entries; give it nothing else to hold.
    ///   - byteLimit: The most bytes the entries may take; 100 MiB by default. A body longer than
    ///     a quarter of it is not stored.
    /// - Throws: The file system's error when the folder cannot be created.
    public init(directory: URL, byteLimit: Int = 100 << 20) throws {
        self.directory = directory
        self.byteLimit = max(0, byteLimit)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent(Self.temporaryFolder), withIntermediateDirectories: true)
        // What a crash left an hour or more ago is no write under way.
        Self.sweep(directory, olderThan: 3_600)
        bytes = Guarded(Self.files(in: directory).reduce(0) { $0 + $1.size })
    }

    /// The entries under `key`, newest first; heads that do not decode are removed and skipped.
    ///
    /// - Parameter key: The target URI.
    /// - Returns: The entries.
    public func entries(for key: String) async -> [CacheEntry] {
        let folder = folder(for: key)
        var entries: [CacheEntry] = []
        for id in Self.headIDs(in: folder) {
            switch readHead(folder: folder, id: id) {
            case .record(let record) where record.entry.key == key: entries.append(record.entry)
            case .damaged: remove(folder: folder, id: id)
            case .record, .missing: continue
            }
        }
        return entries.sorted { Self.isOlder($1, than: $0) }
    }

    /// The body of an entry, checked against its head's length and checksum; marks it used.
    ///
    /// - Parameter entry: The entry.
    /// - Returns: The body, or `nil` when it is gone or damaged (a damaged entry is removed).
    public func body(of entry: CacheEntry) async -> ResponseBody? {
        let folder = folder(for: entry.key)
        guard let record = readRecord(folder: folder, id: entry.id), record.entry.key == entry.key else { return nil }
        let path = folder.appendingPathComponent(entry.id + Self.bodySuffix).path
        guard let handle = FileHandle(forReadingAtPath: path) else {
            // A head without its body (removed under it, or left by a crash) answers nothing.
            if !FileManager.default.fileExists(atPath: path) { remove(folder: folder, id: entry.id) }
            return nil
        }
        guard let body = Self.checkedBody(handle, length: record.entry.bodyLength, checksum: record.checksum) else {
            try? handle.close()
            remove(folder: folder, id: entry.id)
            return nil
        }
        // The head's modification date is the entry's last use, for the least-recently-used order.
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: folder.appendingPathComponent(entry.id + Self.headSuffix).path)
        return body
    }

    /// A writer that streams the body into a temporary file.
    ///
    /// - Parameter entry: The response's entry.
    /// - Returns: The writer, or `nil` when no temporary file can be made.
    public func makeWriter(for entry: CacheEntry) async -> (any CacheEntryWriter)? {
        guard byteLimit > 0 else { return nil }
        var entry = entry
        entry.id = Self.newID()
        let temporary = directory.appendingPathComponent(Self.temporaryFolder).appendingPathComponent(entry.id + Self.bodySuffix)
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary.path) else { return nil }
        return DiskEntryWriter(storage: self, entry: entry, temporary: temporary, handle: handle, limit: byteLimit / 4)
    }

    /// Replaces an entry's head and times, keeping its body and checksum.
    ///
    /// - Parameter entry: The entry.
    public func update(_ entry: CacheEntry) async {
        let folder = folder(for: entry.key)
        guard let old = readRecord(folder: folder, id: entry.id) else { return }
        var updated = entry
        updated.bodyLength = old.entry.bodyLength
        guard writeRecord(DiskEntryRecord(entry: updated, checksum: old.checksum), folder: folder) != nil else { return }
        // Removed while the new head was written: the head is not to come back without a body.
        if !FileManager.default.fileExists(atPath: folder.appendingPathComponent(entry.id + Self.bodySuffix).path) {
            remove(folder: folder, id: entry.id)
        }
    }

    /// Removes the entries under `key`.
    ///
    /// - Parameter key: The target URI.
    public func removeEntries(for key: String) async {
        let folder = folder(for: key)
        for entry in await entries(for: key) {
            remove(folder: folder, id: entry.id)
        }
    }

    /// Removes every entry.
    public func removeAll() async {
        let manager = FileManager.default
        for name in (try? manager.contentsOfDirectory(atPath: directory.path)) ?? [] where name != Self.temporaryFolder {
            try? manager.removeItem(at: directory.appendingPathComponent(name))
        }
        bytes.withLock { $0 = 0 }
    }

    // MARK: Committing

    /// Moves a finished body into place, writes its head (the commit), removes the same
    /// variant's older entries and trims the folder to its limit.
    func commit(_ entry: CacheEntry, checksum: UInt64, temporary: URL) -> Bool {
        let folder = folder(for: entry.key)
        let manager = FileManager.default
        do {
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            try manager.moveItem(at: temporary, to: folder.appendingPathComponent(entry.id + Self.bodySuffix))
        } catch {
            try? manager.removeItem(at: temporary)
            return false
        }
        guard let headSize = writeRecord(DiskEntryRecord(entry: entry, checksum: checksum), folder: folder) else {
            try? manager.removeItem(at: folder.appendingPathComponent(entry.id + Self.bodySuffix))
            return false
        }
        // Only older entries of the variant go: two stores committing the same variant at once
        // each keep the newer, so one survives, never none.
        for id in Self.headIDs(in: folder) {
            guard id != entry.id, let other = readRecord(folder: folder, id: id), other.entry.isSameVariant(as: entry),
                  Self.isOlder(other.entry, than: entry) else { continue }
            remove(folder: folder, id: id)
        }
        let total = bytes.withLock { bytes -> Int in
            bytes += entry.bodyLength + headSize
            return bytes
        }
        if total > byteLimit { trim(keeping: entry.id) }
        return true
    }

    /// A total order of entries by arrival, the name breaking ties.
    static func isOlder(_ entry: CacheEntry, than other: CacheEntry) -> Bool {
        (entry.responseTime, entry.id) < (other.responseTime, other.id)
    }

    /// Measures the folder and removes the least recently used entries until it holds at most
    /// 90% of the limit, so that the next commits do not measure it again at once.
    private func trim(keeping id: String) {
        var files = Self.files(in: directory)
        var total = files.reduce(0) { $0 + $1.size }
        // File times may come from a coarse kernel clock, so entries written within one tick tie;
        // the names, sorted by creation, put the older first.
        files.sort { ($0.lastUse, $0.id) < ($1.lastUse, $1.id) }
        let target = byteLimit / 10 * 9
        for file in files where total > target && file.id != id {
            remove(folder: file.folder, id: file.id)
            total -= file.size
        }
        bytes.withLock { $0 = max(0, total) }
    }

    /// Removes an entry's files, the head first so that no reader finds a head without a body.
    func remove(folder: URL, id: String) {
        let manager = FileManager.default
        let head = folder.appendingPathComponent(id + Self.headSuffix)
        let body = folder.appendingPathComponent(id + Self.bodySuffix)
        let size = Self.size(of: head) + Self.size(of: body)
        try? manager.removeItem(at: head)
        try? manager.removeItem(at: body)
        bytes.withLock { $0 = max(0, $0 - size) }
    }

    /// The folder of a key's entries: its hash, so that any key makes a valid name.
    func folder(for key: String) -> URL {
        var checksum = Checksum()
        checksum.add(Data(key.utf8))
        return directory.appendingPathComponent(String(checksum.value, radix: 16))
    }
}
