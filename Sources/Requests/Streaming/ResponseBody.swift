import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - ResponseBodySource

/// Where a streamed body's chunks come from: a transport's connection, or a body in memory.
///
/// A transport conforms a type of its own and returns ``ResponseBody/init(source:)``. Reading is
/// pull-based: ``next()`` is called only when the reader wants the next chunk, so an engine that
/// asks its connection for more bytes only then holds a fast server back (TCP does the rest).
/// One reader at a time calls ``next()``; ``cancel()`` may come from any thread, at any time, and
/// more than once, and must stop the transfer at once: it is called when the reader breaks out of
/// its loop, its task is cancelled, ``ResponseBody/collect(upTo:)`` overflows, a timeout passes,
/// or the last copy of the body is dropped unread.
public protocol ResponseBodySource: AnyObject, Sendable {
    /// The next chunk, or `nil` at the end of the body.
    ///
    /// - Returns: A chunk, or `nil` at the end.
    /// - Throws: The transfer's error (a ``TransportError`` or the engine's own, classified by
    ///   the reader), or `CancellationError` once cancelled.
    func next() async throws -> Data?
    /// Stops the transfer and drops what is buffered; a later ``next()`` throws `CancellationError`.
    func cancel()
}

// MARK: - ResponseBody

/// A response body that arrives in chunks, as an `AsyncSequence` of `Data`.
///
/// ```swift
/// let stream = try await session.stream("https://example.com/feed").validate()
/// for try await line in stream.body.lines {
///     print(line)
/// }
/// ```
///
/// A body is read once: it is one transfer, not a stored value. Breaking out of the loop, or
/// cancelling the task that reads, cancels the transfer at once; so does dropping the last copy
/// of a body that was not read to the end. Use ``lines``, ``events`` or ``collect(upTo:)`` for the common shapes.
public struct ResponseBody: AsyncSequence, Sendable {
    /// Each chunk as it arrived.
    public typealias Element = Data

    /// Cancels the transfer once the last copy of this body and every iterator over it are gone.
    let owner: Owner
    /// The request the body answers, for naming it in errors; the session sets it.
    var request: (method: HTTPMethod, url: URL)?
    /// The call's clock, which bounds the reader's waits (the idle limit) and the body's end (the
    /// deadline); the session sets it.
    var clock: CallClock?
    /// Set on the body the session returns only: ends the clock with the body.
    var clockHold: ClockHold?

    package var source: any ResponseBodySource { owner.source }

    /// A body whose chunks come from a transport's source.
    ///
    /// - Parameter source: The source; it is cancelled when the body is cancelled, read no
    ///   further, or dropped unread.
    public init(source: any ResponseBodySource) {
        self.owner = Owner(source: source)
    }

    /// A body whose chunks come from a source that reads another body, such as a cache's tee:
    /// the other body counts as this one's transfer (``Owner/wrapped``).
    init(source: any ResponseBodySource, wrapping inner: ResponseBody) {
        self.owner = Owner(source: source, wrapping: inner.owner)
        self.request = inner.request
        self.clock = inner.clock
    }

    /// A body that is already in memory, delivered as one chunk (none when it is empty).
    ///
    /// - Parameter data: The whole body.
    public init(_ data: Data) {
        self.init(source: DataSource(data))
    }

    /// A body whose chunks come from a stream, for transports and tests.
    ///
    /// - Parameter chunks: The chunks; an error the stream throws ends the body with that error.
    public init(_ chunks: AsyncThrowingStream<Data, any Error>) {
        self.init(source: StreamSource(chunks))
    }

    /// Starts reading the body.
    ///
    /// - Returns: The iterator; destroying it before the end cancels the transfer.
    public func makeAsyncIterator() -> Iterator {
        Iterator(reader: Reader(owner: owner, request: request, clock: clock, hold: clockHold))
    }

    /// Holds the source for the body's copies and iterators; when the last of them goes, a
    /// transfer nobody finished reading is cancelled (a finished one ignores the cancel).
    final class Owner: Sendable {
        let source: any ResponseBodySource
        /// The owner of the body this one reads, when it wraps one.
        let wrapped: Owner?

        init(source: any ResponseBodySource, wrapping wrapped: Owner? = nil) {
            self.source = source
            self.wrapped = wrapped
        }

        /// Whether `other` is this owner or one it wraps: the same transfer.
        func holds(_ other: Owner) -> Bool {
            var owner: Owner? = self
            while let current = owner {
                if current === other { return true }
                owner = current.wrapped
            }
            return false
        }

        deinit {
            source.cancel()
        }
    }

    /// Reads the whole body into memory.
    ///
    /// - Parameter limit: The most bytes to accept; 64 MiB unless given.
    /// - Returns: The body.
    /// - Throws: ``RequestError`` with code ``RequestError/Code/bodyTooLarge`` when the body is longer
    ///   than `limit` (the transfer is cancelled then), the transfer's error, or `CancellationError`.
    public func collect(upTo limit: Int = 64 << 20) async throws -> Data {
        var data = Data()
        for try await chunk in self {
            guard data.count + chunk.count <= limit else {
                source.cancel()
                throw RequestError(.bodyTooLarge, method: request?.method, url: request?.url, detail: "the body is longer than \(limit) bytes")
            }
            data.append(chunk)
        }
        return data
    }

    /// The whole body at once, when it is already in memory (``init(_:)-(Data)``, or a transfer
    /// whose engine finished with every byte in memory); `nil` for a body that streams. Reading it
    /// this way ends the body.
    func takeWhole() -> Data? {
        if let data = owner.source as? DataSource { return data.take() }
        return (owner.source as? TransferStream)?.takeWholeBody()
    }

    /// Writes the rest of the body to an open file from `offset`, when its transfer can do so
    /// itself (a built-in engine's): each chunk is written on the file's own queue as it arrives,
    /// and `written` is told each write's size there. The call's clock bounds the wait as it bounds
    /// a reader's, each write a sign of life.
    ///
    /// - Parameters:
    ///   - descriptor: The open file; it stays the caller's, and may be closed once this returns.
    ///   - offset: Where the body's first byte goes.
    ///   - written: Told the size of each write, on the file's queue.
    /// - Returns: Whether the body was written; `false` when this body must be read chunk by
    ///   chunk instead (nothing was read then).
    /// - Throws: What reading the body throws, or ``RequestError/Code/fileFailed`` when the file
    ///   could not be written.
    func write(into descriptor: Int32, at offset: Int64, written: @escaping @Sendable (Int) -> Void) async throws -> Bool {
        // The core's offsets are `Int`: where that is 32 bits, a body is written chunk by chunk.
        guard Int.bitWidth == 64, let start = Int(exactly: offset),
              let transfer = owner.source as? TransferStream,
              let file = try? SpillFile(sinkFor: descriptor, written: { [clock] count in
                  clock?.heard()
                  written(count)
              }),
              transfer.sink(into: file, at: start) else { return false }
        // The reader from here on, for the clock and the errors (and the cancel if it goes away).
        do {
            try await Reader(owner: owner, request: request, clock: clock, hold: clockHold).waitForSink(transfer)
        } catch {
            // Failed or cancelled: what was queued lands, and nothing after, before the caller
            // handles the file (removes it, or keeps it to resume).
            await file.closeAndWait()
            throw error
        }
        return true
    }

    /// Cancels the transfer; reading then throws `CancellationError`.
    public func cancel() {
        source.cancel()
    }

    /// Reads chunks one after another.
    public struct Iterator: AsyncIteratorProtocol {
        let reader: Reader

        /// The next chunk.
        ///
        /// - Returns: The chunk, or `nil` at the end of the body.
        /// - Throws: ``RequestError`` with code ``RequestError/Code/streamFailed`` when the connection
        ///   failed mid-body, ``RequestError/Code/timedOut`` when it sent nothing for the session's
        ///   idle limit or the call's timeout passed, or `CancellationError` when the reading task or the body was cancelled.
        public mutating func next() async throws -> Data? {
            try await reader.next()
        }
    }

    /// Reads the source for one iterator: bounds each wait by the call's clock, turns what the
    /// source throws into the error callers see (through ``TransportFailure``, which classifies a
    /// trip's failures too), and cancels the
    /// transfer when the iterator goes away before the body ended, e.g. on `break`.
    final class Reader {
        private let owner: Owner
        private let request: (method: HTTPMethod, url: URL)?
        private let clock: CallClock?
        private let hold: ClockHold?
        private var done = false
        private var source: any ResponseBodySource { owner.source }

        init(owner: Owner, request: (method: HTTPMethod, url: URL)?, clock: CallClock?, hold: ClockHold?) {
            self.owner = owner
            self.request = request
            self.clock = clock
            self.hold = hold
        }

        func next() async throws -> Data? {
            guard !done else { return nil }
            do {
                try clock?.waiting(for: .body, on: .body(source))
                defer { clock?.stopped() }
                guard let chunk = try await source.next() else {
                    finish()
                    return nil
                }
                return chunk
            } catch {
                finish()
                source.cancel()
                throw failure(error)
            }
        }

        /// Waits for the transfer to write the rest of the body to its file
        /// (``write(into:at:written:)``), bounded by the clock as a read is.
        func waitForSink(_ transfer: TransferStream) async throws {
            do {
                try clock?.waiting(for: .body, on: .body(transfer))
                defer { clock?.stopped() }
                try await transfer.waitForSink()
                finish()
            } catch {
                finish()
                transfer.cancel()
                throw failure(error)
            }
        }

        private func finish() {
            done = true
            hold?.clock.end()
        }

        /// Ends reading early and cancels the transfer.
        func cancelTransfer() {
            finish()
            source.cancel()
        }

        /// What the source threw, as the reader sees it (``TransportFailure``).
        private func failure(_ error: any Error) -> any Error {
            let cause: any Error = clock?.verdict ?? error
            return TransportFailure.requestError(cause, method: request?.method, url: request?.url, phase: .body)
        }

        deinit {
            if !done {
                source.cancel()
            }
        }
    }
}

// MARK: - IteratorBox

/// An iterator handed from read to read of a source: whoever takes it out under the source's
/// lock is its only user until it puts it back, which is what makes the box `Sendable`.
final class IteratorBox<Iterator>: @unchecked Sendable {
    var iterator: Iterator

    init(_ iterator: Iterator) {
        self.iterator = iterator
    }
}

// MARK: - Sources in memory

/// A body already in memory.
final class DataSource: ResponseBodySource {
    private let state: Guarded<(data: Data?, cancelled: Bool)>

    init(_ data: Data) {
        state = Guarded((data.isEmpty ? nil : data, false))
    }

    func next() async throws -> Data? {
        try state.withLock { state in
            if state.cancelled { throw CancellationError() }
            defer { state.data = nil }
            return state.data
        }
    }

    func cancel() {
        state.withLock { $0 = (nil, true) }
    }

    /// The whole body, ending it; `nil` once read or cancelled.
    func take() -> Data? {
        state.withLock { state in
            if state.cancelled { return nil }
            defer { state.data = nil; state.cancelled = true }
            return state.data ?? Data()
        }
    }
}

/// A body whose chunks come from an `AsyncThrowingStream`.
///
/// Each wait runs in a task of its own, so that ``cancel()`` from any thread ends it at once (the
/// stream's `onTermination` hears of it, so its producer can stop), and the silence limit can too.
/// The iterator is taken out under the lock while a wait runs: a second reader gets an error.
final class StreamSource: ResponseBodySource {
    private let state: Guarded<(box: IteratorBox<AsyncThrowingStream<Data, any Error>.Iterator>?, reading: Task<Data?, any Error>?, cancelled: Bool)>

    init(_ stream: AsyncThrowingStream<Data, any Error>) {
        state = Guarded((IteratorBox(stream.makeAsyncIterator()), nil, false))
    }

    func next() async throws -> Data? {
        let box = try state.withLock { state -> IteratorBox<AsyncThrowingStream<Data, any Error>.Iterator> in
            if state.cancelled { throw CancellationError() }
            guard let box = state.box else {
                throw RequestError(.streamFailed, detail: "the body is already being read by another loop; a body is read once")
            }
            state.box = nil
            return box
        }
        let reading = Task { try await box.iterator.next() }
        let cancelledFirst = state.withLock { state -> Bool in
            state.reading = reading
            return state.cancelled
        }
        if cancelledFirst { reading.cancel() }
        let outcome = await withTaskCancellationHandler {
            await reading.result
        } onCancel: {
            reading.cancel()
        }
        let cancelled = state.withLock { state -> Bool in
            state.box = box
            state.reading = nil
            return state.cancelled
        }
        if cancelled || Task.isCancelled { throw CancellationError() }
        return try outcome.get()
    }

    func cancel() {
        let reading = state.withLock { state -> Task<Data?, any Error>? in
            state.cancelled = true
            return state.reading
        }
        reading?.cancel()
    }
}
