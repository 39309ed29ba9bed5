import Foundation
import TestScheduling
import Testing
import ParameterEncoding

@Suite(.backgroundPriority) struct ParameterEncodingErrorTests {
    @Test func codesHaveNames() {
        let codes: [ParameterEncodingError.Code] = [.missingURL, .invalidURL, .invalidJSONValue, .invalidJSONText, .invalidPropertyListValue,
                                                    .nestingTooDeep, .serializationFailed, .invalidHeader, .invalidMethod]
        #expect(codes.map(\.description) == ["missingURL", "invalidURL", "invalidJSONValue", "invalidJSONText", "invalidPropertyListValue",
                                             "nestingTooDeep", "serializationFailed", "invalidHeader", "invalidMethod"])
        #expect(Set(codes).count == codes.count)
    }

    @Test func descriptionsIncludeTheUnderlyingError() {
        struct Cause: Error, CustomStringConvertible { var description: String { "disk full" } }
        let error = ParameterEncodingError(.serializationFailed, detail: "could not write", underlyingError: Cause())
        #expect(error.description == "Serialization failed: could not write (disk full)")
        #expect(error.keyPath == nil)
    }

    @Test func keyPathsQuoteKeysThatLookLikePunctuation() throws {
        let parameters: Parameters = ["a b": ["c.d": [["e": ["x[y]": Double.nan]] as Parameters]] as Parameters]
        let error = try #require(throws: ParameterEncodingError.self) { try JSONEncoding.default.data(for: parameters) }
        #expect(error.keyPath == #"["a b"]["c.d"][0].e["x[y]"]"#)
    }

    @Test func veryLongKeyPathsAreShortenedInTheDescriptionOnly() throws {
        var parameters: Parameters = ["leaf": 1]
        for _ in 0..<600 { parameters = ["key": parameters] }
        let error = try #require(throws: ParameterEncodingError.self) { try URLEncoding.default.query(parameters) }
        #expect(error.keyPath?.count == 512 * 4 - 1)
        #expect(error.description.count < 300)
        #expect(error.description.contains(" … "))
    }
}
