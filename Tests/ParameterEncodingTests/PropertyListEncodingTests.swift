import Foundation
import LoopbackFixture
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
import ParameterEncoding

@Suite(.backgroundPriority) struct PropertyListEncodingTests {
    let post = (try? URLRequest(url: "https://example.com", method: .put)) ?? URLRequest(url: URL(fileURLWithPath: "/"))

    static let parameters: Parameters = [
        "name": "Zoë 日本 👨‍👩‍👧", "ascii": "plain", "age": 34, "negative": -70_000, "huge": Int64.max,
        "unsigned": UInt64.max, "score": 9.5, "admin": true, "off": false, "flag": NSNumber(value: true),
        "date": Date(timeIntervalSinceReferenceDate: 123_456), "blob": Data([0, 1, 2, 255]),
        "list": (0..<20).map { "item \($0)" }, "nested": ["x": [1, 2, ["deep": "yes"]] as [any Sendable]] as Parameters,
        "empty": [String: Int](), "nothing": [Int](), "float": Float(0.25), "decimal": Decimal(string: "0.5")!,
    ]

    static var expected: NSDictionary { [
        "name": "Zoë 日本 👨‍👩‍👧", "ascii": "plain", "age": 34, "negative": -70_000, "huge": Int64.max,
        "unsigned": UInt64.max, "score": 9.5, "admin": true, "off": false, "flag": true,
        "date": Date(timeIntervalSinceReferenceDate: 123_456), "blob": Data([0, 1, 2, 255]),
        "list": (0..<20).map { "item \($0)" }, "nested": ["x": [1, 2, ["deep": "yes"]]],
        "empty": NSDictionary(), "nothing": NSArray(), "float": 0.25, "decimal": 0.5,
    ] }

    @Test(arguments: [PropertyListEncoding.xml, .binary])
    func bodiesReadBackEqual(encoding: PropertyListEncoding) throws {
        let encoded = try encoding.encode(post, with: Self.parameters)
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == "application/x-plist")
        let body = try #require(encoded.httpBody)
        var format = PropertyListSerialization.PropertyListFormat.openStep
        let decoded = try PropertyListSerialization.propertyList(from: body, options: [], format: &format) as? NSDictionary
        #expect(format == encoding.format)
        #expect(decoded == Self.expected)
    }

    @Test(arguments: [PropertyListEncoding.xml, .binary])
    func insertionOrderDoesNotChangeTheBytes(encoding: PropertyListEncoding) throws {
        var outputs = Set<Data>()
        var generator = SplitMix64(seed: 11)
        for _ in 0..<20 {
            var parameters: Parameters = [:]
            for index in (0..<60).shuffled(using: &generator) {
                parameters["key\(index)"] = ["v": index, "w": "é\(index)"] as Parameters
            }
            outputs.insert(try encoding.data(for: parameters))
        }
        #expect(outputs.count == 1)
    }

    @Test func binaryHandlesManyObjectsAndLongContainers() throws {
        // More than 255 objects needs two-byte object references; more than 65,535 bytes needs wider offsets.
        let parameters: Parameters = ["items": (0..<3_000).map { ["id": $0, "name": "name \($0) ✓"] as Parameters }]
        let data = try PropertyListEncoding.binary.data(for: parameters)
        #expect(data.count > 65_536)
        let decoded = try PropertyListSerialization.propertyList(from: data, format: nil) as? NSDictionary
        #expect((decoded?["items"] as? NSArray)?.count == 3_000)
        #expect(((decoded?["items"] as? NSArray)?[2_999] as? NSDictionary) == ["id": 2_999, "name": "name 2999 ✓"])
    }

    @Test func binaryKeepsFractionalSecondsAndXMLRefusesToDropThem() throws {
        let date = Date(timeIntervalSinceReferenceDate: 123_456.25)
        let binary = try PropertyListEncoding.binary.data(for: ["when": date] as Parameters)
        let decoded = try PropertyListSerialization.propertyList(from: binary, format: nil) as? NSDictionary
        #expect(decoded?["when"] as? Date == date)
        let error = try #require(throws: ParameterEncodingError.self) { try PropertyListEncoding.xml.data(for: ["a": ["when": date]] as Parameters) }
        #expect(error.keyPath == "a.when")
        #expect(error.detail.contains("store dates to the second"))
    }

    @Test func nilParametersLeaveTheRequestUntouched() throws {
        #expect(try PropertyListEncoding.xml.encode(post, with: nil) == post)
    }

    @Test(arguments: [
        (["a": ["b": NSNull()]] as Parameters, "a.b", "nil has no property-list form"),
        (["a": [Optional<Int>.none] as [Int?]] as Parameters, "a[0]", "nil has no property-list form"),
        (["a": [1: 2]] as Parameters, "a", "dictionary keys must be strings, found key 1 of type Int"),
        (["u": URL(fileURLWithPath: "/")] as Parameters, "u", "values of type URL are not supported"),
        (["d": Decimal(string: "0.1")! + Decimal(string: "1e-30")!] as Parameters, "d",
         "the Decimal 0.100000000000000000000000000001 cannot be written exactly as a property-list real"),
    ])
    func invalidValuesNameTheirKeyPath(parameters: Parameters, keyPath: String, detail: String) throws {
        for encoding in [PropertyListEncoding.xml, .binary] {
            let error = try #require(throws: ParameterEncodingError.self) { try encoding.encode(post, with: parameters) }
            #expect(error.code == .invalidPropertyListValue)
            #expect(error.keyPath == keyPath)
            #expect(error.detail == detail)
        }
    }

    @Test func deepNestingThrowsInsteadOfCrashing() throws {
        var parameters: Parameters = ["leaf": 1]
        for _ in 0..<1_000 { parameters = ["a": [parameters]] }
        let error = try #require(throws: ParameterEncodingError.self) { try PropertyListEncoding.binary.encode(post, with: parameters) }
        #expect(error.code == .nestingTooDeep)
    }

    @Test func openStepCannotBeWrittenAndSaysSo() throws {
        let error = try #require(throws: ParameterEncodingError.self) {
            try PropertyListEncoding(format: .openStep).encode(post, with: ["a": 1])
        }
        #expect(error.code == .serializationFailed)
        #expect(error.detail.contains("XML or binary"))
    }
}

extension PropertyListEncodingTests {
    @Test(arguments: [PropertyListEncoding.xml, .binary])
    func nestingAtTheLimitEncodes(encoding: PropertyListEncoding) throws {
        var parameters: Parameters = ["leaf": 1]
        for _ in 0..<(ParameterEncodingError.maximumDepth / 2 - 1) { parameters = ["a": [parameters]] }
        let data = try encoding.data(for: parameters)
        #expect(try PropertyListSerialization.propertyList(from: data, format: nil) is NSDictionary)
    }

    @Test(arguments: [PropertyListEncoding.xml, .binary])
    func nestingAtTheLimitEncodesOnASmallStack(encoding: PropertyListEncoding) async throws {
        var nested: Parameters = ["leaf": 1]
        for _ in 0..<(ParameterEncodingError.maximumDepth / 2 - 1) { nested = ["a": [nested]] }
        let parameters = nested
        // 512 KiB is the stack of a secondary thread on Apple platforms. Both the validation and
        // the writers are iterative; reading the result back (Foundation) is done outside.
        let data = try await onThread(stackSize: 512 * 1024) { try encoding.data(for: parameters) }
        #expect(try PropertyListSerialization.propertyList(from: data, format: nil) is NSDictionary)
    }
}
