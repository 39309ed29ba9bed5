import Foundation

// MARK: - ChunkQueue

/// The chunks of a body in memory that the reader has not taken yet, in order.
///
/// A value that ``TransferCore`` keeps under its owner's lock; it touches no file (what waits on
/// disk is the core's ``SpillFile``, written and read on the file's own queue). Invariant:
/// `buffered` is the byte count of the chunks in `chunks[first...]`.
struct ChunkQueue {
    /// What ``take(batchBytes:)`` found.
    enum Taken {
        /// One chunk (the common case: nothing is joined, no array is made).
        case chunk(Data)
        /// Chunks taken at once, to be joined outside the lock.
        case chunks([Data])
        case empty
    }

    private var chunks: [Data] = []
    private var first = 0
    private(set) var buffered = 0

    init() {}

    /// How many chunks wait.
    var count: Int { chunks.count - first }

    /// Whether nothing waits.
    var isEmpty: Bool { first == chunks.count }

    /// Keeps a chunk.
    mutating func append(_ chunk: Data) {
        chunks.append(chunk)
        buffered += chunk.count
    }

    /// Takes the oldest chunk and those after it while they fit in `batchBytes` together.
    mutating func take(batchBytes: Int) -> Taken {
        guard first < chunks.count else { return .empty }
        let next = first + 1
        if next == chunks.count || chunks[first].count + chunks[next].count > batchBytes {
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
        } while first < chunks.count && total + chunks[first].count <= batchBytes
        buffered -= total
        compact()
        return .chunks(taken)
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
    mutating func removeAll() -> [Data] {
        defer {
            chunks = []
            first = 0
            buffered = 0
        }
        return first == 0 ? chunks : Array(chunks[first...])
    }
}
