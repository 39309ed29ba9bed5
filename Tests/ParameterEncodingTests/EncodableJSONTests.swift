import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
@testable import ParameterEncoding

/// Which `JSONEncoder`s the fast `Encodable` writer serves, and what it writes for them.
@Suite(.backgroundPriority) struct EncodableJSONTests {
    struct Login: Encodable, Sendable {
        var userName = "arthur/dent"
        var signedUpAt = Date(timeIntervalSince1970: 0)
        var scores: [Double] = [1, 0.5]
        var nickname: String?
    }

    @Test func presetsAreServedByTheFastWriter() {
        #expect(JSONTreeOptions(JSONParameterEncoder.default.encoder) != nil)
        #expect(JSONTreeOptions(JSONParameterEncoder.prettyPrinted.encoder) != nil)
        #expect(JSONTreeOptions(JSONBody.defaultEncoder) != nil)
    }

    @Test func anEncoderWithoutSortedKeysIsUsedAsItIs() throws {
        let encoder = JSONEncoder()
        #expect(JSONTreeOptions(encoder) == nil)
        let data = try EncodableJSON.data(["only": 1], encoder: encoder)
        #expect(String(decoding: data, as: UTF8.self) == #"{"only":1}"#)
    }

    @Test func jsonParameterEncoderWritesJSONEncodersBytes() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        let request = try JSONParameterEncoder(encoder: encoder).encode(Login(), into: URLRequest(url: URL(fileURLWithPath: "/")))
        #expect(request.httpBody == (try encoder.encode(Login())))
        #expect(request.httpBody.map { String(decoding: $0, as: UTF8.self) }?.contains(#""user_name" : "arthur\/dent""#) == true)
    }

    @Test func jsonBodyWritesJSONEncodersBytes() throws {
        #expect(try JSONBody(Login()).encode() == (try JSONBody.defaultEncoder.encode(Login())))
    }

    @Test func nanWithoutAStrategyThrowsJSONEncodersErrorWithThePath() throws {
        var login = Login()
        login.scores = [1, .nan]
        #expect {
            try JSONBody(login).encode()
        } throws: { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["scores", "Index 1"]
        }
    }

    @Test func aCustomStrategysErrorReachesTheCallerUnchanged() throws {
        struct Refused: Error {}
        let encoder = JSONBody.defaultEncoder
        encoder.dateEncodingStrategy = .custom { _, _ in throw Refused() }
        #expect(throws: Refused.self) { try JSONBody(Login(), encoder: encoder).encode() }
    }
}
