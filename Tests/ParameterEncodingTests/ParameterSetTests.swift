import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
import ParameterEncoding

@Suite(.backgroundPriority) struct ParameterSetTests {
    let url = URL(string: "https://example.com/users?v=1#top") ?? URL(fileURLWithPath: "/")

    func text(_ data: Data?) -> String? { data.map { String(decoding: $0, as: UTF8.self) } }

    @Test func aQuerySetAndAJSONBody() throws {
        let request = try ParameterSet.encode(
            [.query(["page": 2]), .body(["name": "John"], encoding: JSONEncoding.default)],
            into: URLRequest(url: url, method: .post)
        )
        #expect(request.url?.absoluteString == "https://example.com/users?v=1&page=2#top")
        #expect(text(request.httpBody) == #"{"name":"John"}"#)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func setsWithTheSameEncodingMergeAndLaterKeysWin() throws {
        let request = try ParameterSet.encode(
            [.query(["page": 1, "size": 20]), .body(["name": "John"]), .query(["page": 3]), .body(["name": "Jane", "age": 30])],
            into: URLRequest(url: url, method: .patch)
        )
        #expect(request.url?.query == "v=1&page=3&size=20")
        #expect(text(request.httpBody) == "age=30&name=Jane")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
    }

    @Test func placementWinsOverTheMethod() throws {
        // A body set on GET is still a body; a query set on POST is still a query.
        let get = try ParameterSet.encode([.body(["a": 1], encoding: URLEncoding.default)], into: URLRequest(url: url, method: .get))
        #expect(text(get.httpBody) == "a=1")
        #expect(get.url == url)
        let post = try ParameterSet.encode([.query(["b": 2], encoding: .default)], into: URLRequest(url: url, method: .post))
        #expect(post.url?.query == "v=1&b=2")
        #expect(post.httpBody == nil)
    }

    @Test func queriesWithDifferentOptionsAreWrittenOneAfterTheOther() throws {
        let request = try ParameterSet.encode(
            [.query(["flag": true]), .query(["flag2": true], encoding: URLEncoding(boolEncoding: .literal))],
            into: URLRequest(url: url, method: .get)
        )
        #expect(request.url?.query == "v=1&flag=1&flag2=true")
    }

    @Test func aSecondBodyEncodingIsAnErrorThatSaysSo() throws {
        let error = try #require(throws: ParameterEncodingError.self) {
            try ParameterSet.encode(
                [.body(["a": 1]), .query(["p": 1]), .body(["b": 2], encoding: JSONEncoding.default)],
                into: URLRequest(url: url, method: .post)
            )
        }
        #expect(error.code == .conflictingBodies)
        #expect(error.description == "Conflicting request bodies: a request has one body, but parameter set 3 asks for JSON (JSONEncoding) after set 1 asked for a form (URLEncoding)")
    }

    @Test func identicalJSONAndPropertyListSetsMerge() throws {
        let json = try ParameterSet.encode(
            [.body(["a": 1], encoding: JSONEncoding.default), .body(["b": 2], encoding: JSONEncoding.default)],
            into: URLRequest(url: url, method: .post)
        )
        #expect(text(json.httpBody) == #"{"a":1,"b":2}"#)
        #expect(throws: ParameterEncodingError.self) {
            try ParameterSet.encode(
                [.body(["a": 1], encoding: PropertyListEncoding.xml), .body(["b": 2], encoding: PropertyListEncoding.binary)],
                into: URLRequest(url: url, method: .post)
            )
        }
    }

    @Test func noSetsLeaveTheRequestAlone() throws {
        let request = try URLRequest(url: url, method: .get)
        #expect(try ParameterSet.encode([], into: request) == request)
        #expect(try ParameterSet.encode([.query([:]), .body([:])], into: request) == request)
    }
}
