import Foundation

// MARK: - SpillFile

/// A first-in, first-out byte queue in an unlinked temporary file: where a stream keeps what its
/// reader has not taken yet once the memory buffer is full and the engine cannot pause (Linux).
///
/// Every operation runs in order on a serial queue of the file's own, never on the caller's
/// thread: the transfer's lock decides what to write and read, and the disk is touched after it,
/// so that a slow disk holds up neither the engine's thread (FoundationNetworking's one work
/// queue, shared by every transfer of the process) nor any other transfer. The file is created on
/// the first write and removed from its folder as soon as it is open, so it disappears with its
/// handle whatever happens to the process.
///
/// Invariant: every stored `var` is read and written on `queue` only. A read asks for bytes the
/// transfer has counted as written or about to be, so it waits (in `pendingRead`) at most until
/// the writes already decided reach the queue.
final class SpillFile: @unchecked Sendable {
    typealias Completion = @Sendable (Result<Data, any Error>) -> Void

    private let queue: DispatchQueue
    private let directory: URL
    private var handle: FileHandle?
    private var readOffset: UInt64 = 0
    private var writeOffset: UInt64 = 0
    private var failure: (any Error)?
    private var closed = false
    private var pendingRead: (count: Int, completion: Completion)?

    /// A spill file in `directory`, its I/O on `queue` (a serial queue of its own by default).
    init(directory: URL?, queue: DispatchQueue? = nil) {
        self.directory = directory ?? FileManager.default.temporaryDirectory
        self.queue = queue ?? DispatchQueue(label: "swift-requests.spill")
    }

    /// Appends `data`, then reports its size and the disk's error, if any (nothing once closed).
    func write(_ data: Data, then written: @escaping @Sendable (_ count: Int, _ error: (any Error)?) -> Void) {
        queue.async { [self] in
            guard !closed else { return }
            var error: (any Error)? = failure
            if error == nil {
                do {
                    try append(data)
                } catch let failed {
                    failure = failed
                    error = failed
                }
            }
            servePendingRead()
            written(data.count, error)
        }
    }

    /// Reads exactly `count` of the oldest bytes, once they are written, then hands them over.
    func read(_ count: Int, then completion: @escaping Completion) {
        queue.async { [self] in
            guard pendingRead == nil else {
                completion(.failure(TransportError(.other, detail: "the spilled body is already being read")))
                return
            }
            pendingRead = (count, completion)
            servePendingRead()
        }
    }

    /// Closes and forgets the file; a read still waiting fails with `CancellationError`.
    func close() {
        queue.async { [self] in
            closed = true
            try? handle?.close()
            handle = nil
            if let (_, completion) = pendingRead.take() { completion(.failure(CancellationError())) }
        }
    }

    // MARK: On the queue

    private func append(_ data: Data) throws {
        let handle = try self.handle ?? open()
        self.handle = handle
        try handle.seek(toOffset: writeOffset)
        try handle.write(contentsOf: data)
        writeOffset += UInt64(data.count)
    }

    private func open() throws -> FileHandle {
        let path = directory.appendingPathComponent("swift-requests-stream-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        unlink(path)
        return handle
    }

    private func servePendingRead() {
        guard let (count, completion) = pendingRead else { return }
        if closed {
            pendingRead = nil
            completion(.failure(CancellationError()))
        } else if let failure {
            pendingRead = nil
            completion(.failure(failure))
        } else if writeOffset - readOffset >= UInt64(count) {
            pendingRead = nil
            completion(Result { try take(count) })
        }
    }

    private func take(_ count: Int) throws -> Data {
        guard let handle, count > 0 else { return Data() }
        try handle.seek(toOffset: readOffset)
        let data = try handle.read(upToCount: count) ?? Data()
        guard data.count == count else {
            throw TransportError(.other, detail: "the spill file gave back \(data.count) of \(count) bytes")
        }
        readOffset += UInt64(count)
        if readOffset == writeOffset {
            // Drained: start the file over, so that it never grows beyond the reader's lag.
            try handle.truncate(atOffset: 0)
            readOffset = 0
            writeOffset = 0
        }
        return data
    }
}
