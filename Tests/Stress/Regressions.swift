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
    /// does (`queue.sync`). The transfer carries no hook to order events, so the race is run
    /// many times, the chunk's delivery and the cancel started together at staggered moments:
    /// each time, cancelling must return and the reader must finish.
    @Sendable static func cancellationHandlerDoesNotBlock() -> String? {
        let workQueue = DispatchQueue(label: "engine work queue")
        let url = URL(string: "http://127.0.0.1/") ?? URL(fileURLWithPath: "/")
        var random = SystemRandomNumberGenerator()
        for round in 0..<300 {
            let stream = TransferStream(method: .get, url: url, buffering: TransferBuffering(bytes: 1 << 20, enginePauses: false))
            stream.attach(QueueEngine(queue: workQueue))
            stream.receive(head: ResponseHead(statusCode: 200, url: url))
            let finished = DispatchSemaphore(value: 0)
            let reader = Task {
                _ = try? await stream.next()
                finished.signal()
            }
            usleep(UInt32.random(in: 0...300, using: &random))
            workQueue.async { stream.receive(Data([1, 2, 3])) }
            let cancelled = DispatchSemaphore(value: 0)
            Thread {
                reader.cancel()
                cancelled.signal()
            }.start()
            guard cancelled.wait(timeout: .now() + bound) == .success else {
                return "round \(round): cancelling the reader's task did not return: its cancellation handler waited for the engine's queue"
            }
            guard finished.wait(timeout: .now() + bound) == .success else {
                return "round \(round): the cancelled reader never finished"
            }
        }
        return nil
    }

    /// An engine whose stop waits for its work queue, as `URLSessionTask.cancel()` does on Linux.
    private struct QueueEngine: TransferEngine {
        let queue: DispatchQueue
        func stop() { queue.sync {} }
    }
}
