import Foundation
import Requests

// MARK: - ChunkSource

/// A streamed body from memory: chunks pulled one at a time, `interval` apart, that stops at once
/// when cancelled (also in the middle of a wait).
final class ChunkSource: ResponseBodySource {
    private struct State {
        var index = 0
        var cancelled = false
        /// Whether a reader is inside ``next()``: a second one at the same time is refused, as
        /// every body of the package refuses it, rather than given the same chunk.
        var reading = false
        var sleeper: Task<Void, any Error>?
    }

    private let chunks: [Data]
    private let interval: Duration
    private let failure: (any Error)?
    private let state = Guarded(State())

    init(_ chunks: [Data], interval: Duration, failure: (any Error)?) {
        self.chunks = chunks
        self.interval = interval
        self.failure = failure
    }

    func next() async throws -> Data? {
        let (index, waits) = try state.withLock { state -> (Int, Bool) in
            if state.cancelled { throw CancellationError() }
            if state.reading {
                throw RequestError(.streamFailed, detail: "the body is already being read by another loop; a body is read once")
            }
            state.reading = true
            return (state.index, state.index > 0 && state.index < chunks.count && interval > .zero)
        }
        if waits {
            // The wait's task starts after the lock; a cancel that came first stops it at once.
            let sleeper = Task { [interval] in try await Task.sleep(for: interval) }
            let cancelled = state.withLock { state -> Bool in
                state.sleeper = sleeper
                return state.cancelled
            }
            if cancelled { sleeper.cancel() }
            do {
                try await withTaskCancellationHandler {
                    try await sleeper.value
                } onCancel: {
                    sleeper.cancel()
                }
            } catch {
                state.withLock { $0.reading = false }
                throw error
            }
        }
        return try state.withLock { state in
            state.sleeper = nil
            state.reading = false
            if state.cancelled { throw CancellationError() }
            guard index < chunks.count else {
                if let failure { throw failure }
                return nil
            }
            state.index = index + 1
            return chunks[index]
        }
    }

    func cancel() {
        let sleeper = state.withLock { state in
            state.cancelled = true
            return state.sleeper
        }
        sleeper?.cancel()
    }
}
