import Foundation

// MARK: - SilenceExceeded

/// A streamed body sent nothing, while its reader waited, for longer than `limit`.
struct SilenceExceeded: Error {
    let limit: Duration
}

// MARK: - SilenceTimer

/// Fails a body that sends nothing for `limit` while its reader waits: one timer task per reader,
/// asleep until the wait under way could have lasted `limit`, which cancels the source then.
///
/// Invariant, under the lock: `task` runs only while the reader has not finished, and `fired` is
/// set once, before the source is cancelled.
final class SilenceTimer: Sendable {
    let limit: Duration
    private let source: any ResponseBodySource
    private let state = Guarded<(since: ContinuousClock.Instant?, fired: Bool, task: Task<Void, Never>?, stopped: Bool)>((nil, false, nil, false))

    init(limit: Duration, source: any ResponseBodySource) {
        self.limit = limit
        self.source = source
    }

    var fired: Bool { state.withLock { $0.fired } }

    /// The reader starts (`true`) or stops (`false`) waiting for a chunk.
    func waiting(_ isWaiting: Bool) {
        let start = state.withLock { state -> Bool in
            state.since = isWaiting ? .now : nil
            guard isWaiting, state.task == nil, !state.stopped else { return false }
            return true
        }
        guard start else { return }
        let task = Task { [weak self] in
            guard let self else { return }
            await self.watch()
        }
        let stopped = state.withLock { state -> Bool in
            if state.stopped || state.task != nil { return true }
            state.task = task
            return false
        }
        if stopped { task.cancel() }
    }

    private func watch() async {
        while !Task.isCancelled {
            let since = state.withLock { $0.since }
            let end = (since ?? .now) + limit
            guard (try? await Task.sleep(until: end, clock: .continuous)) != nil else { return }
            let fire = state.withLock { state -> Bool in
                guard !state.stopped, let since = state.since, ContinuousClock.now - since >= limit else { return false }
                state.fired = true
                return true
            }
            if fire {
                source.cancel()
                return
            }
        }
    }

    /// The reader finished: the timer ends.
    func stop() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }
}
