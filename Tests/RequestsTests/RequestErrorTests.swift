import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

@Suite struct RequestErrorTests {
    @Test func bodyPreviewIsCutAtOneKiBOnACharacterBoundary() throws {
        let body = String(repeating: "a", count: 1023) + "é" + String(repeating: "b", count: 5000)
        let error = RequestError(.unacceptableStatusCode, response: try makeResponse(status: 500, body: body))
        let preview = try #require(error.bodyPreview)
        #expect(preview == String(repeating: "a", count: 1023) + "…")
        #expect(preview.utf8.count <= RequestError.bodyPreviewLimit + "…".utf8.count)
    }

    @Test func shortBodiesArePreviewedWhole() throws {
        let error = RequestError(.unacceptableStatusCode, response: try makeResponse(status: 418, body: "teapot"))
        #expect(error.bodyPreview == "teapot")
        #expect(error.description == #"Unacceptable status code 418 for GET http://127.0.0.1/test; body: "teapot""#)
    }

    @Test func noResponseMeansNoPreview() {
        let error = RequestError(.timedOut, detail: "no complete response within 1.0 seconds")
        #expect(error.bodyPreview == nil)
        #expect(error.statusCode == nil)
        #expect(error.description == "Timed out: no complete response within 1.0 seconds")
    }

    @Test func descriptionIncludesMethodURLAndCause() throws {
        let request = try URLRequest(url: "https://example.com/a?b=1", method: .post)
        let error = RequestError(.transportFailed, request: request, underlyingError: URLError(.networkConnectionLost))
        #expect(error.description.hasPrefix("Transport failed for POST https://example.com/a?b=1 ("))
        #expect(error.method == .post)
    }

    @Test func aURLErrorIsDescribedByItsCodeNameAndMessageNotAsAnNSErrorDump() throws {
        let request = try URLRequest(url: "http://127.0.0.1/a", method: .get)
        let cause = URLError(.networkConnectionLost, userInfo: [NSLocalizedDescriptionKey: "Recv failure: Connection reset by peer"])
        let error = RequestError(.transportFailed, request: request, underlyingError: cause)
        #expect(error.description == "Transport failed for GET http://127.0.0.1/a (URLError networkConnectionLost (-1005): Recv failure: Connection reset by peer)")
        let unnamed = RequestError(.transportFailed, request: request, underlyingError: URLError(.fileDoesNotExist))
        #expect(unnamed.description.hasPrefix("Transport failed for GET http://127.0.0.1/a (URLError (-1100)"))
        #expect(!unnamed.description.contains("Domain="))
    }

    @Test func codesHaveNames() {
        let codes: [RequestError.Code] = [
            .invalidURL, .encodingFailed, .modifierFailed, .transportFailed, .unacceptableStatusCode,
            .unacceptableContentType, .decodingFailed, .timedOut, .cancelled,
        ]
        #expect(Set(codes).count == codes.count)
        #expect(codes.map(\.description) == [
            "invalidURL", "encodingFailed", "modifierFailed", "transportFailed", "unacceptableStatusCode",
            "unacceptableContentType", "decodingFailed", "timedOut", "cancelled",
        ])
    }
    /// A certificate libcurl refused (FoundationNetworking files it under `unknown`) says it is a
    /// TLS failure, what it means and what to do, before the engine's words.
    @Test func aRefusedCertificateSaysSoAndWhatToDo() {
        let engine = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "SSL certificate problem: self-signed certificate"])
        let classified = URLSessionTransport.classified(engine)
        let failure = TransportFailure.requestError(classified, method: .get, url: URL(string: "https://127.0.0.1:8443/"), phase: .trip)
        guard let error = failure as? RequestError else {
            Issue.record("not a RequestError: \(failure)")
            return
        }
        #expect(error.transportErrorKind == .tls)
        #expect(error.description.contains("the server's certificate was not accepted"), "\(error)")
        #if canImport(FoundationNetworking)
        #expect(error.description.contains("update-ca-certificates"), "\(error)")
        #endif
        #expect(error.description.contains("SSL certificate problem: self-signed certificate"), "\(error)")
    }
}
