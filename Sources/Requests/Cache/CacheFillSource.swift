import Foundation

// MARK: - CacheFillSource

/// Reads a response body for its caller and writes each chunk into a cache entry as it passes,
/// committing the entry only when the body ended whole: no more than a chunk is held here.
///
/// Invariant: the fill ends exactly once, when the body ended, failed or was cancelled; the
/// writer commits only on a complete body (and the length `Content-Length` promised), otherwise it
/// aborts.
final class CacheFillSource: ResponseBodySource {
    private struct State {
        /// The body's iterator, taken out under the lock by the one read under way.
        var iterator: IteratorBox<ResponseBody.Iterator>?
        var writing = true
        var count = 0
        var finished = false
    }

    private let inner: ResponseBody
    private let writer: any CacheEntryWriter
    private let expectedLength: Int?
    private let state: Guarded<State>

    /// - Parameters:
    ///   - body: The body the transport returned.
    ///   - writer: Where the chunks go.
    ///   - expectedLength: The response's `Content-Length`, when it gave one.
    init(body: ResponseBody, writer: any CacheEntryWriter, expectedLength: Int?) {
        self.inner = body
        self.writer = writer
        self.expectedLength = expectedLength
        self.state = Guarded(State(iterator: IteratorBox(body.makeAsyncIterator())))
    }

    func next() async throws -> Data? {
        guard let box = state.withLock({ state -> IteratorBox<ResponseBody.Iterator>? in
            defer { state.iterator = nil }
            return state.iterator
        }) else {
            throw CancellationError()
        }
        let chunk: Data?
        do {
            chunk = try await box.iterator.next()
        } catch {
            await end(commit: false)
            throw error
        }
        guard let chunk else {
            let (count, writing) = state.withLock { ($0.count, $0.writing) }
            await end(commit: writing && (expectedLength == nil || expectedLength == count))
            return nil
        }
        let writing = state.withLock { state -> Bool in
            if !state.finished { state.iterator = box }
            state.count += chunk.count
            return state.writing
        }
        if writing, await !writer.write(chunk) {
            state.withLock { $0.writing = false }
        }
        return chunk
    }

    func cancel() {
        inner.cancel()
        // The iterator is released after the lock: its reader cancels its source on deinit.
        let (first, iterator) = state.withLock { state -> (Bool, IteratorBox<ResponseBody.Iterator>?) in
            defer { state.finished = true }
            return (!state.finished, state.iterator.take())
        }
        releaseUnlocked(iterator)
        guard first else { return }
        let writer = writer
        Task {
            await writer.abort()
        }
    }

    /// Ends the fill once: commits or aborts.
    private func end(commit: Bool) async {
        let first = state.withLock { state -> Bool in
            defer { state.finished = true }
            return !state.finished
        }
        guard first else { return }
        if commit {
            await writer.commit()
        } else {
            await writer.abort()
        }
    }
}
