import Foundation

// MARK: - TransferCore.Buffer

extension TransferCore {
    /// What the reader has not taken: chunks in memory, then bytes on disk.
    ///
    /// Invariants: spilled bytes are newer than every chunk in memory (while `onDisk > 0`, chunks
    /// go to disk); the file holds `readOffset..<writeOffset`, written in order, its last
    /// `unwritten` bytes not reported written yet; a read asks only for reported bytes, one at a
    /// time (`reading`), for the reader kept in `diskReader`; the offsets start over at 0 when
    /// nothing is on disk or under way; `file` is kept until the transfer is over and nothing of it
    /// is outstanding, then closed.
    struct Buffer {
        var memory = ChunkQueue()
        var file: SpillFile?
        /// Where the next spilled chunk goes.
        var writeOffset = 0
        /// Where the next read starts.
        var readOffset = 0
        /// Bytes decided for the disk that the file has not reported written.
        var unwritten = 0
        /// Whether a read is under way.
        var reading = false
        /// The reader, while it waits for bytes from disk (to be written, or read back).
        var diskReader: Waiter?
        /// What the engine's thread waits on while the disk is more than the limit behind.
        var engineWait: DispatchSemaphore?
        /// Whether a write failed: what is on disk is not read any more (the transfer failed).
        var diskFailed = false
        /// Chunks decided for the disk while a write is under way, written together next, from
        /// `pendingOffset`: the file gets one write in flight at a time, of all that waits.
        var pending: [Data] = []
        var pendingOffset = 0
        /// Whether a write is under way.
        var writing = false
        /// Whether the body was read whole before its head was handed over: the reader then
        /// takes all that waits in memory at once, whatever the batch size.
        var heldWhole = false
        /// Whether the body goes to a file of the caller's (a download) as it arrives: every
        /// chunk is written, none read back; `readOffset` follows what was written.
        var sinking = false
        /// Who waits for a sunk body's last byte on disk, or its failure.
        var sinkWaiter: Waiter?

        /// Bytes on disk (or on their way) that no read has asked for yet.
        var onDisk: Int { writeOffset - readOffset }
        /// Bytes on disk, reported written, that no read has asked for yet.
        var readable: Int { writeOffset - unwritten - readOffset }
        var isEmpty: Bool { memory.isEmpty && onDisk == 0 }

        /// Starts the file over when nothing is on it or under way, so that it never grows beyond
        /// the reader's largest lag.
        mutating func rewindIfDrained() {
            if !sinking, onDisk == 0, unwritten == 0, !reading {
                writeOffset = 0
                readOffset = 0
            }
        }

        /// Hands the file what waits to be written, when no write is under way.
        mutating func writePending(_ actions: inout Actions) {
            guard let file, !writing, !pending.isEmpty, !diskFailed else { return }
            writing = true
            actions.append(.spill(file, pending, at: pendingOffset))
            pending = []
        }

        /// Asks the file for what is written, for the reader waiting on it.
        mutating func readIfWritten(limits: TransferBuffering, _ actions: inout Actions) {
            guard let file, diskReader != nil, !reading, !diskFailed, readable > 0 else { return }
            let count = min(readable, max(limits.batchBytes, 64 << 10))
            actions.append(.readSpill(file, count: count, at: readOffset))
            readOffset += count
            reading = true
        }
    }
}
