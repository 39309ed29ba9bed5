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
    /// The request as AsyncHTTPClient takes it, with a new body each call (a request sent again
    /// sends its body again from the start).
    ///
    /// - Parameters:
    ///   - acceptEncoding: The `Accept-Encoding` to add when the request names none.
    ///   - stream: Writes a body from a file or a sequence to the connection, as the engine asks.
    /// - Returns: The request.
    /// - Throws: A ``TransportError`` for a request the engine cannot send.
    func engineRequest(
        acceptEncoding: String?,
        stream: @escaping @Sendable (HTTPClient.Body.StreamWriter) -> EventLoopFuture<Void>
    ) throws -> HTTPClient.Request {
        guard let url else {
            throw TransportError(.other, detail: "the request has no URL")
        }
        var headers = NIOHTTP1.HTTPHeaders()
        var declaredLength: Int64?
        let fields = urlRequest.allHTTPHeaderFields ?? [:]
        headers.reserveCapacity(fields.count + 1)
        for (name, value) in fields {
            if Self.namesMatch(name, "Content-Length") {
                // The engine writes the framing from the body; a declared length stands for a
                // stream of unknown length.
                declaredLength = Int64(value)
            } else if !Self.namesMatch(name, "Transfer-Encoding") {
                headers.add(name: name, value: value)
            }
        }
        if let acceptEncoding, !headers.contains(name: "Accept-Encoding") {
            headers.add(name: "Accept-Encoding", value: acceptEncoding)
        }
        let outgoingBody: HTTPClient.Body?
        switch body.storage {
        case .empty:
            outgoingBody = nil
        case .data(let data):
            outgoingBody = .bytes(data)
        case .file, .stream:
            outgoingBody = .stream(contentLength: body.length ?? declaredLength, stream)
        }
        do {
            return try HTTPClient.Request(url: url, method: NIOHTTP1.HTTPMethod(rawValue: method.rawValue), headers: headers, body: outgoingBody)
        } catch {
            // An unsupported scheme or a URL without a host, as the engine names it.
            throw AsyncHTTPClientTransport.classify(error, stopped: false)
        }
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
