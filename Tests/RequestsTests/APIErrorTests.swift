import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Requests

/// An RFC 9457 problem document, as `/problem` sends it.
private struct Problem: Decodable, Error, Equatable {
    struct FieldError: Decodable, Equatable {
        let field: String
        let reason: String
    }

    let title: String
    let status: Int
    let detail: String
    let errors: [FieldError]
}

/// A type the problem body does not decode to.
private struct OtherError: Decodable, Error {
    let code: Int
}

/// `validate(orThrow:)` against the loopback server's `/problem`.
@Suite struct APIErrorTests {
    let session = Session()

    @Test func theErrorBodyIsDecodedAndThrownInsideRequestErrorWithTheResponse() async throws {
        let response = try await session.request(try server().url("/problem"), method: .post, parameters: ["name": ""])
        let error = try #require(throws: RequestError.self) { try response.validate(orThrow: Problem.self) }
        #expect(error.code == .unacceptableStatusCode)
        #expect(error.statusCode == 422)
        #expect(error.response?.statusCode == 422)
        let problem = try #require(error.apiError(Problem.self))
        #expect(problem == Problem(title: "Invalid parameters", status: 422, detail: "name must not be empty",
                                   errors: [.init(field: "name", reason: "empty")]))
        #expect(error.description.contains("Unacceptable status code 422 for POST"))
        #expect(error.description.contains("the server answered with a Problem"))
        #expect(error.description.contains("name must not be empty"))
    }

    @Test func aBodyThatIsNotTheAPIErrorSaysWhy() async throws {
        let response = try await session.request(try server().url("/problem/409"))
        let error = try #require(throws: RequestError.self) { try response.validate(orThrow: OtherError.self) }
        #expect(error.code == .unacceptableStatusCode)
        #expect(error.statusCode == 409)
        #expect(error.underlyingError == nil)
        #expect(error.apiError(OtherError.self) == nil)
        #expect(error.description.contains("the body is not a OtherError: "))
    }

    @Test func anAcceptableResponseIsReturnedAndItsContentTypeStillChecked() async throws {
        let response = try await session.request(try server().url("/json"))
        #expect(try response.validate(orThrow: Problem.self, contentTypes: ["application/json"]).statusCode == 200)
        let error = try #require(throws: RequestError.self) {
            try response.validate(orThrow: Problem.self, contentTypes: ["text/html"])
        }
        #expect(error.code == .unacceptableContentType)
    }

    @Test func customStatusCodesDecideWhatIsAnError() async throws {
        let response = try await session.request(try server().url("/problem"))
        #expect(try response.validate(orThrow: Problem.self, statusCodes: [200, 422]).statusCode == 422)
    }
}
