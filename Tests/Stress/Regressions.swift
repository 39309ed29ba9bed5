import Foundation
import Requests

// MARK: - Regressions

/// Deterministic reproductions of hangs that were found, each returning `nil` when the hang is
/// gone and a sentence when it is back. Each runs its events on threads of its own and waits for
/// them with a bound, so that a hang is reported, not suffered (the hung thread is left behind).
///
/// They are meant for release builds, where lifetimes end at a value's last use: `Stress
/// regressions` runs them there, and `RequestsTests` runs them in the debug suite too.
package enum Regressions {
    /// Every reproduction, by name.
    package static let all: [(name: String, run: @Sendable () -> String?)] = [
        ("finish releases after unlocking", finishReleasesAfterUnlocking),
        ("cancellation handler does not block", cancellationHandlerDoesNotBlock),
    ]

    /// How long a reproduction waits for what must happen at once before it calls it a hang.
    static let bound: DispatchTimeInterval = .seconds(20)

    /// `TransferHandle.finish()` released the actions it took inside its lock when its result was
    /// discarded (an optimised build frees at the last use). An action held a body whose owner
    /// cancels its source on deinit, and a recording source asks the same handle, from there,
    /// whether it was cancelled: the non-recursive lock waited on itself.
    @Sendable static func finishReleasesAfterUnlocking() -> String? {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let handle = TransferHandle()
            do {
                // The only reference to the body is inside the action.
                let body = ResponseBody(source: AskingSource(handle: handle))
                handle.onCancel { body.cancel() }
            }
            handle.finish()
            done.signal()
        }
        thread.start()
        guard done.wait(timeout: .now() + bound) == .success else {
            return "TransferHandle.finish() did not return: a body released under its lock called back into it"
        }
        return nil
    }

    /// A body source that, like `RecordingTransport`'s, asks the trip's handle on cancel.
    private final class AskingSource: ResponseBodySource {
        let handle: TransferHandle
        init(handle: TransferHandle) { self.handle = handle }
        func next() async throws -> Data? { nil }
        func cancel() { _ = handle.isCancelled }
    }

    /// The runtime holds a task's status lock while its cancellation handlers run. A handler that
    /// stopped the engine on its own thread waited there for FoundationNetworking's work queue,
    /// while that queue, delivering a chunk, waited for the same status lock to resume the
    /// cancelled reader. The engine here is a serial queue that stops as `URLSessionTask.cancel()`
    /// does (`queue.sync`); a hook orders the events: the chunk has taken the reader's waiter, the
    /// reader is cancelled, its handler stops the engine, and only then is the waiter resumed.
    @Sendable static func cancellationHandlerDoesNotBlock() -> String? {
        let workQueue = DispatchQueue(label: "engine work queue")
        let tookWaiter = DispatchSemaphore(value: 0)
        let stopping = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let url = URL(string: "http://127.0.0.1/") ?? URL(fileURLWithPath: "/")
        let stream = TransferStream(
            request: (.get, url), buffering: ChunkQueue.Limits(bytes: 1 << 20, enginePauses: false),
            stop: { _ in
                stopping.signal()
                workQueue.sync {}
            },
            beforeResuming: {
                tookWaiter.signal()
                release.wait()
            }
        )
        stream.receive(head: ResponseHead(statusCode: 200, url: url))
        stream.attach(1)
        let finished = DispatchSemaphore(value: 0)
        let reader = Task {
            _ = try? await stream.next()
            finished.signal()
        }
        // The reader waits for a chunk once the stream holds its waiter.
        let start = DispatchTime.now()
        while !stream.hasReader {
            guard DispatchTime.now() < start + bound else { return "the reader never started waiting" }
            usleep(1000)
        }
        workQueue.async { stream.receive(Data([1, 2, 3])) }
        guard tookWaiter.wait(timeout: .now() + bound) == .success else { return "the chunk never reached the reader's waiter" }
        // Once the engine is being stopped (inside the handler, before the fix), the chunk's
        // delivery goes on and resumes the reader.
        Thread {
            _ = stopping.wait(timeout: .now() + bound)
            release.signal()
        }.start()
        let cancelled = DispatchSemaphore(value: 0)
        Thread {
            reader.cancel()
            cancelled.signal()
        }.start()
        guard cancelled.wait(timeout: .now() + bound) == .success else {
            return "cancelling the reader's task did not return: its cancellation handler waited for the engine's queue"
        }
        guard finished.wait(timeout: .now() + bound) == .success else {
            return "the cancelled reader never finished"
        }
        return nil
    }
}
