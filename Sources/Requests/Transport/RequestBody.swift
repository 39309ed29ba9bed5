import Foundation

// MARK: - RequestBody

/// The body a transport sends: nothing, bytes in memory, a file read as it is sent, or chunks
/// from an async sequence.
///
/// ```swift
/// let body = try RequestBody.file(URL(fileURLWithPath: "/tmp/video.mov"))
/// let chunks = RequestBody.stream(lines.map { Data($0.utf8) }, length: nil)
/// ```
///
/// A transport sends it with ``chunks(size:)`` (any engine) or looks at ``storage`` to use what it
/// does best (`URLSession` uploads a file itself). A ``stream(_:length:)`` body can be sent once:
/// ``isReplayable`` is `false`, and the pipeline does not send it again on a redirect or a retry;
/// a ``stream(length:_:)`` body makes its sequence anew for every send, so it can be sent again.
public struct RequestBody: Sendable {
    /// What the body is made of.
    public enum Storage: Sendable {
        /// No body.
        case empty
        /// Bytes in memory.
        case data(Data)
        /// The content of a file, with its length when the body was made.
        case file(URL, length: Int64)
        /// Chunks from a sequence, read once; the length when the caller knows it.
        case stream(ChunkStream, length: Int64?)
    }

    /// What the body is made of. For a body made with ``stream(length:_:)``, every read gives a
    /// new reader from the start of a new sequence, so each send reads the whole body.
    public var storage: Storage {
        if let remake {
            return .stream(ChunkStream(lazy: remake), length: length)
        }
        return fixed
    }

    /// What the body is made of, but for a replayable stream.
    private let fixed: Storage
    /// Makes a new reader for every send of a replayable stream.
    private let remake: (@Sendable () -> ChunkStream)?

    private init(_ storage: Storage, remake: (@Sendable () -> ChunkStream)? = nil) {
        self.fixed = storage
        self.remake = remake
    }

    /// No body.
    public static let empty = RequestBody(.empty)

    /// A body of bytes in memory.
    ///
    /// - Parameter data: The bytes.
    /// - Returns: The body.
    public static func data(_ data: Data) -> RequestBody {
        data.isEmpty ? .empty : RequestBody(.data(data))
    }

    /// A body read from a file as it is sent, never whole into memory.
    ///
    /// - Parameter url: The file.
    /// - Returns: The body, with the file's current length.
    /// - Throws: ``RequestError`` with code ``RequestError/Code/encodingFailed`` naming the file
    ///   when it cannot be read or is not a regular file.
    public static func file(_ url: URL) throws -> RequestBody {
        do {
            let values = try url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            guard values.isRegularFile == true, let size = values.fileSize else {
                throw RequestError(.encodingFailed, detail: "the body file \(url.path) is not a regular file")
            }
            return RequestBody(.file(url, length: Int64(size)))
        } catch let error as RequestError {
            throw error
        } catch {
            throw RequestError(.encodingFailed, detail: "cannot read the body file \(url.path)", underlyingError: error)
        }
    }

    /// A body whose chunks come from an async sequence, pulled as the transport sends them.
    ///
    /// - Parameters:
    ///   - chunks: The chunks; an error the sequence throws fails the request.
    ///   - length: The total length when known (sent as `Content-Length`); `nil` sends the body
    ///     chunked over HTTP/1.1.
    /// - Returns: The body, which can be sent once.
    public static func stream<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, length: Int64?) -> RequestBody
    where Chunks.Element == Data {
        RequestBody(.stream(ChunkStream(chunks), length: length))
    }

    /// A body whose chunks come from a sequence made anew for every send, so that it can be sent
    /// again on a redirect or a retry (``isReplayable`` is `true`).
    ///
    /// ```swift
    /// let body = RequestBody.stream(length: size) { FileChunks(url) }
    /// ```
    ///
    /// - Parameters:
    ///   - length: The total length when known (sent as `Content-Length`); `nil` sends the body
    ///     chunked over HTTP/1.1. Every sequence `makeChunks` makes must give that many bytes.
    ///   - makeChunks: Makes the sequence of one send, from the start of the body; an error the
    ///     sequence throws fails that send.
    /// - Returns: The body.
    public static func stream<Chunks: AsyncSequence & Sendable>(
        length: Int64?,
        _ makeChunks: @escaping @Sendable () -> Chunks
    ) -> RequestBody where Chunks.Element == Data {
        RequestBody(.stream(ChunkStream { nil }, length: length), remake: { ChunkStream(makeChunks()) })
    }

    /// The body's length, when known in advance.
    public var length: Int64? {
        switch fixed {
        case .empty: 0
        case .data(let data): Int64(data.count)
        case .file(_, let length): length
        case .stream(_, let length): length
        }
    }

    /// Whether the body can be sent again (on a redirect or a retry): every body but a stream
    /// made with ``stream(_:length:)``.
    public var isReplayable: Bool {
        if case .stream = fixed { return remake != nil }
        return true
    }

    /// Whether the body has no bytes.
    public var isEmpty: Bool {
        if case .empty = fixed { return true }
        return false
    }

    /// The body as chunks of at most `size` bytes, for engines that pull a body piece by piece.
    ///
    /// - Parameter size: The largest chunk for a file; bytes in memory come as one chunk, a stream
    ///   as its own chunks.
    /// - Returns: A new reader over the body (for a stream, the one reader there is).
    public func chunks(size: Int = 64 << 10) -> ChunkStream {
        switch storage {
        case .empty:
            ChunkStream { nil }
        case .data(let data):
            ChunkStream(once: data)
        case .file(let url, let length):
            ChunkStream(file: url, length: length, chunkSize: max(1, size))
        case .stream(let stream, _):
            stream
        }
    }
}

// MARK: - ChunkStream

/// Chunks of a request body, pulled one at a time by the transport that sends them.
///
/// Read by one task at a time; the next chunk is asked for only when the engine can send it, so a
/// slow connection holds the producer back.
public final class ChunkStream: Sendable {
    private let pull: @Sendable () async throws -> Data?

    init(_ next: @escaping @Sendable () async throws -> Data?) {
        pull = next
    }

    convenience init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks) where Chunks.Element == Data {
        let iterator = Guarded<Chunks.AsyncIterator?>(nil)
        let sequence = chunks
        self.init {
            // One reader at a time (see the type's comment): the iterator is taken out while it runs.
            var current = iterator.withLock { $0.take() } ?? sequence.makeAsyncIterator()
            let chunk = try await current.next()
            iterator.withLock { $0 = current }
            return chunk
        }
    }

    /// A reader that makes its chunk stream at the first pull.
    convenience init(lazy make: @escaping @Sendable () -> ChunkStream) {
        let made = Guarded<ChunkStream?>(nil)
        self.init {
            // The caller's closure runs outside the lock; a stream made by a reader that lost the
            // race is dropped outside it too.
            if let current = made.withLock({ $0 }) {
                return try await current.next()
            }
            let fresh = make()
            let stream = made.withLock { current -> ChunkStream in
                if let current { return current }
                current = fresh
                return fresh
            }
            return try await stream.next()
        }
    }

    convenience init(once data: Data) {
        let remaining = Guarded<Data?>(data)
        self.init { remaining.withLock { $0.take() } }
    }

    convenience init(file url: URL, length: Int64, chunkSize: Int) {
        /// The file as one pull has it: opened on the first, read a chunk a pull, with the lock
        /// released (a pull borrows it; a body is pulled by one reader at a time).
        struct Reading {
            var handle: FileHandle?
            var sent: Int64 = 0
        }
        let reader = Guarded(Lending(Reading()))
        self.init {
            var reading: Reading
            switch reader.withLock({ $0.borrow() }) {
            case .lent(let lent): reading = lent
            case .busy: throw RequestError(.encodingFailed, detail: "the body file \(url.path) is read by two senders at once")
            case .closed: return nil
            }
            do {
                let handle = try reading.handle ?? FileHandle(forReadingFrom: url)
                reading.handle = handle
                let chunk = try handle.read(upToCount: chunkSize) ?? Data()
                reading.sent += Int64(chunk.count)
                if chunk.isEmpty || reading.sent > length {
                    releaseUnlocked(reader.withLock { $0.close() })
                    try? handle.close()
                    guard reading.sent == length else {
                        throw RequestError(.encodingFailed, detail: "the body file \(url.path) changed size while it was sent: \(length) bytes were announced, \(reading.sent) read")
                    }
                    return chunk.isEmpty ? nil : chunk
                }
                if let closing = reader.withLock({ $0.giveBack(reading) }) { try? closing.handle?.close() }
                return chunk
            } catch {
                releaseUnlocked(reader.withLock { $0.close() })
                try? reading.handle?.close()
                throw error
            }
        }
    }

    /// The next chunk, or `nil` at the end of the body.
    ///
    /// - Returns: The chunk, never empty.
    /// - Throws: The producer's error, or the error of reading a file.
    public func next() async throws -> Data? {
        while let chunk = try await pull() {
            if !chunk.isEmpty { return chunk }
        }
        return nil
    }
}
