import Foundation

// MARK: - ChunkQueue

/// The chunks of a body that arrived and that the reader has not taken yet, in order: in memory
/// up to a limit, and beyond it, for an engine that cannot be paused, in a ``SpillFile``.
///
/// A value that ``TransferCore`` keeps under its owner's lock. Invariants: `buffered` is the byte
/// count of the chunks in memory; spilled bytes are newer than every chunk in memory.
package struct ChunkQueue {
    /// How much may wait for the reader, and what happens beyond it.
    package struct Limits: Sendable {
        /// How many bytes may wait in memory before the engine is asked to pause (or, when it
        /// cannot be, before chunks go to disk).
        var bytes: Int
        /// How many chunks may wait in memory before the engine is asked to pause.
        var chunks: Int = .max
        /// Whether the engine can be paused; when not, chunks beyond the limits spill to disk.
        var enginePauses: Bool
        /// How far behind a reader may fall (memory and disk) before the transfer fails.
        var spillLimit: Int = 4 << 30
        /// The most bytes a reader that fell behind takes at once, joined into one piece; `0`
        /// hands chunks over one at a time, as they came.
        var batchBytes: Int = 256 << 10

        /// Describes the buffering of a transfer.
        ///
        /// - Parameters:
        ///   - bytes: Bytes kept in memory before the engine pauses or chunks spill to disk.
        ///   - chunks: Chunks kept in memory before the engine pauses.
        ///   - enginePauses: Whether the engine can be paused.
        ///   - spillLimit: How far behind a reader may fall before the transfer fails.
        ///   - batchBytes: The most bytes handed to a reader at once; `0` for one chunk at a time.
        package init(bytes: Int, chunks: Int = .max, enginePauses: Bool, spillLimit: Int = 4 << 30, batchBytes: Int = 256 << 10) {
            self.bytes = bytes
            self.chunks = chunks
            self.enginePauses = enginePauses
            self.spillLimit = spillLimit
            self.batchBytes = batchBytes
        }
    }

    /// What ``append(_:request:)`` did with a chunk.
    enum Appended {
        case kept
        /// Kept, and the limit is reached: the engine (one that can pause) should pause.
        case full
        /// The chunk could not be kept: the transfer fails with this error.
        case failed(any Error)
    }

    /// What ``take(request:)`` found.
    enum Taken {
        /// One chunk (the common case: nothing is joined, no array is made).
        case chunk(Data)
        /// Chunks taken at once, to be joined.
        case chunks([Data])
        case empty
        case failed(any Error)
    }

    /// What a cancelled transfer had buffered, dropped once its owner's lock is released.
    package struct Dropped {
        let chunks: [Data]
        let spill: SpillFile?
    }

    let limits: Limits
    private var chunks: [Data] = []
    private var first = 0
    private(set) var buffered = 0
    private var spill: SpillFile?

    init(limits: Limits) {
        var limits = limits
        limits.bytes = max(limits.bytes, 1)
        limits.chunks = max(limits.chunks, 1)
        self.limits = limits
    }

    /// How many chunks wait in memory.
    var count: Int { chunks.count - first }

    /// Whether the reader has taken the memory buffer down far enough to resume a paused engine:
    /// to half its byte limit, and below its chunk limit.
    var isBelowResumeMark: Bool {
        buffered <= limits.bytes / 2 && count < limits.chunks
    }

    /// Keeps a chunk.
    mutating func append(_ chunk: Data, request: (method: HTTPMethod, url: URL)) -> Appended {
        if spill == nil, limits.enginePauses || buffered + chunk.count <= limits.bytes {
            chunks.append(chunk)
            buffered += chunk.count
            return limits.enginePauses && (buffered >= limits.bytes || count >= limits.chunks) ? .full : .kept
        }
        do {
            let file = try spill ?? SpillFile()
            spill = file
            try file.append(chunk)
            guard file.count <= limits.spillLimit else {
                return .failed(RequestError(.bodyTooLarge, method: request.method, url: request.url,
                                            detail: "the reader fell more than \(limits.spillLimit) bytes behind the network"))
            }
            return .kept
        } catch {
            return .failed(RequestError(.streamFailed, method: request.method, url: request.url,
                                        detail: "could not buffer the body on disk", underlyingError: error))
        }
    }

    /// Takes the oldest chunk and those after it while they fit in a batch, or the next piece of
    /// the spill file.
    mutating func take(request: (method: HTTPMethod, url: URL)) -> Taken {
        if first < chunks.count {
            let next = first + 1
            if next == chunks.count || chunks[first].count + chunks[next].count > limits.batchBytes {
                let chunk = chunks[first]
                chunks[first] = Data()
                first = next
                buffered -= chunk.count
                compact()
                return .chunk(chunk)
            }
            var taken: [Data] = []
            var total = 0
            repeat {
                total += chunks[first].count
                taken.append(chunks[first])
                chunks[first] = Data()
                first += 1
            } while first < chunks.count && total + chunks[first].count <= limits.batchBytes
            buffered -= total
            compact()
            return .chunks(taken)
        }
        guard let file = spill else { return .empty }
        do {
            guard let data = try file.take(upTo: max(limits.batchBytes, 64 << 10)) else { return .empty }
            if file.count == 0 {
                spill = nil
                file.close()
            }
            return .chunk(data)
        } catch {
            return .failed(RequestError(.streamFailed, method: request.method, url: request.url,
                                        detail: "could not read the body back from disk", underlyingError: error))
        }
    }

    /// Drops the slots of chunks taken: all of them once drained, or in bulk now and then.
    private mutating func compact() {
        if first == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            first = 0
        } else if first >= 1024 {
            chunks.removeFirst(first)
            first = 0
        }
    }

    /// Empties the queue, handing what it held out to be dropped unlocked.
    mutating func removeAll() -> Dropped? {
        guard count > 0 || spill != nil else { return nil }
        defer {
            chunks = []
            first = 0
            buffered = 0
            spill = nil
        }
        return Dropped(chunks: Array(chunks[first...]), spill: spill)
    }
}
