#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Requests

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - TransportRequest as the engine's request

extension TransportRequest {
    /// The request as AsyncHTTPClient's delegate API takes it, for a body that is empty or in
    /// memory.
    ///
    /// - Parameter acceptEncoding: The `Accept-Encoding` to add when the request names none.
    /// - Returns: The request.
    /// - Throws: A ``TransportError`` for a request the engine cannot send.
    func engineRequest(acceptEncoding: String?) throws -> HTTPClient.Request {
        let (headers, _) = engineHeaders(acceptEncoding: acceptEncoding)
        let outgoingBody: HTTPClient.Body?
        switch body.storage {
        case .empty:
            outgoingBody = nil
        case .data(let data):
            outgoingBody = .bytes(data)
        case .file, .stream:
            throw TransportError(.other, detail: "a streamed body goes through streamedEngineRequest")
        }
        do {
            return try HTTPClient.Request(url: url, method: NIOHTTP1.HTTPMethod(rawValue: method.rawValue), headers: headers, body: outgoingBody)
        } catch {
            // An unsupported scheme or a URL without a host, as the engine names it.
            throw AsyncHTTPClientTransport.classify(error, stopped: false)
        }
    }

    /// The request as AsyncHTTPClient's `execute` takes it, with a body streamed from a file or
    /// a sequence, new each call (a request sent again sends its body from the start).
    ///
    /// - Parameters:
    ///   - acceptEncoding: The `Accept-Encoding` to add when the request names none.
    ///   - sent: Counts the bytes handed to the connection and reports progress.
    ///   - pulls: Runs each pull of the body, so that the exchange can stop the one waiting.
    /// - Returns: The request.
    /// - Throws: ``TransportError`` of kind ``TransportError/Kind/other`` for a request without a
    ///   URL.
    func streamedEngineRequest(acceptEncoding: String?, sent: UploadReporter, pulls: UploadPulls) throws -> HTTPClientRequest {
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = NIOHTTP1.HTTPMethod(rawValue: method.rawValue)
        let (headers, declaredLength) = engineHeaders(acceptEncoding: acceptEncoding)
        outgoing.headers = headers
        let length = body.length ?? declaredLength
        let chunks = UploadChunks(stream: body.chunks(), progress: sent, pulls: pulls, handle: handle)
        outgoing.body = .stream(chunks, length: length.map { .known($0) } ?? .unknown)
        return outgoing
    }

    /// The request's header fields as the engine takes them, and a declared `Content-Length`.
    private func engineHeaders(acceptEncoding: String?) -> (NIOHTTP1.HTTPHeaders, Int64?) {
        var headers = NIOHTTP1.HTTPHeaders()
        var declaredLength: Int64?
        // In the caller's order, repeats as repeated lines, `Cookie` joined into one.
        let fields = request.headers.wireFields
        headers.reserveCapacity(fields.count + 1)
        for field in fields {
            let (name, value) = (field.name, field.value)
            if Requests.HTTPHeaders.namesMatch(name, "Content-Length") {
                // The engine writes the framing from the body; a declared length stands for a
                // stream of unknown length.
                declaredLength = Int64(value)
            } else if !Requests.HTTPHeaders.namesMatch(name, "Transfer-Encoding") {
                headers.add(name: name, value: value)
            }
        }
        if let acceptEncoding, !headers.contains(name: "Accept-Encoding") {
            headers.add(name: "Accept-Encoding", value: acceptEncoding)
        }
        return (headers, declaredLength)
    }
}
#endif
