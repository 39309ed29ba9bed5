import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Requests

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - OutgoingRequest

extension TransportRequest {
    /// The request as AsyncHTTPClient takes it, with a new body each call (a retry sends the body
    /// again from its start).
    ///
    /// - Parameters:
    ///   - acceptEncoding: The `Accept-Encoding` to add when the request names none.
    ///   - sent: Counts the bytes handed to the connection and reports progress.
    /// - Returns: The request.
    /// - Throws: ``TransportError`` of kind ``TransportError/Kind/other`` for a request the engine
    ///   cannot send.
    func engineRequest(acceptEncoding: String?, sent: UploadProgress) throws -> HTTPClientRequest {
        guard let url else {
            throw TransportError(.other, detail: "the request has no URL")
        }
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = NIOHTTP1.HTTPMethod(rawValue: method.rawValue)
        var declaredLength: Int64?
        let fields = urlRequest.allHTTPHeaderFields ?? [:]
        outgoing.headers.reserveCapacity(fields.count + 1)
        for (name, value) in fields {
            if Self.namesMatch(name, "Content-Length") {
                // The engine writes the framing from the body; a declared length stands for a
                // stream of unknown length.
                declaredLength = Int64(value)
            } else if !Self.namesMatch(name, "Transfer-Encoding") {
                outgoing.headers.add(name: name, value: value)
            }
        }
        if let acceptEncoding, !outgoing.headers.contains(name: "Accept-Encoding") {
            outgoing.headers.add(name: "Accept-Encoding", value: acceptEncoding)
        }
        switch body.storage {
        case .empty:
            outgoing.body = nil
        case .data(let data):
            outgoing.body = .bytes(ByteBuffer(bytes: data))
        case .file, .stream:
            let length = body.length ?? declaredLength
            let chunks = UploadChunks(stream: body.chunks(), progress: sent, total: length)
            outgoing.body = .stream(chunks, length: length.map { .known($0) } ?? .unknown)
        }
        return outgoing
    }

    /// ASCII case-insensitive equality, without the lowercased copy per header: bytes equal, or
    /// the same letter in another case.
    static func namesMatch(_ name: String, _ known: StaticString) -> Bool {
        guard name.utf8.count == known.utf8CodeUnitCount else { return false }
        return known.withUTF8Buffer { known in
            var index = 0
            for byte in name.utf8 {
                let other = known[index]
                index += 1
                guard byte == other || (byte | 0x20 == other | 0x20 && (other | 0x20) >= UInt8(ascii: "a") && (other | 0x20) <= UInt8(ascii: "z")) else {
                    return false
                }
            }
            return true
        }
    }
}

// MARK: - UploadProgress

/// Counts what a request body has handed to the connection and reports it to the request's
/// progress closure (the session counts it as a sign of life).
final class UploadProgress: @unchecked Sendable {
    private let lock = NSLock()
    private var sent: Int64 = 0
    private var reportedEnd = false
    private let total: Int64?
    private let report: (@Sendable (Int64, Int64?) -> Void)?

    init(total: Int64?, report: (@Sendable (Int64, Int64?) -> Void)?) {
        self.total = total
        self.report = report
    }

    /// A chunk went out.
    func add(_ count: Int) {
        guard let report else { return }
        let now = locked { sent += Int64(count); return sent }
        report(now, total)
    }

    /// The body was sent whole, or the response began (a body in memory has been written by then,
    /// or is no longer wanted); reported once.
    func finish() {
        guard let report else { return }
        let now: Int64? = locked {
            if reportedEnd { return nil }
            reportedEnd = true
            return max(sent, total ?? sent)
        }
        if let now { report(now, total) }
    }

    /// Starts the count again, for a request sent once more.
    func restart() {
        locked { sent = 0 }
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}

// MARK: - UploadChunks

/// A request body's chunks as the engine pulls them, counted as they go.
struct UploadChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let stream: ChunkStream
    let progress: UploadProgress
    let total: Int64?

    func makeAsyncIterator() -> Iterator {
        Iterator(stream: stream, progress: progress)
    }

    struct Iterator: AsyncIteratorProtocol {
        let stream: ChunkStream
        let progress: UploadProgress

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await stream.next() else {
                progress.finish()
                return nil
            }
            progress.add(chunk.count)
            return ByteBuffer(bytes: chunk)
        }
    }
}
