import Foundation
import LoopbackFixture
import TestScheduling
import Testing
import ParameterEncoding

@Suite(.backgroundPriority) struct QueryTests {
    let encoding = URLEncoding.default

    // MARK: DESIGN.md examples

    @Test func designExampleNestedGET() throws {
        let query = try encoding.query(["q": "swift nio", "tags": ["a", "b"], "page": ["size": 20]])
        #expect(query == "page%5Bsize%5D=20&q=swift%20nio&tags%5B%5D=a&tags%5B%5D=b")
    }

    @Test func designExampleMixedArray() throws {
        #expect(try encoding.query(["foo": ["a", 1, true] as [any Sendable]]) == "foo%5B%5D=a&foo%5B%5D=1&foo%5B%5D=1")
    }

    // MARK: Values

    @Test func integersOfEveryWidth() throws {
        let parameters: Parameters = [
            "a": Int8.min, "b": Int16.max, "c": Int32.min, "d": Int64.min, "e": UInt8.max,
            "f": UInt16.max, "g": UInt32.max, "h": UInt64.max, "i": UInt.max, "j": -42, "k": 0,
        ]
        #expect(try encoding.query(parameters) == "a=-128&b=32767&c=-2147483648&d=-9223372036854775808&e=255"
            + "&f=65535&g=4294967295&h=18446744073709551615&i=18446744073709551615&j=-42&k=0")
    }

    @Test func floatingPointUsesSwiftDescriptions() throws {
        let values: [(any Sendable, String)] = [
            (0.1, "0.1"), (1.0, "1.0"), (1e-05, "1e-05"), (1e16, "1e%2B16"), (-2.5, "-2.5"),
            (Float(0.1), "0.1"), (Double.nan, "nan"), (-Double.infinity, "-inf"),
            (Decimal(string: "3.14159")!, "3.14159"),
        ]
        for (value, text) in values {
            #expect(try encoding.query(["v": value]) == "v=\(text)", "\(value)")
        }
    }

    @Test func stringLikeValues() throws {
        let text = "hello world"
        #expect(try encoding.query(["s": text.dropFirst(6)]) == "s=world")
        #expect(try encoding.query(["c": Character("é")]) == "c=%C3%A9")
    }

    @Test(arguments: [(URLEncoding.BoolEncoding.numeric, "1", "0"), (.literal, "true", "false")])
    func booleans(encoding boolEncoding: URLEncoding.BoolEncoding, yes: String, no: String) throws {
        let encoding = URLEncoding(boolEncoding: boolEncoding)
        let parameters: Parameters = ["a": true, "b": false, "c": NSNumber(value: true), "d": NSNumber(value: false)]
        #expect(try encoding.query(parameters) == "a=\(yes)&b=\(no)&c=\(yes)&d=\(no)")
    }

    @Test func nsNumbersThatAreNotBooleansKeepTheirValue() throws {
        let encoding = URLEncoding(boolEncoding: .literal)
        let parameters: Parameters = ["a": NSNumber(value: 1), "b": NSNumber(value: 0), "c": NSNumber(value: 2.5), "d": NSNumber(value: Int8(1))]
        #expect(try encoding.query(parameters) == "a=1&b=0&c=2.5&d=1")
    }

    @Test func booleansDecodedByJSONSerializationStayBooleans() throws {
        let decoded = try JSONSerialization.jsonObject(with: Data(#"{"flag": true, "count": 1}"#.utf8)) as? NSDictionary
        let flag = try #require(decoded?["flag"] as? NSNumber)
        let count = try #require(decoded?["count"] as? NSNumber)
        #expect(try URLEncoding(boolEncoding: .literal).query(["flag": flag, "count": count]) == "count=1&flag=true")
    }

    @Test(arguments: [
        (URLEncoding.NilEncoding.dropKey, "b=1"),
        (.dropValue, "a=&b=1&c=&d%5B%5D=&e%5Bf%5D="),
        (.null, "a=null&b=1&c=null&d%5B%5D=null&e%5Bf%5D=null"),
    ])
    func nilValues(nilEncoding: URLEncoding.NilEncoding, expected: String) throws {
        let none: String? = nil
        let parameters: Parameters = [
            "a": none, "b": Optional(1), "c": NSNull(), "d": [none] as [String?],
            "e": ["f": Optional<Optional<Int>>.some(.none)],
        ]
        #expect(try URLEncoding(nilEncoding: nilEncoding).query(parameters) == expected)
    }

    @Test func optionalsHoldingValuesAreUnwrapped() throws {
        let parameters: Parameters = [
            "a": Optional("x"), "b": Optional(NSNumber(value: true)), "c": Optional(["k": 1]),
        ]
        #expect(try URLEncoding(boolEncoding: .literal).query(parameters) == "a=x&b=true&c%5Bk%5D=1")
    }

    @Test func otherTypesUseTheirDescription() throws {
        let url = try #require(URL(string: "https://example.com/a?b"))
        #expect(try encoding.query(["u": url]) == "u=https%3A//example.com/a?b")
    }

    @Test func emptyContainersProduceNoPairs() throws {
        #expect(try encoding.query([:]) == "")
        #expect(try encoding.query(["a": [Int](), "b": [String: Int](), "c": ["d": [String]()]]) == "")
    }

    // MARK: Keys

    @Test func keysWithReservedCharactersAndBracketsAreEscaped() throws {
        let parameters: Parameters = ["a&b=c": "1", "x[y]": ["z": "2"], "sp ace": "3", "ключ": "4", "": "5"]
        #expect(try encoding.query(parameters)
            == "=5&a%26b%3Dc=1&sp%20ace=3&x%5By%5D%5Bz%5D=2&%D0%BA%D0%BB%D1%8E%D1%87=4")
    }

    @Test func keysAreSortedAtEveryLevelInStringOrder() throws {
        let parameters: Parameters = ["b": ["z": 1, "a": 2, "B": 3], "a": 0, "é": 4, "e\u{301}z": 5, "Z": 6]
        let keys = parameters.keys.sorted()
        #expect(keys == ["Z", "a", "b", "é", "e\u{301}z"])
        #expect(try encoding.query(parameters)
            == "Z=6&a=0&b%5BB%5D=3&b%5Ba%5D=2&b%5Bz%5D=1&%C3%A9=4&e%CC%81z=5")
    }

    /// Small containers (insertion sort) and large ones (the general sort) give `String`'s order,
    /// also for keys whose first 16 bytes tie, in every insertion order tried.
    @Test(arguments: [3, 16, 17, 40])
    func keysSharingLongPrefixesSortInStringOrder(count: Int) throws {
        let prefix = "a_very_long_shared_prefix_"
        var generator = SplitMix64(seed: UInt64(count))
        let names = (0..<count).map { index in
            index.isMultiple(of: 3) ? "\(prefix)\(count - index)" : "k\(index * 7 % count)_\(index)"
        }
        let expected = names.sorted().map { "\($0)=1" }.joined(separator: "&")
        let expectedNested = names.sorted().map { "n%5B\($0)%5D=1" }.joined(separator: "&")
        for _ in 0..<5 {
            var parameters: Parameters = [:]
            for name in names.shuffled(using: &generator) { parameters[name] = 1 }
            #expect(try encoding.query(parameters) == expected)
            #expect(try encoding.query(["n": parameters]) == expectedNested)
        }
    }

    @Test func nonStringKeysAreDescribedAndSorted() throws {
        let parameters: Parameters = ["m": [2: "b", 1: "a", 10: "c"]]
        #expect(try encoding.query(parameters) == "m%5B1%5D=a&m%5B10%5D=c&m%5B2%5D=b")
    }

    // MARK: Arrays of dictionaries under each ArrayEncoding

    static let items: Parameters = ["items": [["id": 1, "tags": ["x", "y"]], ["id": 2, "tags": [String]()]] as [Parameters]]

    @Test func arraysOfDictionariesWithBrackets() throws {
        #expect(try URLEncoding(arrayEncoding: .brackets).query(Self.items)
            == "items%5B%5D%5Bid%5D=1&items%5B%5D%5Btags%5D%5B%5D=x&items%5B%5D%5Btags%5D%5B%5D=y&items%5B%5D%5Bid%5D=2")
    }

    @Test func arraysOfDictionariesWithoutBrackets() throws {
        #expect(try URLEncoding(arrayEncoding: .noBrackets).query(Self.items)
            == "items%5Bid%5D=1&items%5Btags%5D=x&items%5Btags%5D=y&items%5Bid%5D=2")
    }

    @Test func arraysOfDictionariesWithIndexInBrackets() throws {
        #expect(try URLEncoding(arrayEncoding: .indexInBrackets).query(Self.items)
            == "items%5B0%5D%5Bid%5D=1&items%5B0%5D%5Btags%5D%5B0%5D=x&items%5B0%5D%5Btags%5D%5B1%5D=y&items%5B1%5D%5Bid%5D=2")
    }

    @Test func arraysOfDictionariesWithACustomKey() throws {
        let encoding = URLEncoding(arrayEncoding: .custom { key, index in "\(key).\(index)" })
        #expect(try encoding.query(Self.items)
            == "items.0%5Bid%5D=1&items.0%5Btags%5D.0=x&items.0%5Btags%5D.1=y&items.1%5Bid%5D=2")
    }

    @Test func arrayEncodingDescribesItsKeys() {
        #expect(URLEncoding.ArrayEncoding.brackets.encode(key: "a", atIndex: 3) == "a[]")
        #expect(URLEncoding.ArrayEncoding.noBrackets.encode(key: "a", atIndex: 3) == "a")
        #expect(URLEncoding.ArrayEncoding.indexInBrackets.encode(key: "a", atIndex: 3) == "a[3]")
        #expect(URLEncoding.BoolEncoding.literal.encode(value: false) == "false")
    }

    @Test func arrayLikeCollections() throws {
        let parameters: Parameters = [
            "c": ContiguousArray([1, 2]), "s": [1, 2, 3][1...], "set": Set(["b", "a", "c"]),
        ]
        #expect(try encoding.query(parameters) == "c%5B%5D=1&c%5B%5D=2&s%5B%5D=2&s%5B%5D=3&set%5B%5D=a&set%5B%5D=b&set%5B%5D=c")
    }

    // MARK: Ordered input

    @Test func keyValuePairsKeepTheCallersOrder() throws {
        let pairs: KeyValuePairs<String, any Sendable> = ["z": 1, "a": ["y": 2, "b": 3], "m": "x", "a": 4]
        #expect(try encoding.query(pairs) == "z=1&a%5Bb%5D=3&a%5By%5D=2&m=x&a=4")
    }

    @Test func arraysOfPairsKeepTheCallersOrderAtAnyLevel() throws {
        let inner: [(String, any Sendable)] = [("y", 1), ("b", 2)]
        let pairs: [(String, any Sendable)] = [("z", 1), ("a", inner)]
        #expect(try encoding.query(pairs) == "z=1&a%5By%5D=1&a%5Bb%5D=2")
    }

    // MARK: queryComponents

    @Test func queryComponentsReturnsEscapedPairs() throws {
        let components = try encoding.queryComponents(fromKey: "a b", value: ["c": [1, 2], "d": "&"] as Parameters)
        #expect(components.map(\.0) == ["a%20b%5Bc%5D%5B%5D", "a%20b%5Bc%5D%5B%5D", "a%20b%5Bd%5D"])
        #expect(components.map(\.1) == ["1", "2", "%26"])
        #expect(try encoding.queryComponents(fromKey: "k", value: "") .map(\.1) == [""])
    }

    // MARK: Determinism

    @Test func sameParametersInAnyInsertionOrderGiveTheSameBytes() throws {
        var generator = SplitMix64(seed: 7)
        let keys = (0..<40).map { "key\($0)" }
        var outputs = Set<String>()
        for _ in 0..<100 {
            var parameters: Parameters = [:]
            for key in keys.shuffled(using: &generator) {
                var nested: Parameters = [:]
                for inner in ["x", "b", "Q", "é", "a1"].shuffled(using: &generator) {
                    nested[inner] = ["deep": [inner: key], "n": 1] as Parameters
                }
                parameters[key] = nested
            }
            outputs.insert(try encoding.query(parameters))
        }
        #expect(outputs.count == 1)
    }

    // MARK: Limits

    @Test func nestingBeyondTheLimitThrowsWithTheKeyPath() throws {
        var parameters: Parameters = ["leaf": 1]
        for _ in 0..<1_000 { parameters = ["a": parameters] }
        let error = try #require(throws: ParameterEncodingError.self) { try encoding.query(parameters) }
        #expect(error.code == .nestingTooDeep)
        #expect(error.keyPath == Array(repeating: "a", count: ParameterEncodingError.maximumDepth).joined(separator: "."))
    }

    @Test func nestingAtTheLimitEncodesOnASmallStack() async throws {
        var nested: Parameters = ["leaf": 1]
        for _ in 0..<(ParameterEncodingError.maximumDepth / 2 - 1) { nested = ["a": [nested]] }
        let parameters = nested
        // 512 KiB is the stack of a secondary thread on Apple platforms.
        let result = try await onThread(stackSize: 512 * 1024) { try URLEncoding.default.query(parameters) }
        let levels = ParameterEncodingError.maximumDepth / 2 - 1
        #expect(result == "a" + String(repeating: "%5B%5D%5Ba%5D", count: levels - 1) + "%5B%5D%5Bleaf%5D=1")
    }

    @Test func aMillionPairsEncode() async throws {
        // Seconds of work in a debug build: run it on its own low-priority thread so that it holds
        // neither a cooperative-pool thread nor the CPU the timing-sensitive tests need.
        let (parameters, query) = try await onThread(stackSize: 8 << 20, lowPriority: true) { () throws -> (Parameters, String) in
            var parameters: Parameters = [:]
            parameters.reserveCapacity(1_000_000)
            for index in 0..<1_000_000 { parameters["k\(index)"] = index }
            return (parameters, try URLEncoding.default.query(parameters))
        }
        // Each pair `k<i>=<i>` is twice its key long; 999,999 `&` join them.
        #expect(query.utf8.count == parameters.keys.reduce(0) { $0 + 2 * $1.utf8.count } + 999_999)
        #expect(query.hasPrefix("k0=0&k1=1&k10=10&k100=100&k1000=1000&k10000=10000&k100000=100000&k100001=100001"))
    }

    // MARK: Round trip

    @Test(arguments: [URLEncoding.ArrayEncoding.brackets, .indexInBrackets])
    func randomTreesRoundTrip(arrayEncoding: URLEncoding.ArrayEncoding) throws {
        var generator = SplitMix64(seed: 2_026)
        let encoding = URLEncoding(arrayEncoding: arrayEncoding, boolEncoding: .literal)
        for _ in 0..<500 {
            let parameters = RandomParameters.tree(using: &generator)
            let query = try encoding.query(parameters)
            let decoded = try QueryOracle.decode(query)
            let expected = QueryOracle.flatten(parameters, arrayEncoding: arrayEncoding)
            #expect(decoded.count == expected.count)
            for (got, want) in zip(decoded, expected) where got != want {
                Issue.record("pair \(got) should be \(want) in \(query)")
                break
            }
        }
    }
}
