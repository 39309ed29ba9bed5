import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests
import ParameterEncoding

/// A `URLError` carrying libcurl's words, as FoundationNetworking reports them.
private func libcurl(_ text: String, code: URLError.Code = .unknown) -> URLError {
    URLError(code, userInfo: [NSLocalizedDescriptionKey: text])
}

/// An error no transport classifies.
private struct EngineHiccup: Error, CustomStringConvertible {
    var description: String { "engine hiccup" }
}

/// `TransportError`: how engine errors are classified and described.
@Suite struct TransportErrorTests {
    @Test(arguments: [
        (URLError.Code.cannotConnectToHost, TransportError.Kind.cannotConnect),
        (.notConnectedToInternet, .cannotConnect),
        (.internationalRoamingOff, .cannotConnect),
        (.callIsActive, .cannotConnect),
        (.dataNotAllowed, .cannotConnect),
        (.resourceUnavailable, .cannotConnect),
        (.networkConnectionLost, .connectionLost),
        (.cannotFindHost, .dnsFailed),
        (.dnsLookupFailed, .dnsFailed),
        (.timedOut, .timedOut),
        (.secureConnectionFailed, .tls),
        (.serverCertificateHasBadDate, .tls),
        (.serverCertificateUntrusted, .tls),
        (.serverCertificateHasUnknownRoot, .tls),
        (.serverCertificateNotYetValid, .tls),
        (.clientCertificateRejected, .tls),
        (.clientCertificateRequired, .tls),
        (.cancelled, .cancelled),
        (.badURL, .other),
        (.unsupportedURL, .other),
        (.badServerResponse, .other),
        (.zeroByteResource, .other),
        (.unknown, .other),
    ])
    func aURLErrorIsClassifiedByItsCode(code: URLError.Code, kind: TransportError.Kind) {
        #expect(TransportError.Kind(URLError(code)) == kind)
        #expect(TransportError.kind(of: URLError(code)) == kind)
    }

    @Test(arguments: [
        ("HTTP/2 stream 3 was not closed cleanly before end of the underlying stream", TransportError.Kind.connectionLost),
        ("SSL certificate problem: unable to get local issuer certificate", .tls),
        ("SSL: no alternative certificate subject name matches target host name '127.0.0.1'", .tls),
        ("SSL certificate problem: certificate has expired", .tls),
        ("Could not resolve host: nowhere.invalid", .dnsFailed),
        ("Failed to connect to 127.0.0.1 port 1: Connection refused", .cannotConnect),
        ("transfer closed with 99000 bytes remaining to read", .connectionLost),
        ("Empty reply from server", .connectionLost),
        ("Recv failure: Connection reset by peer", .connectionLost),
        ("Something nobody planned for", .other),
    ])
    func libcurlsWordsUnderUnknownAreClassified(text: String, kind: TransportError.Kind) {
        #expect(TransportError.Kind(libcurl(text)) == kind)
    }

    @Test func libcurlsWordsUnderBadServerResponseAreClassifiedToo() {
        #expect(TransportError.Kind(libcurl("Empty reply from server", code: .badServerResponse)) == .connectionLost)
    }

    @Test func aTransportErrorKeepsItsOwnKindWhateverItWraps() {
        let error = TransportError(.connectionLost, underlyingError: URLError(.timedOut))
        #expect(TransportError.kind(of: error) == .connectionLost)
    }

    @Test func kindOfClassifiesEveryErrorATransportMayThrow() {
        #expect(TransportError.kind(of: TransportError(.dnsFailed)) == .dnsFailed)
        #expect(TransportError.kind(of: URLError(.timedOut)) == .timedOut)
        #expect(TransportError.kind(of: libcurl("SSL certificate problem: certificate has expired")) == .tls)
        #expect(TransportError.kind(of: CancellationError()) == .cancelled)
        #expect(TransportError.kind(of: EngineHiccup()) == .other)
    }

    @Test(arguments: [
        (TransportError.Kind.cannotConnect, "cannotConnect"),
        (.connectionLost, "connectionLost"),
        (.dnsFailed, "dnsFailed"),
        (.timedOut, "timedOut"),
        (.tls, "tls"),
        (.cancelled, "cancelled"),
        (.other, "other"),
    ])
    func kindsAreNamed(kind: TransportError.Kind, name: String) {
        #expect(kind.description == name)
    }

    @Test func theDescriptionSaysTheKindTheDetailAndTheEngineError() {
        #expect(TransportError(.tls).description == "tls")
        #expect(TransportError(.tls, detail: "certificate has expired").description == "tls: certificate has expired")
        let wrapped = TransportError(.connectionLost, detail: "reset by peer", underlyingError: EngineHiccup())
        #expect(wrapped.description == "connectionLost: reset by peer (engine hiccup)")
        let overURLError = TransportError(.tls, underlyingError: libcurl("SSL certificate problem: certificate has expired"))
        #expect(overURLError.description.hasPrefix("tls (URLError"))
        #expect(overURLError.description.hasSuffix(": SSL certificate problem: certificate has expired)"))
    }

    @Test(arguments: [
        (libcurl("HTTP/2 stream 3 was not closed cleanly before end of the underlying stream") as any Error, true),
        (TransportError(.connectionLost, underlyingError: libcurl("HTTP/2 stream 1 was not closed cleanly: PROTOCOL_ERROR (err 1)")), true),
        (libcurl("HTTP/2 stream 5 was refused"), true),
        (libcurl("Failed to connect to 127.0.0.1 port 1: Connection refused"), false),
        (libcurl("transfer closed with 99000 bytes remaining to read"), false),
        (URLError(.networkConnectionLost), false),
        (TransportError(.connectionLost), false),
        (CancellationError(), false),
    ])
    func aStaleConnectionIsLibcurlsUncleanHTTP2Stream(error: any Error, stale: Bool) {
        #expect((URLSessionTransport.staleConnectionFailure(error) != nil) == stale)
    }
}

// MARK: - TransportErrorReportingTests

/// How a transport's classified failure reaches the caller of a ``Session``: as a ``RequestError``
/// with the kind and the engine's error, the same words for every engine.
@Suite struct TransportErrorReportingTests {
    @Test func aTLSFailureIsTransportFailedWithItsKindAndTheEngineError() async throws {
        let engine = libcurl("SSL certificate problem: unable to get local issuer certificate", code: .serverCertificateUntrusted)
        let transport = ClosureTransport { _, _ in
            throw TransportError(.tls, detail: "untrusted certificate", underlyingError: engine)
        }
        let session = Session(transport: transport)
        let error = await #expect(throws: RequestError.self) { try await session.request("https://example.com/a") }
        #expect(error?.code == .transportFailed)
        #expect(error?.transportErrorKind == .tls)
        #expect((error?.underlyingError as? URLError)?.code == .serverCertificateUntrusted)
        #expect(error?.description.hasPrefix("Transport failed for GET https://example.com/a: untrusted certificate (URLError") == true)
        #expect(error?.description.contains("unable to get local issuer certificate") == true)
    }

    @Test(arguments: [
        (TransportError.Kind.cannotConnect, RequestError.Code.transportFailed),
        (.connectionLost, .transportFailed),
        (.dnsFailed, .transportFailed),
        (.tls, .transportFailed),
        (.other, .transportFailed),
        (.timedOut, .timedOut),
        (.cancelled, .cancelled),
    ])
    func eachKindBecomesItsCodeAndIsKept(kind: TransportError.Kind, code: RequestError.Code) async throws {
        let transport = ClosureTransport { _, _ in throw TransportError(kind, underlyingError: EngineHiccup()) }
        let session = Session(transport: transport)
        let error = await #expect(throws: RequestError.self) { try await session.request("https://example.com/a") }
        #expect(error?.code == code)
        #expect(error?.transportErrorKind == kind)
        #expect(error?.underlyingError is EngineHiccup)
    }

    @Test func aBareURLErrorIsClassifiedForTheTransport() async throws {
        let transport = ClosureTransport { _, _ in throw libcurl("Could not resolve host: nowhere.invalid") }
        let session = Session(transport: transport)
        let error = await #expect(throws: RequestError.self) { try await session.request("https://nowhere.invalid/") }
        #expect(error?.code == .transportFailed)
        #expect(error?.transportErrorKind == .dnsFailed)
        #expect((error?.underlyingError as? URLError)?.code == .unknown)
    }

    @Test func errorsThatAreNotTheTransportsHaveNoKind() async throws {
        let session = Session(transport: ClosureTransport())
        let error = await #expect(throws: RequestError.self) { try await session.request("http://[::1") }
        #expect(error?.code == .invalidURL)
        #expect(error?.transportErrorKind == nil)
    }

    @Test func localizedDescriptionIsTheDescription() async throws {
        let transport = ClosureTransport { _, _ in throw TransportError(.tls, detail: "certificate has expired") }
        let session = Session(transport: transport)
        let error = try #require(await #expect(throws: RequestError.self) { try await session.request("https://example.com/a") })
        #expect((error as any Error).localizedDescription == error.description)
        #expect(error.localizedDescription.contains("certificate has expired"))
    }

    @Test func aParameterEncodingErrorsLocalizedDescriptionIsItsDescription() {
        let error = ParameterEncodingError(.invalidJSONValue, detail: "cart[items][3] is not finite")
        #expect((error as any Error).localizedDescription == error.description)
        #expect(error.localizedDescription.contains("cart[items][3]"))
    }
}
