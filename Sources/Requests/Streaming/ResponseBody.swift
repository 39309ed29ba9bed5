import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - ChunkSource

/// Where a streamed body's chunks come from: the transport's buffer, or a body already in memory.
///
/// One reader at a time calls ``next()``; ``cancel()`` may come from any thread, at any time, and
/// more than once.
protocol ChunkSource: AnyObject, Sendable {
    /// The next chunk, or `nil` at the end of the body.
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

    var source: any ChunkSource { owner.source }

    init(source: any ChunkSource) {
        self.owner = Owner(source: source)
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
        Iterator(reader: Reader(owner: owner))
    }

    /// Holds the source for the body's copies and iterators; when the last of them goes, a
    /// transfer nobody finished reading is cancelled (a finished one ignores the cancel).
    final class Owner: Sendable {
        let source: any ChunkSource

        init(source: any ChunkSource) {
            self.source = source
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
                throw RequestError(.bodyTooLarge, detail: "the body is longer than \(limit) bytes")
            }
            data.append(chunk)
        }
        return data
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
        ///   failed mid-body, or `CancellationError` when the reading task or the body was cancelled.
        public mutating func next() async throws -> Data? {
            try await reader.next()
        }
    }

    /// Cancels the transfer when the iterator goes away before the body ended, e.g. on `break`.
    final class Reader {
        private let owner: Owner
        private var done = false
        private var source: any ChunkSource { owner.source }

        init(owner: Owner) {
            self.owner = owner
        }

        func next() async throws -> Data? {
            guard !done else { return nil }
            do {
                guard let chunk = try await source.next() else {
                    done = true
                    return nil
                }
                return chunk
            } catch {
                done = true
                source.cancel()
                throw error
            }
        }

        /// Ends reading early and cancels the transfer.
        func cancelTransfer() {
            done = true
            source.cancel()
        }

        deinit {
            if !done {
                source.cancel()
            }
        }
    }
}

// MARK: - Sources in memory

/// A body already in memory.
final class DataSource: ChunkSource {
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
}

/// A body whose chunks come from an `AsyncThrowingStream`.
///
/// Its iterator is used by one reader at a time, as ``ChunkSource`` promises, so it sits outside
/// the lock; the lock guards only the cancellation flag.
final class StreamSource: ChunkSource, @unchecked Sendable {
    private var iterator: AsyncThrowingStream<Data, any Error>.Iterator
    private let cancelled = Guarded(false)

    init(_ stream: AsyncThrowingStream<Data, any Error>) {
        iterator = stream.makeAsyncIterator()
    }

    func next() async throws -> Data? {
        if cancelled.withLock({ $0 }) { throw CancellationError() }
        return try await iterator.next()
    }

    func cancel() {
        cancelled.withLock { $0 = true }
    }
}
