import Foundation

// MARK: - TransferOutcome

/// What a waiter of a ``TransferCore`` is resumed with.
enum TransferOutcome {
    case head(any TransferHead)
    case chunk(Data)
    /// Chunks taken at once, joined by the owner outside the lock.
    case chunks([Data])
    /// The end of the body.
    case end
    case failure(any Error)
}

// MARK: - TransferAction

/// One thing a transition of a ``TransferCore`` decided, for its owner to do once unlocked.
enum TransferAction<Waiter> {
    /// Let a paused engine go on.
    case resumeEngine(@Sendable () -> Void)
    /// Resume a waiter.
    case resume(Waiter, TransferOutcome)
    /// Stop the engine: the transfer was cancelled or failed while it ran.
    case stop(any TransferEngine)
    /// Ask the engine to stop reading, then report it with ``TransferCore/paused(resumingWith:)``.
    case pause
    /// Write chunks to the spill file, one after the other from an offset, then report them
    /// with ``TransferCore/spillWritten(_:error:)``.
    case spill(SpillFile, [Data], at: Int)
    /// Read `count` spilled bytes at an offset, then report them with ``TransferCore/spillRead(_:)``.
    case readSpill(SpillFile, count: Int, at: Int)
    /// Close the spill file.
    case closeSpill(SpillFile)
    /// The disk is far behind the network: the engine's thread waits on the semaphore (after
    /// the lock) until the file has written half of it.
    case waitForDisk(DispatchSemaphore)
    /// The disk caught up (or the transfer is over): let the engine's thread go on.
    case diskCaughtUp(DispatchSemaphore)
    /// Let go of an engine, or of what a cancelled transfer had buffered, outside the lock.
    case release(any Sendable)
}

// MARK: - TransferActions

/// The actions of one transition, in the order to perform them: kept inline for the common
/// transitions (one or two actions), so that a chunk's transition allocates nothing.
struct TransferActions<Waiter>: Sequence {
    typealias Action = TransferAction<Waiter>

    private var first: Action?
    private var second: Action?
    private var third: Action?
    private var more: [Action] = []

    init() {}

    /// Whether there is nothing to do.
    var isEmpty: Bool { first == nil }

    /// Whether the engine is asked to pause.
    var pause: Bool {
        contains { if case .pause = $0 { true } else { false } }
    }

    mutating func append(_ action: Action) {
        if first == nil {
            first = action
        } else if second == nil {
            second = action
        } else if third == nil {
            third = action
        } else {
            more.append(action)
        }
    }

    func makeIterator() -> Iterator {
        Iterator(actions: self)
    }

    struct Iterator: IteratorProtocol {
        fileprivate let actions: TransferActions
        fileprivate var index = 0

        mutating func next() -> Action? {
            defer { index += 1 }
            switch index {
            case 0: return actions.first
            case 1: return actions.second
            case 2: return actions.third
            default: return index - 3 < actions.more.count ? actions.more[index - 3] : nil
            }
        }
    }
}
