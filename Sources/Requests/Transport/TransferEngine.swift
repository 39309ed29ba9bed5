import Foundation

// MARK: - TransferEngine

/// What a ``TransferStream`` asks of the engine that carries it: to stop.
///
/// An engine is the other end of a transfer: a `URLSessionTask`, AsyncHTTPClient's task, a
/// connection of your own. The transfer keeps it from ``TransferStream/attach(_:)`` on, and
/// stops it when the reader cancels, leaves the body, or falls too far behind, and when the
/// session cancels the trip.
///
/// ```swift
/// struct SocketEngine: TransferEngine {
///     let connection: MyConnection
///     func stop() { connection.close() }
/// }
/// ```
///
/// When the reader is behind, the transfer asks the engine to pause through the answer of
/// ``TransferStream/receive(_:)``, and the engine hands back what lets it go on with
/// ``TransferStream/paused(resumingWith:)``: the transfer calls it when the reader catches up.
public protocol TransferEngine: Sendable {
    /// Stops the transfer: closes what it holds, stops reading and sending.
    ///
    /// Called at most once, never while a lock is held, and never on the thread of a task's
    /// cancellation handler (an engine that waits for its own queue in `stop()` cannot block one).
    func stop()
}

// MARK: - TransferHead

/// A response head as an engine hands it over, made into a ``ResponseHead`` by the reader, on the
/// reader's thread, rather than on the engine's (which may be shared by every transfer).
public protocol TransferHead: Sendable {
    /// The head as the session reads it.
    ///
    /// - Returns: The status, the header fields in the order they came, the URL and the version.
    /// - Throws: ``TransportError`` when the engine's head is not an HTTP response.
    func responseHead() throws -> ResponseHead
}

extension ResponseHead: TransferHead {
    /// The head itself.
    ///
    /// - Returns: `self`.
    public func responseHead() -> ResponseHead { self }
}

// MARK: - TransferBuffering

/// How much of a body may wait for a slow reader, and what happens beyond it.
public struct TransferBuffering: Sendable {
    /// How many bytes may wait in memory before the engine is asked to pause (or, when it cannot
    /// be, before chunks go to disk).
    public var bytes: Int
    /// How many chunks may wait in memory before the engine is asked to pause.
    public var chunks: Int
    /// Whether the engine can be paused; when not, chunks beyond the limits spill to disk.
    public var enginePauses: Bool
    /// How far behind a reader may fall (memory and disk) before the transfer fails.
    public var spillLimit: Int
    /// The most bytes a reader that fell behind takes at once, joined into one piece; `0` hands
    /// chunks over one at a time, as they came.
    public var batchBytes: Int
    /// Where chunks go that wait on disk; the system's temporary folder by default.
    public var spillDirectory: URL?

    /// Describes the buffering of a transfer.
    ///
    /// - Parameters:
    ///   - bytes: Bytes kept in memory before the engine pauses or chunks spill to disk.
    ///   - chunks: Chunks kept in memory before the engine pauses; no limit by default.
    ///   - enginePauses: Whether the engine can be paused.
    ///   - spillLimit: How far behind a reader may fall before the transfer fails; 4 GiB by default.
    ///   - batchBytes: The most bytes handed to a reader at once; `0` for one chunk at a time.
    ///   - spillDirectory: Where chunks wait on disk; the temporary folder by default.
    public init(
        bytes: Int, chunks: Int = .max, enginePauses: Bool, spillLimit: Int = 4 << 30, batchBytes: Int = 256 << 10,
        spillDirectory: URL? = nil
    ) {
        self.bytes = max(bytes, 1)
        self.chunks = max(chunks, 1)
        self.enginePauses = enginePauses
        self.spillLimit = spillLimit
        self.batchBytes = batchBytes
        self.spillDirectory = spillDirectory
    }

    /// How many bytes may wait to be written to disk (the disk is slower than the network) before
    /// the engine's thread waits for the disk to write half of them, rather than hold them all in
    /// memory: 16 MiB, or sixteen memory buffers.
    var unwrittenLimit: Int { max(16 << 20, bytes.multipliedReportingOverflow(by: 16).overflow ? .max : bytes * 16) }
}

// MARK: - TransferPhase

/// Where a transfer stands.
public enum TransferPhase: Sendable, Hashable {
    /// The request is under way; no head yet.
    case awaitingHead
    /// The head arrived; the body is arriving.
    case streaming
    /// The engine finished the body; what is buffered is still to be read.
    case ended
    /// The engine failed; what is buffered is read first, then the failure.
    case failed
    /// Cancelled by the reader, the session or a timeout: nothing more is read.
    case cancelled
}
