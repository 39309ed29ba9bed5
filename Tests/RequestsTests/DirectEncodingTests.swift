import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParameterEncoding
@testable import Requests
import Testing

// MARK: - DirectEncodingTests

/// `Encodable` parameters and parameter sets are written straight into the request value, as
/// the built-in encodings write, with no `URLRequest` built on the way; a third-party encoder
/// still works through one.
@Suite struct DirectEncodingTests {
    struct Login: Encodable, Sendable {
        let user: String
        let tags: [String]
        let remember: Bool?
    }

    static let login = Login(user: "zoë & co", tags: ["a b", "c"], remember: true)

    /// The encodings under test, each with the request it writes into.
    static let cases: [(name: String, method: HTTPMethod, encoding: any ParameterEncoding)] = [
        ("JSONParameterEncoder", .post, EncoderEncoding(value: login, encoder: JSONParameterEncoder.default)),
        ("form encoder, query", .get, EncoderEncoding(value: login, encoder: URLEncodedFormParameterEncoder.default)),
        ("form encoder, body", .post, EncoderEncoding(value: login, encoder: URLEncodedFormParameterEncoder.default)),
        ("parameter sets", .post, SetsEncoding(sets: [
            .query(["page": 2, "q": "swift nio"]), .body(["name": "Zoë", "tags": ["x", "y"]], encoding: JSONEncoding.default),
            .query(["page": 3]),
        ])),
    ]

    @Test(arguments: 0..<cases.count)
    func writesWithoutAURLRequestAndAsTheURLRequestPathWrites(_ index: Int) throws {
        let (name, method, encoding) = Self.cases[index]
        let start = OutgoingRequest(
            url: try #require(URL(string: "https://example.com/items?existing=1")), method: method,
            headers: ["X-First": "1", "Accept": "application/json"]
        )
        var probe = ConversionProbe(start)
        try encoding.encode(nil, into: &probe)
        #expect(probe.conversions == [], "\(name)")

        // The same bytes as through a URLRequest.
        let viaURLRequest = try encoding.encode(start, with: nil)
        #expect(probe.request.url == viaURLRequest.url, "\(name)")
        #expect(probe.request.body.bytes == viaURLRequest.httpBody, "\(name)")
        #expect(probe.request.headers["Content-Type"] == viaURLRequest.value(forHTTPHeaderField: "Content-Type"), "\(name)")
        // The caller's fields first, in their order; a body's type after them.
        #expect(Array(probe.request.headers.map(\.name).prefix(2)) == ["X-First", "Accept"], "\(name)")
    }

    @Test func aThirdPartyEncoderStillWorksThroughAURLRequest() throws {
        struct Upper: ParameterEncoder {
            func encode<Parameters: Encodable>(_ parameters: Parameters?, into request: any URLRequestConvertible) throws -> URLRequest {
                var request = try request.asURLRequest()
                request.httpBody = Data("UPPER".utf8)
                return request
            }
        }
        var probe = ConversionProbe(OutgoingRequest(url: try #require(URL(string: "https://example.com/")), method: .post))
        try EncoderEncoding(value: Self.login, encoder: Upper()).encode(nil, into: &probe)
        #expect(probe.conversions == ["asURLRequest", "replace"])
        #expect(probe.request.body.bytes == Data("UPPER".utf8))
    }

    @Test func aSessionCallKeepsTheCallersOptionsAndFieldOrder() async throws {
        enum Tag: RequestOptionKey { static let defaultValue = "" }
        var sessionOptions = RequestOptions()
        sessionOptions[Tag.self] = "from the session"
        let seen = Guarded<OutgoingRequest?>(nil)
        let session = Session(
            transport: MockTransport(status: 200), headers: ["X-Session": "s"],
            interceptors: [InterceptorProbe { request, next in
                seen.withLock { $0 = request }
                return try await next(request)
            }],
            options: sessionOptions
        )
        _ = try await session.request(
            "https://example.com/login", method: .post, parameters: Self.login, encoder: JSONParameterEncoder.default,
            headers: ["X-B": "2", "X-A": "1"], timeout: .seconds(30)
        )
        let request = try #require(seen.withLock { $0 })
        #expect(request.headers.map(\.name) == ["X-Session", "X-B", "X-A", "Content-Type"])
        #expect(request.options[Tag.self] == "from the session")
        #expect(request.options.timeout == .seconds(30))
        #expect(request.body.bytes == Data(#"{"remember":true,"tags":["a b","c"],"user":"zoë & co"}"#.utf8))
    }
}

// MARK: - ConversionProbe

/// A request value that counts every conversion through `URLRequest`: a built-in encoding
/// writing into it directly makes none.
struct ConversionProbe: EncodingTarget {
    var request: OutgoingRequest
    /// A box: `asURLRequest()` is not mutating.
    private let log = Guarded<[String]>([])

    init(_ request: OutgoingRequest) {
        self.request = request
    }

    /// The conversions made, in order: `asURLRequest`, `replace`.
    var conversions: [String] { log.withLock { $0 } }

    var encodingMethod: HTTPMethod { request.encodingMethod }

    func asURLRequest() throws -> URLRequest {
        log.withLock { $0.append("asURLRequest") }
        return try request.asURLRequest()
    }

    mutating func appendPercentEncodedQuery(_ query: String) throws {
        try request.appendPercentEncodedQuery(query)
    }

    mutating func setBody(_ body: Data, defaultContentType contentType: String) {
        request.setBody(body, defaultContentType: contentType)
    }

    mutating func setBody(_ body: Data, addingMissing headers: HTTPHeaders) {
        request.setBody(body, addingMissing: headers)
    }

    mutating func replace(with urlRequest: URLRequest) throws {
        log.withLock { $0.append("replace") }
        try request.replace(with: urlRequest)
    }
}

extension RequestBody {
    /// The bytes of an in-memory body, `nil` for none or another kind.
    var bytes: Data? {
        if case .data(let data) = storage { return data }
        return nil
    }
}
