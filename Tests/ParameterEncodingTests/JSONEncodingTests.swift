import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
@testable import ParameterEncoding

@Suite(.backgroundPriority) struct JSONEncodingTests {
    let post = (try? URLRequest(url: "https://example.com", method: .post)) ?? URLRequest(url: URL(fileURLWithPath: "/"))

    func decoded(_ request: URLRequest) throws -> NSObject? {
        try JSONSerialization.jsonObject(with: try #require(request.httpBody), options: [.fragmentsAllowed]) as? NSObject
    }

    @Test func writesABodyThatParsesBackToTheParameters() throws {
        let parameters: Parameters = [
            "name": "Zoë", "age": 34, "score": 9.5, "admin": false, "tags": ["a", "b"],
            "nested": ["x": [1, 2, ["deep": "yes"]] as [any Sendable]] as Parameters, "none": NSNull(),
            "small": Int8(-3), "big": UInt64.max, "float": Float(0.1), "decimal": Decimal(string: "12.50")!,
            "text": "line\nbreak \"quoted\" / slash", "char": Character("é"), "sub": "abc".dropFirst(),
        ]
        let encoded = try JSONEncoding.default.encode(post, with: parameters)
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let expected: NSDictionary = [
            "name": "Zoë", "age": 34, "score": 9.5, "admin": false, "tags": ["a", "b"],
            "nested": ["x": [1, 2, ["deep": "yes"]]], "none": NSNull(), "small": -3, "big": UInt64.max,
            "float": 0.1, "decimal": 12.5, "text": "line\nbreak \"quoted\" / slash", "char": "é", "sub": "bc",
        ]
        #expect(try decoded(encoded) == expected)
    }

    @Test func keysAreAlwaysSortedSoOutputIsDeterministic() throws {
        var forward: Parameters = [:]
        var backward: Parameters = [:]
        for index in 0..<50 { forward["k\(index)"] = index }
        for index in (0..<50).reversed() { backward["k\(index)"] = index }
        #expect(try JSONEncoding.default.data(for: forward) == JSONEncoding.sortedKeys.data(for: backward))
        #expect(String(decoding: try JSONEncoding.default.data(for: ["b": 1, "a": ["d": 1, "c": 2]] as Parameters), as: UTF8.self) == #"{"a":{"c":2,"d":1},"b":1}"#)
    }

    @Test func prettyPrintedIndents() throws {
        let text = String(decoding: try JSONEncoding.prettyPrinted.data(for: ["a": [1]]), as: UTF8.self)
        #expect(text.contains("\n"))
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
        #expect(parsed == (["a": [1]] as NSDictionary))
    }

    @Test func nilParametersLeaveTheRequestUntouchedButEmptyOnesWriteAnObject() throws {
        #expect(try JSONEncoding.default.encode(post, with: nil) == post)
        #expect(try JSONEncoding.default.encode(post, with: [:]).httpBody == Data("{}".utf8))
    }

    @Test func anExistingContentTypeIsKept() throws {
        var original = post
        original.setValue("application/vnd.api+json", forHTTPHeaderField: "Content-Type")
        #expect(try JSONEncoding.default.encode(original, with: ["a": 1]).value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
    }

    @Test func topLevelArraysAndNil() throws {
        let encoded = try JSONEncoding.default.encode(post, withJSONObject: [1, "two", ["three": 3]] as [any Sendable])
        #expect(try decoded(encoded) == ([1, "two", ["three": 3]] as NSArray))
        #expect(try JSONEncoding.default.encode(post, withJSONObject: nil) == post)
    }

    @Test func fragmentsNeedTheOption() throws {
        let error = try #require(throws: ParameterEncodingError.self) { try JSONEncoding.default.data(for: "text") }
        #expect(error.code == .invalidJSONValue)
        #expect(try JSONEncoding(options: .fragmentsAllowed).data(for: "text") == Data(#""text""#.utf8))
    }

    // MARK: Invalid values name their key path

    static let invalid: [(Parameters, String, String)] = [
        (["user": ["scores": [1.0, 2.0, Double.nan]] as Parameters], "user.scores[2]", "NaN is not a valid JSON number"),
        (["a": Double.infinity], "a", "infinity is not a valid JSON number"),
        (["a": [["b": -Double.infinity]] as [Parameters]], "a[0].b", "-infinity is not a valid JSON number"),
        (["f": Float.nan], "f", "NaN is not a valid JSON number"),
        (["n": NSNumber(value: Double.nan)], "n", "NaN is not a valid JSON number"),
        (["d": Decimal.nan], "d", "NaN is not a valid number"),
        (["m": ["k": [1: "x"]] as Parameters], "m.k", "dictionary keys must be strings, found key 1 of type Int"),
        (["when": Date(timeIntervalSince1970: 0)], "when",
         "values of type Date are not supported; JSON has no date type: pass a string (ISO 8601, as `ISO8601DateFormatter().string(from:)` writes it), "
             + "or encode an `Encodable` value with `JSONParameterEncoder` and a `dateEncodingStrategy`"),
        (["blob": Data([1, 2])], "blob",
         "values of type Data are not supported; JSON has no bytes type: pass a string (`base64EncodedString()`), "
             + "or encode an `Encodable` value with `JSONParameterEncoder` and a `dataEncodingStrategy`"),
        (["odd key.with dots": ["url": URL(fileURLWithPath: "/tmp")] as Parameters], "[\"odd key.with dots\"].url", "values of type URL are not supported"),
    ]

    @Test(arguments: invalid.indices)
    func invalidValuesNameTheirKeyPath(index: Int) throws {
        let (parameters, keyPath, detail) = Self.invalid[index]
        let error = try #require(throws: ParameterEncodingError.self) { try JSONEncoding.default.encode(post, with: parameters) }
        #expect(error.code == .invalidJSONValue)
        #expect(error.keyPath == keyPath)
        #expect(error.detail == detail)
        #expect(error.description == "Invalid JSON value at \(keyPath): \(detail)")
    }

    @Test func deepNestingThrowsInsteadOfCrashing() throws {
        var parameters: Parameters = ["leaf": 1]
        for _ in 0..<1_000 { parameters = ["a": parameters] }
        let error = try #require(throws: ParameterEncodingError.self) { try JSONEncoding.default.encode(post, with: parameters) }
        #expect(error.code == .nestingTooDeep)
        #expect(error.keyPath?.hasPrefix("a.a.a") == true)
    }
}

extension JSONEncodingTests {
    @Test func nestingAtTheLimitEncodes() throws {
        var parameters: Parameters = ["leaf": 1]
        for _ in 0..<(ParameterEncodingError.maximumDepth / 2 - 1) { parameters = ["a": [parameters]] }
        let text = String(decoding: try JSONEncoding.default.data(for: parameters), as: UTF8.self)
        #expect(text.hasSuffix(#"{"leaf":1}"# + String(repeating: "]}", count: ParameterEncodingError.maximumDepth / 2 - 1)))
    }

    /// The writer is iterative, so the deepest tree it accepts encodes on a small stack.
    @Test func nestingAtTheLimitEncodesOnASmallStack() async throws {
        var nested: Parameters = ["leaf": 1]
        for _ in 0..<(ParameterEncodingError.maximumDepth / 2 - 1) { nested = ["a": [nested]] }
        let parameters = nested
        // 512 KiB is the stack of a secondary thread on Apple platforms.
        let data = try await onThread(stackSize: 512 * 1024) { try JSONEncoding.prettyPrinted.data(for: parameters) }
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix("{\n  \"a\" : [\n    {\n      \"a\" : ["))
        #expect(text.filter { $0 == "{" }.count == ParameterEncodingError.maximumDepth / 2)
    }
}
