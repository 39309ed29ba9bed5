import Foundation

// MARK: - SpillFile

/// A first-in, first-out byte queue in an unlinked temporary file: where a Linux stream keeps what
/// its reader has not taken yet once the memory buffer is full.
///
/// The file is removed from the directory as soon as it is open, so it disappears with its handle
/// whatever happens to the process. Not thread-safe: ``ChunkQueue`` uses it under its owner's lock.
final class SpillFile {
    private let handle: FileHandle
    private var readOffset: UInt64 = 0
    private var writeOffset: UInt64 = 0

    /// Bytes written and not read yet.
    var count: Int { Int(writeOffset - readOffset) }

    init() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("swift-requests-stream-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        unlink(path)
        self.handle = handle
    }

    func append(_ data: Data) throws {
        try handle.seek(toOffset: writeOffset)
        try handle.write(contentsOf: data)
        writeOffset += UInt64(data.count)
    }

    /// Takes up to `limit` of the oldest bytes; `nil` when none are left.
    func take(upTo limit: Int) throws -> Data? {
        guard readOffset < writeOffset else { return nil }
        try handle.seek(toOffset: readOffset)
        let data = try handle.read(upToCount: min(limit, count)) ?? Data()
        guard !data.isEmpty else { return nil }
        readOffset += UInt64(data.count)
        if readOffset == writeOffset {
            // Drained: start the file over, so that it never grows beyond the reader's lag.
            try handle.truncate(atOffset: 0)
            readOffset = 0
            writeOffset = 0
        }
        return data
    }

    func close() {
        try? handle.close()
    }
}
