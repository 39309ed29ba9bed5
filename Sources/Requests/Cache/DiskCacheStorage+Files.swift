import Foundation

// MARK: - DiskCacheStorage + files

extension DiskCacheStorage {
    static let headSuffix = ".head"
    static let bodySuffix = ".body"
    static let temporaryFolder = "tmp"

    /// A new entry's name: unique across processes and stores on the folder, and later names
    /// sort after earlier ones (the time in nanoseconds first), so that among entries that
    /// arrived at the same moment the one stored last is the newest.
    static func newID() -> String {
        let nanoseconds = UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000_000))
        let time = String(nanoseconds, radix: 16)
        let random = UUID().uuidString.lowercased().prefix(8)
        return String(repeating: "0", count: max(0, 16 - time.count)) + time + "-" + random
    }

    /// What reading an entry's head found.
    enum HeadRead {
        case record(DiskEntryRecord)
        /// No head file, or one that cannot be opened now (it may be gone, or the process out of
        /// file descriptors): nothing to remove.
        case missing
        /// A head that was read but does not decode: a damaged entry.
        case damaged
    }

    /// Reads and decodes an entry's head.
    func readHead(folder: URL, id: String) -> HeadRead {
        // A file handle, not `FileManager.contents(atPath:)`: that one leaks its buffer on Linux
        // for some files (LeakSanitizer finds it under the fuzz target).
        guard let handle = FileHandle(forReadingAtPath: folder.appendingPathComponent(id + Self.headSuffix).path) else { return .missing }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return .missing }
        guard var record = try? JSONDecoder().decode(DiskEntryRecord.self, from: data) else { return .damaged }
        record.entry.id = id
        return .record(record)
    }

    /// An entry's head when it can be read and decoded.
    func readRecord(folder: URL, id: String) -> DiskEntryRecord? {
        if case .record(let record) = readHead(folder: folder, id: id) { return record }
        return nil
    }

    /// The names of the entries whose heads are in a folder.
    static func headIDs(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(headSuffix) }
            .map { String($0.dropLast(headSuffix.count)) }
    }

    /// Removes what a crash may have left: temporary files, and bodies without a head, older
    /// than `age` (younger ones may be a write under way in another store).
    static func sweep(_ directory: URL, olderThan age: TimeInterval) {
        let manager = FileManager.default
        let cutoff = Date().addingTimeInterval(-age)
        func isOld(_ url: URL) -> Bool {
            ((try? manager.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date).map { $0 < cutoff } ?? false
        }
        let temporary = directory.appendingPathComponent(temporaryFolder)
        for name in (try? manager.contentsOfDirectory(atPath: temporary.path)) ?? [] where isOld(temporary.appendingPathComponent(name)) {
            try? manager.removeItem(at: temporary.appendingPathComponent(name))
        }
        for folderName in (try? manager.contentsOfDirectory(atPath: directory.path)) ?? [] where folderName != temporaryFolder {
            let folder = directory.appendingPathComponent(folderName)
            let heads = Set(headIDs(in: folder))
            for name in (try? manager.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasSuffix(bodySuffix) {
                let body = folder.appendingPathComponent(name)
                if !heads.contains(String(name.dropLast(bodySuffix.count))), isOld(body) {
                    try? manager.removeItem(at: body)
                }
            }
        }
    }

    /// Writes an entry's head atomically (a temporary file moved over the old one); returns its
    /// size, or `nil` when it could not be written.
    func writeRecord(_ record: DiskEntryRecord, folder: URL) -> Int? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(record) else { return nil }
        let temporary = directory.appendingPathComponent(Self.temporaryFolder).appendingPathComponent(Self.newID() + Self.headSuffix)
        do {
            try data.write(to: temporary)
            let head = folder.appendingPathComponent(record.entry.id + Self.headSuffix)
            // rename(2) replaces an older head in one step: a reader sees the old or the new.
            guard rename(temporary.path, head.path) == 0 else {
                try? FileManager.default.removeItem(at: temporary)
                return nil
            }
            return data.count
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            return nil
        }
    }

    /// One stored entry's files as found on disk.
    struct StoredFiles {
        let folder: URL
        let id: String
        let size: Int
        let lastUse: Date
    }

    /// Every entry in the folder, with its size and last use (its head's modification date).
    static func files(in directory: URL) -> [StoredFiles] {
        let manager = FileManager.default
        var found: [StoredFiles] = []
        for folderName in (try? manager.contentsOfDirectory(atPath: directory.path)) ?? [] where folderName != temporaryFolder {
            let folder = directory.appendingPathComponent(folderName)
            for id in headIDs(in: folder) {
                let head = folder.appendingPathComponent(id + headSuffix)
                let attributes = try? manager.attributesOfItem(atPath: head.path)
                let lastUse = attributes?[.modificationDate] as? Date ?? .distantPast
                found.append(StoredFiles(folder: folder, id: id, size: size(of: head) + size(of: folder.appendingPathComponent(id + bodySuffix)), lastUse: lastUse))
            }
        }
        return found
    }

    /// A file's size, 0 when it is missing.
    static func size(of file: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// The body in an open file when its length and checksum are the head's: read whole when
    /// short, otherwise checked in one pass and then streamed from the same open file (a stored
    /// file is never changed in place, only replaced, so what was checked is what streams).
    static func checkedBody(_ handle: FileHandle, length: Int, checksum expected: UInt64) -> ResponseBody? {
        if length <= wholeReadLimit {
            guard let data = try? handle.readToEnd() ?? Data(), data.count == length else { return nil }
            var checksum = Checksum()
            checksum.add(data)
            guard checksum.value == expected else { return nil }
            try? handle.close()
            return ResponseBody(data)
        }
        var checksum = Checksum()
        var count = 0
        while let chunk = try? handle.read(upToCount: FileChunkSource.chunkSize), !chunk.isEmpty {
            checksum.add(chunk)
            count += chunk.count
        }
        guard count == length, checksum.value == expected, (try? handle.seek(toOffset: 0)) != nil else { return nil }
        return ResponseBody(source: FileChunkSource(handle: handle))
    }
}

// MARK: - DiskEntryRecord

/// An entry's head file: the entry and its body's checksum, as JSON.
struct DiskEntryRecord: Codable {
    var entry: CacheEntry
    let checksum: UInt64

    private enum CodingKeys: String, CodingKey {
        case version, key, status, headers, vary, requestTime, responseTime, bodyLength, checksum
    }

    init(entry: CacheEntry, checksum: UInt64) {
        self.entry = entry
        self.checksum = checksum
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard try container.decode(Int.self, forKey: .version) == 1 else {
            throw DecodingError.dataCorruptedError(forKey: .version, in: container, debugDescription: "unknown version")
        }
        var headers = HTTPHeaders()
        for pair in try container.decode([[String]].self, forKey: .headers) {
            guard pair.count == 2 else {
                throw DecodingError.dataCorruptedError(forKey: .headers, in: container, debugDescription: "a field is not a name and a value")
            }
            headers.append(name: pair[0], value: pair[1])
        }
        let length = try container.decode(Int.self, forKey: .bodyLength)
        guard length >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: .bodyLength, in: container, debugDescription: "a negative length")
        }
        entry = CacheEntry(
            key: try container.decode(String.self, forKey: .key),
            statusCode: try container.decode(Int.self, forKey: .status),
            headers: headers,
            varyValues: try container.decode([String: String?].self, forKey: .vary),
            requestTime: Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .requestTime)),
            responseTime: Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .responseTime)),
            bodyLength: length
        )
        checksum = try container.decode(UInt64.self, forKey: .checksum)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(1, forKey: .version)
        try container.encode(entry.key, forKey: .key)
        try container.encode(entry.statusCode, forKey: .status)
        try container.encode(entry.headers.map { [$0.name, $0.value] }, forKey: .headers)
        try container.encode(entry.varyValues, forKey: .vary)
        try container.encode(entry.requestTime.timeIntervalSince1970, forKey: .requestTime)
        try container.encode(entry.responseTime.timeIntervalSince1970, forKey: .responseTime)
        try container.encode(entry.bodyLength, forKey: .bodyLength)
        try container.encode(checksum, forKey: .checksum)
    }
}

// MARK: - Checksum

/// FNV-1a, 64 bits: finds a damaged or truncated body (not an attack; the folder is the
/// application's own).
struct Checksum {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ data: Data) {
        var hash = value
        data.withUnsafeBytes { bytes in
            for byte in bytes {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
        }
        value = hash
    }
}

// MARK: - DiskEntryWriter

/// Streams a body into a temporary file, with its checksum; gives up past `limit` bytes.
///
/// Invariant: the sink (the file, its checksum and count) is lent to the one ``write(_:)``
/// under way, whose I/O runs unlocked; once committed or aborted it is closed.
final class DiskEntryWriter: CacheEntryWriter {
    private struct Sink {
        let handle: FileHandle
        var checksum = Checksum()
        var count = 0
    }

    private let storage: DiskCacheStorage
    private let entry: CacheEntry
    private let temporary: URL
    private let limit: Int
    private let sink: Guarded<Lending<Sink>>

    init(storage: DiskCacheStorage, entry: CacheEntry, temporary: URL, handle: FileHandle, limit: Int) {
        self.storage = storage
        self.entry = entry
        self.temporary = temporary
        self.limit = limit
        self.sink = Guarded(Lending(Sink(handle: handle)))
    }

    func write(_ chunk: Data) async -> Bool {
        guard case .lent(var lent) = sink.withLock({ $0.borrow() }) else { return false }
        // The disk is written with the lock released.
        let ok = lent.count + chunk.count <= limit && (try? lent.handle.write(contentsOf: chunk)) != nil
        if ok {
            lent.checksum.add(chunk)
            lent.count += chunk.count
        }
        let closing = sink.withLock { $0.giveBack(lent) }
        if let closing { try? closing.handle.close() }
        if !ok || closing != nil {
            await abort()
            return false
        }
        return true
    }

    func commit() async -> Bool {
        guard let finished = sink.withLock({ $0.close() }), (try? finished.handle.close()) != nil else {
            try? FileManager.default.removeItem(at: temporary)
            return false
        }
        var entry = entry
        entry.bodyLength = finished.count
        return storage.commit(entry, checksum: finished.checksum.value, temporary: temporary)
    }

    func abort() async {
        let closing = sink.withLock { $0.close() }
        try? closing?.handle.close()
        try? FileManager.default.removeItem(at: temporary)
    }

    deinit {
        if let closing = sink.withLock({ $0.close() }) {
            try? closing.handle.close()
            try? FileManager.default.removeItem(at: temporary)
        }
    }
}

// MARK: - FileChunkSource

/// A stored body read from its open file in chunks.
///
/// Invariant: the file is lent to the one ``next()`` reading it (its read runs unlocked), and
/// closed once the body ended, failed or was cancelled.
final class FileChunkSource: ResponseBodySource {
    static let chunkSize = 64 << 10
    private let file: Guarded<Lending<FileHandle>>

    init(handle: FileHandle) {
        self.file = Guarded(Lending(handle))
    }

    func next() async throws -> Data? {
        let handle: FileHandle
        switch file.withLock({ $0.borrow() }) {
        case .lent(let lent): handle = lent
        case .busy: throw RequestError(.streamFailed, detail: "the body is already being read by another loop; a body is read once")
        case .closed: throw CancellationError()
        }
        let chunk: Data
        do {
            chunk = try handle.read(upToCount: Self.chunkSize) ?? Data()
        } catch {
            releaseUnlocked(file.withLock { $0.close() })
            try? handle.close()
            throw error
        }
        if chunk.isEmpty {
            releaseUnlocked(file.withLock { $0.close() })
            try? handle.close()
            return nil
        }
        if let closing = file.withLock({ $0.giveBack(handle) }) {
            // Cancelled while it read.
            try? closing.close()
            throw CancellationError()
        }
        return chunk
    }

    func cancel() {
        let closing = file.withLock { $0.close() }
        try? closing?.close()
    }
}
