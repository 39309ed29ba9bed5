import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - SpillFile

/// An unlinked temporary file where a stream keeps what its reader has not taken yet, once the
/// memory buffer is full and the engine cannot pause (Linux): written and read at offsets the
/// transfer decided under its lock, on queues of the file's own, never on the caller's thread.
///
/// So a slow disk holds up neither the engine's thread (FoundationNetworking's one work queue,
/// shared by every transfer of the process) nor another transfer, and the reader never waits for
/// writes queued after the bytes it reads: writes run in order on one queue, reads on another,
/// and a read asks only for bytes already reported written. The file is created by the first
/// write and removed from its folder as soon as it is open, so it disappears with its descriptor
/// whatever happens to the process.
///
/// A download's file is a spill file too, one whose bytes are never read back (``init(sinkFor:queue:written:)``):
/// the transfer writes the body to it on its queue as the body arrives.
///
/// Invariants: `descriptor`, `closed` and `scratch` are set and cleared on `writes` only (the
/// first write opens the file; the close runs after every write and read queued before it, and
/// no write after it touches the disk), and `descriptor` is read on `reads` only for bytes a
/// write reported, which the transfer's lock orders after that write.
final class SpillFile: @unchecked Sendable {
    private let writes: DispatchQueue
    private let reads: DispatchQueue
    private let directory: URL
    private var descriptor: Int32 = -1
    private var failure: (any Error)?
    /// Set by the close, on `writes`: a write queued after it (decided before a cancel, queued
    /// after) is dropped, never written to a new file or to a download's file the caller moved on from.
    private var closed = false
    /// Told the size of each write, on the write queue, for a download's progress.
    private let written: (@Sendable (Int) -> Void)?
    /// Where small chunks are gathered into one write; made by the first such write, used and
    /// freed on `writes` only.
    private var scratch: UnsafeMutableRawBufferPointer?
    /// The largest write gathered from small chunks: 1 MiB.
    private static let scratchSize = 1 << 20

    /// A spill file in `directory`, written on `queue` (a serial queue of its own by default).
    init(directory: URL?, queue: DispatchQueue? = nil) {
        self.directory = directory ?? FileManager.default.temporaryDirectory
        self.writes = queue ?? DispatchQueue(label: "swift-requests.spill.writes")
        self.reads = DispatchQueue(label: "swift-requests.spill.reads")
        self.written = nil
    }

    /// A file the caller opened (a download's), written through a descriptor of the file's own
    /// (a duplicate, closed with the file), so that the caller may close its own at any time.
    ///
    /// - Parameters:
    ///   - descriptor: The caller's open descriptor; it stays the caller's.
    ///   - queue: Where the writes run; a serial queue of the file's own by default.
    ///   - written: Told the size of each write that succeeded, on the write queue.
    /// - Throws: `POSIXError` when the descriptor cannot be duplicated.
    init(sinkFor descriptor: Int32, queue: DispatchQueue? = nil, written: @escaping @Sendable (Int) -> Void) throws {
        let own = dup(descriptor)
        guard own >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EBADF) }
        self.descriptor = own
        self.directory = FileManager.default.temporaryDirectory
        self.writes = queue ?? DispatchQueue(label: "swift-requests.download.writes")
        self.reads = DispatchQueue(label: "swift-requests.download.reads")
        self.written = written
    }

    /// Writes `chunks` one after the other from `offset`, then reports their size and the disk's
    /// error, if any.
    func write(_ chunks: [Data], at offset: Int, then written: @escaping @Sendable (_ count: Int, _ error: (any Error)?) -> Void) {
        writes.async { [self] in
            var error = failure
            if closed {
                error = POSIXError(.EBADF)
            } else if error == nil {
                do {
                    try writeCoalesced(chunks, at: offset)
                } catch let failed {
                    failure = failed
                    error = failed
                }
            }
            let count = chunks.reduce(0) { $0 + $1.count }
            if error == nil { self.written?(count) }
            written(count, error)
        }
    }

    /// Reads `count` bytes at `offset`, which a write has reported, then hands them over.
    func read(_ count: Int, at offset: Int, then completion: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        reads.async { [self] in
            completion(Result { try readAll(count, at: offset) })
        }
    }

    /// Closes the file once the writes and reads queued before are done: on the write queue (the
    /// one that sets the descriptor), after the read queue has drained what was queued on it. A
    /// write queued after the close is dropped and reports an error.
    func close() {
        writes.async { [self] in closeOnQueue() }
    }

    /// Closes the file as ``close()`` does, and returns once it is closed: every write queued
    /// before has landed, and none queued after will.
    func closeAndWait() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            writes.async { [self] in
                closeOnQueue()
                done.resume()
            }
        }
    }

    /// The close, on `writes`.
    private func closeOnQueue() {
        reads.sync {}
        closed = true
        if descriptor >= 0 { _ = systemClose(descriptor) }
        descriptor = -1
        scratch?.deallocate()
        scratch = nil
    }

    /// A file never closed (its transfer was dropped) closes here: every block queued on the
    /// file held it, so none is left.
    deinit {
        if descriptor >= 0 { _ = systemClose(descriptor) }
        scratch?.deallocate()
    }

    // MARK: On the queues

    /// Writes the chunks in order from `offset`: small ones gathered in ``scratch`` first, so
    /// that the disk gets writes of up to ``scratchSize`` bytes rather than one per network read
    /// (16 KiB from libcurl), which cost a third of a download's time.
    private func writeCoalesced(_ chunks: [Data], at offset: Int) throws {
        var position = offset
        var gathered = 0
        for chunk in chunks {
            if chunk.count >= Self.scratchSize / 4 {
                try flushScratch(&gathered, endingAt: position)
                try chunk.withUnsafeBytes { try writeAll($0, at: position) }
            } else {
                if gathered + chunk.count > Self.scratchSize { try flushScratch(&gathered, endingAt: position) }
                let scratch = self.scratch ?? UnsafeMutableRawBufferPointer.allocate(byteCount: Self.scratchSize, alignment: 16)
                self.scratch = scratch
                chunk.withUnsafeBytes { bytes in
                    if let base = bytes.baseAddress, let target = scratch.baseAddress {
                        (target + gathered).copyMemory(from: base, byteCount: bytes.count)
                    }
                }
                gathered += chunk.count
            }
            position += chunk.count
        }
        try flushScratch(&gathered, endingAt: position)
    }

    /// Writes the `gathered` bytes of ``scratch``, which end at `end` in the file.
    private func flushScratch(_ gathered: inout Int, endingAt end: Int) throws {
        guard gathered > 0, let scratch else { return }
        try writeAll(UnsafeRawBufferPointer(rebasing: scratch[0..<gathered]), at: end - gathered)
        gathered = 0
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        if descriptor < 0 { descriptor = try open() }
        let fd = descriptor
        var done = 0
        while done < bytes.count, let base = bytes.baseAddress {
            let wrote = pwrite(fd, base + done, bytes.count - done, off_t(offset + done))
            if wrote < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            done += wrote
        }
    }

    private func readAll(_ count: Int, at offset: Int) throws -> Data {
        let fd = descriptor
        guard fd >= 0 else { throw TransportError(.other, detail: "the spill file is not open") }
        var data = Data(count: count)
        try data.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) in
            var done = 0
            while done < count, let base = bytes.baseAddress {
                let got = pread(fd, base + done, count - done, off_t(offset + done))
                if got < 0 {
                    if errno == EINTR { continue }
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                }
                guard got > 0 else {
                    throw TransportError(.other, detail: "the spill file gave back \(done) of \(count) bytes")
                }
                done += got
            }
        }
        return data
    }

    private func open() throws -> Int32 {
        let path = directory.appendingPathComponent("swift-requests-stream-\(UUID().uuidString)").path
        let fd = systemOpen(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [
                NSFilePathErrorKey: path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO),
            ])
        }
        unlink(path)
        return fd
    }
}

/// `open(2)`, named apart from ``SpillFile``'s own method.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}

/// `close(2)`, named apart from ``SpillFile``'s own method.
private func systemClose(_ fd: Int32) -> Int32 {
    close(fd)
}
