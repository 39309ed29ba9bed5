import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// `Response`: text decoding, headers, validation and decoding, without a network.
@Suite struct ResponseTests {
    @Test func textUsesUTF8WithoutACharset() throws {
        let response = try makeResponse(headers: ["Content-Type": "text/plain"], body: "grüße 🌍")
        #expect(response.text == "grüße 🌍")
        #expect(response.mimeType == "text/plain")
    }

    @Test func textUsesTheCharsetFromContentType() throws {
        let latin1 = Data([0x67, 0x72, 0xFC, 0xDF, 0x65])  // "grüße" in ISO-8859-1
        let url = try #require(URL(string: "http://127.0.0.1/x"))
        let http = try #require(HTTPURLResponse(
            url: url, statusCode: 200, httpVersion: nil,
            headerFields: ["Content-Type": "text/plain; Charset=\"ISO-8859-1\""]
        ))
        let response = Response(request: OutgoingRequest(url: url), httpResponse: http, data: latin1)
        #expect(response.text == "grüße")
    }

    @Test func invalidUTF8BecomesReplacementCharactersInTextButNotInData() throws {
        let url = try #require(URL(string: "http://127.0.0.1/x"))
        let http = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: [:]))
        let response = Response(request: OutgoingRequest(url: url), httpResponse: http, data: Data([0x61, 0xFF, 0x62]))
        #expect(response.text == "a\u{FFFD}b")
        #expect(response.data == Data([0x61, 0xFF, 0x62]))
    }

    @Test func headersAreCaseInsensitive() throws {
        let response = try makeResponse(headers: ["X-Request-Id": "42", "Content-Type": "application/json"])
        #expect(response.headers["x-request-id"] == "42")
        #expect(response.headers.value(for: "CONTENT-TYPE") == "application/json")
    }

    @Test(arguments: [200, 201, 204, 299])
    func successStatusesPassValidation(status: Int) throws {
        #expect(try makeResponse(status: status).validate().statusCode == status)
    }

    @Test(arguments: [199, 300, 304, 401, 503])
    func otherStatusesFailValidation(status: Int) throws {
        let error = try #require(throws: RequestError.self) { try makeResponse(status: status).validate() }
        #expect(error.code == .unacceptableStatusCode)
        #expect(error.statusCode == status)
        #expect(error.detail == "expected 200..<300")
    }

    @Test func customStatusCodesAreHonoured() throws {
        #expect(throws: Never.self) { try makeResponse(status: 304).validate(statusCodes: [200, 304]) }
        #expect(throws: RequestError.self) { try makeResponse(status: 200).validate(statusCodes: 201...201) }
    }

    @Test(arguments: [
        ("application/json; charset=utf-8", ["application/json"], true),
        ("Application/JSON", ["application/json"], true),
        ("text/html", ["text/*"], true),
        ("text/html", ["*/*"], true),
        ("text/html", ["application/json", "text/plain"], false),
        ("textual/html", ["text/*"], false),
    ])
    func contentTypesAreMatchedByMediaType(contentType: String, acceptable: [String], passes: Bool) throws {
        let response = try makeResponse(headers: ["Content-Type": contentType], body: "x")
        if passes {
            #expect(throws: Never.self) { try response.validate(contentTypes: acceptable) }
        } else {
            let error = try #require(throws: RequestError.self) { try response.validate(contentTypes: acceptable) }
            #expect(error.code == .unacceptableContentType)
            #expect(error.detail.contains("got \(contentType.lowercased())"))
        }
    }

    @Test func aMissingContentTypeFailsOnlyWithABody() throws {
        #expect(throws: Never.self) { try makeResponse(status: 204).validate(contentTypes: ["application/json"]) }
        let error = try #require(throws: RequestError.self) {
            try makeResponse(body: "{}").validate(contentTypes: ["application/json"])
        }
        #expect(error.detail.hasPrefix("the response has no Content-Type"))
    }

    @Test func decodeUsesJSONByDefaultAndAcceptsOtherDecoders() throws {
        struct Item: Codable, Equatable { let id: Int; let name: String }
        #expect(try makeResponse(body: #"{"id":1,"name":"a"}"#).decode(Item.self) == Item(id: 1, name: "a"))
        let plist = try PropertyListEncoder().encode(Item(id: 2, name: "b"))
        let url = try #require(URL(string: "http://127.0.0.1/x"))
        let http = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: [:]))
        let response = Response(request: OutgoingRequest(url: url), httpResponse: http, data: plist)
        #expect(try response.decode(Item.self, decoder: PropertyListDecoder()) == Item(id: 2, name: "b"))
    }

    @Test func decodingFailuresNameTypeAndCodingPath() throws {
        struct Item: Decodable { let tags: [Int] }
        let response = try makeResponse(body: #"{"tags":[1,"two"]}"#)
        let error = try #require(throws: RequestError.self) { try response.decode(Item.self) }
        #expect(error.code == .decodingFailed)
        #expect(error.detail.hasPrefix("could not decode Item at tags[1]: "))
        #expect(error.response?.text == #"{"tags":[1,"two"]}"#)
    }
}
