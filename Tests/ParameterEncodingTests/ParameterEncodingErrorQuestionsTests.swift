import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
import ParameterEncoding

@Suite(.backgroundPriority) struct ParameterEncodingErrorQuestionsTests {
    typealias Code = ParameterEncodingError.Code

    /// Every code and the one question (or, for JSON, the questions) that answer yes to it.
    static var answers: [(Code, KeyPath<ParameterEncodingError, Bool>)] { [
        (.invalidJSONValue, \.isJSONEncodingFailed),
        (.invalidJSONText, \.isJSONEncodingFailed),
        (.invalidPropertyListValue, \.isPropertyListEncodingFailed),
        (.missingURL, \.isMissingURLFailed),
        (.invalidURL, \.isInvalidURLError),
        (.invalidMultipart, \.isMultipartEncodingError),
    ] }

    @Test func eachQuestionIsTrueForItsCodesOnly() {
        let questions = Set(Self.answers.map(\.1))
        for (code, yes) in Self.answers {
            let error = ParameterEncodingError(code, detail: "")
            #expect(error[keyPath: yes], "\(code)")
            for question in questions where question != yes {
                #expect(!error[keyPath: question], "\(code) answers yes to another question")
            }
        }
    }

    @Test func aJSONFailurePortsAsAlamofiresTestReadsIt() throws {
        struct Value: Sendable {}
        let request = URLRequest(url: URL(string: "https://example.com/") ?? URL(fileURLWithPath: "/"))
        let result = Result { try JSONEncoding.default.encode(request, with: ["key": Value()]) }
        #expect(result.failure?.asParameterEncodingError?.isJSONEncodingFailed == true)
        let object = Result { try JSONEncoding.default.encode(request, withJSONObject: Value()) }
        #expect(object.failure?.asParameterEncodingError?.isJSONEncodingFailed == true)
    }

    @Test func aMissingURLIsAskedForByName() throws {
        var request = URLRequest(url: URL(fileURLWithPath: "/"))
        request.url = nil
        let error = try #require(throws: ParameterEncodingError.self) {
            try URLEncoding.queryString.encode(request, with: ["a": 1])
        }
        #expect(error.isMissingURLFailed)
        #expect(!error.isJSONEncodingFailed)
    }

    @Test func otherErrorsAreNotParameterEncodingErrors() {
        struct Other: Error {}
        let error: any Error = Other()
        #expect(error.asParameterEncodingError == nil)
    }
}

extension Result {
    /// The error, for checks written as Alamofire's tests write them.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
