import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
import ParameterEncoding

@Suite(.backgroundPriority) struct ParameterEncoderTests {
    struct Login: Encodable {
        let user: String
        let password: String
        let remember: Bool
        let scopes: [String]
    }

    let login = Login(user: "arthur", password: "4 2&", remember: true, scopes: ["read", "write"])
    let url = URL(string: "https://example.com/login?x=1") ?? URL(fileURLWithPath: "/")

    func request(_ method: HTTPMethod) throws -> URLRequest {
        try URLRequest(url: url, method: method)
    }

    @Test func jsonEncoderWritesSortedJSONWithItsContentType() throws {
        let request = try JSONParameterEncoder.default.encode(login, into: request(.post))
        #expect(request.httpBody.map { String(decoding: $0, as: UTF8.self) }
            == #"{"password":"4 2&","remember":true,"scopes":["read","write"],"user":"arthur"}"#)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(try JSONParameterEncoder.sortedKeys.encode(login, into: self.request(.post)).httpBody == request.httpBody)
    }

    @Test func jsonEncoderPrettyPrintsAndTakesACustomEncoder() throws {
        let pretty = try JSONParameterEncoder.prettyPrinted.encode(["b": 1, "a": 2], into: request(.post))
        #expect(pretty.httpBody.map { String(decoding: $0, as: UTF8.self) }?.contains("\n") == true)
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        struct Account: Encodable { let userID: Int }
        let custom = try JSONParameterEncoder(encoder: encoder).encode(Account(userID: 1), into: request(.post))
        #expect(custom.httpBody == Data(#"{"user_id":1}"#.utf8))
    }

    @Test func jsonEncoderKeepsTheRequestsContentTypeAndIgnoresNil() throws {
        var request = try request(.put)
        request.setValue("application/vnd.api+json", forHTTPHeaderField: "Content-Type")
        #expect(try JSONParameterEncoder.default.encode(login, into: request).value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
        #expect(try JSONParameterEncoder.default.encode(Login?.none, into: request) == request)
    }

    @Test func jsonEncoderErrorsNameTheCodingPath() throws {
        let error = try #require(throws: EncodingError.self) {
            try JSONParameterEncoder.default.encode(["scores": [1, Double.nan]], into: request(.post))
        }
        guard case .invalidValue(_, let context) = error else { Issue.record("\(error)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["scores", "Index 1"])
    }

    @Test func formEncoderFollowsTheMethodForItsDestination() throws {
        let get = try URLEncodedFormParameterEncoder.default.encode(login, into: request(.get))
        #expect(get.url?.absoluteString == "https://example.com/login?x=1&password=4%202%26&remember=1&scopes%5B%5D=read&scopes%5B%5D=write&user=arthur")
        #expect(get.httpBody == nil)

        let post = try URLEncodedFormParameterEncoder.default.encode(login, into: request(.post))
        #expect(post.url == url)
        #expect(post.httpBody == Data("password=4%202%26&remember=1&scopes%5B%5D=read&scopes%5B%5D=write&user=arthur".utf8))
        #expect(post.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
    }

    @Test func formEncoderDestinationsAndOptions() throws {
        let queryOnly = URLEncodedFormParameterEncoder(destination: .queryString)
        #expect(try queryOnly.encode(["a": "b"], into: request(.post)).url?.query == "x=1&a=b")
        let bodyOnly = URLEncodedFormParameterEncoder(encoder: URLEncodedFormEncoder(boolEncoding: .literal, escaping: .whatwgForm), destination: .httpBody)
        let request = try bodyOnly.encode(login, into: request(.get))
        #expect(request.httpBody == Data("password=4+2%26&remember=true&scopes%5B%5D=read&scopes%5B%5D=write&user=arthur".utf8))
    }

    @Test func formEncoderLeavesTheRequestAloneWhenThereIsNothingToWrite() throws {
        let get = try request(.get)
        #expect(try URLEncodedFormParameterEncoder.default.encode([String: [Int]](), into: get) == get)
        #expect(try URLEncodedFormParameterEncoder.default.encode(["empty": [Int]()], into: get) == get)
        #expect(try URLEncodedFormParameterEncoder.default.encode(Login?.none, into: get) == get)
    }
}

// MARK: - Presets

@Suite(.backgroundPriority) struct ParameterEncoderPresetTests {
    struct Login: Encodable { let user: String; let scopes: [String] }

    let url = URL(string: "https://example.com/login") ?? URL(fileURLWithPath: "/")

    /// How `Session.request(_:parameters:encoder:)` takes an encoder: as `any ParameterEncoder`.
    func encode(_ login: Login, method: HTTPMethod, encoder: any ParameterEncoder) throws -> URLRequest {
        try encoder.encode(login, into: URLRequest(url: url, method: method))
    }

    @Test func jsonReadsAsInAlamofireAndSortsKeys() throws {
        let login = Login(user: "arthur", scopes: ["read"])
        let request = try encode(login, method: .post, encoder: .json)
        #expect(request.httpBody == Data(#"{"scopes":["read"],"user":"arthur"}"#.utf8))
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let snake = JSONEncoder()
        snake.keyEncodingStrategy = .convertToSnakeCase
        struct Account: Encodable { let userID: Int }
        let custom = try JSONParameterEncoder.json(encoder: snake).encode(Account(userID: 1), into: URLRequest(url: url, method: .post))
        #expect(custom.httpBody == Data(#"{"user_id":1}"#.utf8))
        #expect(JSONParameterEncoder.json(encoder: snake).encoder === snake)
    }

    @Test func urlEncodedFormReadsAsInAlamofire() throws {
        let login = Login(user: "a b", scopes: ["x"])
        let query = try encode(login, method: .get, encoder: .urlEncodedForm)
        #expect(query.url?.absoluteString == "https://example.com/login?scopes%5B%5D=x&user=a%20b")
        let destination: URLEncodedFormParameterEncoder.Destination = .httpBody
        let body = try encode(login, method: .get, encoder: .urlEncodedForm(destination: destination))
        #expect(body.httpBody == Data("scopes%5B%5D=x&user=a%20b".utf8))
        let indexed = try encode(login, method: .post,
                                 encoder: .urlEncodedForm(encoder: URLEncodedFormEncoder(arrayEncoding: .indexInBrackets), destination: .queryString))
        #expect(indexed.url?.query == "scopes%5B0%5D=x&user=a%20b")
        #expect(indexed.httpBody == nil)
    }
}
