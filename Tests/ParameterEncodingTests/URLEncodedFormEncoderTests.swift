import Foundation
import LoopbackFixture
import TestScheduling
import Testing
@testable import ParameterEncoding

/// The same data as a `Codable` model and as `Parameters`, for the byte-identity tests.
struct Profile: Encodable {
    struct Address: Encodable {
        let street: String
        let zip: Int
        let tags: [String]
    }

    struct Pet: Encodable {
        let name: String
        let age: Int?
        let vaccinated: Bool
    }

    let name: String
    let nickname: String?
    let middleName: String?
    let active: Bool
    let score: Double
    let ratio: Float
    let balance: Decimal
    let address: Address
    let pets: [Pet]
    let matrix: [[Int]]
    let emptyList: [Int]
    let query: String

    static let sample = Profile(
        name: "Zoë & \"Bob\"", nickname: "zz", middleName: nil, active: true, score: 0.1, ratio: 1.5,
        balance: Decimal(string: "12.34") ?? 0,
        address: Address(street: "1 Rue d'Été #4", zip: 75001, tags: ["home", "a=b&c", "日本 👨‍👩‍👧"]),
        pets: [Pet(name: "Rex", age: 3, vaccinated: false), Pet(name: "Kitty [1]", age: nil, vaccinated: true)],
        matrix: [[1, 2], [3]], emptyList: [], query: "a+b/c?d~e"
    )

    static let sampleParameters: Parameters = [
        "name": "Zoë & \"Bob\"", "nickname": "zz", "middleName": String?.none, "active": true, "score": 0.1,
        "ratio": Float(1.5), "balance": Decimal(string: "12.34") ?? 0,
        "address": ["street": "1 Rue d'Été #4", "zip": 75001, "tags": ["home", "a=b&c", "日本 👨‍👩‍👧"]] as Parameters,
        "pets": [["name": "Rex", "age": 3, "vaccinated": false], ["name": "Kitty [1]", "vaccinated": true]] as [Parameters],
        "matrix": [[1, 2], [3]], "emptyList": [Int](), "query": "a+b/c?d~e",
    ]
}

/// Any parameter tree as an `Encodable` value.
indirect enum Tree: Encodable {
    case string(String), integer(Int), bool(Bool), double(Double), null
    case array([Tree]), object([String: Tree])

    init(_ value: Any) {
        switch value {
        case let value as String: self = .string(value)
        case let value as Int: self = .integer(value)
        case let value as Bool: self = .bool(value)
        case let value as Double: self = .double(value)
        case let value as [any Sendable]: self = .array(value.map(Tree.init))
        case let value as Parameters: self = .object(value.mapValues(Tree.init))
        default: self = .null
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

@Suite(.backgroundPriority) struct URLEncodedFormEncoderTests {
    @Test(arguments: [URLEncoding.ArrayEncoding.brackets, .noBrackets, .indexInBrackets, .custom { "\($0).\($1)" }])
    func writesTheSameBytesAsURLEncoding(arrayEncoding: URLEncoding.ArrayEncoding) throws {
        for boolEncoding in [URLEncoding.BoolEncoding.numeric, .literal] {
            for escaping in [URLEncoding.Escaping.rfc3986, .whatwgForm] {
                let encoder = URLEncodedFormEncoder(arrayEncoding: arrayEncoding, boolEncoding: boolEncoding, escaping: escaping)
                let encoding = URLEncoding(arrayEncoding: arrayEncoding, boolEncoding: boolEncoding, escaping: escaping)
                let form = try encoder.encode(Profile.sample)
                #expect(form == (try encoding.query(Profile.sampleParameters)))
                #expect(form.contains("pets%5B%5D") || arrayEncoding.encode(key: "k", atIndex: 0) != "k[]")
            }
        }
    }

    @Test func theExampleFromTheDocumentation() throws {
        struct Search: Encodable {
            struct Page: Encodable { let size: Int }
            let q: String
            let page: Page
        }
        #expect(try URLEncodedFormEncoder().encode(Search(q: "swift nio", page: Search.Page(size: 20))) == "page%5Bsize%5D=20&q=swift%20nio")
        #expect(try URLEncodedFormEncoder().encode(["greeting": "Hello, ", "target": "🌎"]) == "greeting=Hello%2C%20&target=%F0%9F%8C%8E")
    }

    @Test func randomTreesWriteTheSameBytesAsURLEncoding() throws {
        var generator = SplitMix64(seed: 0xF0_4D)
        for nilEncoding in [URLEncoding.NilEncoding.dropKey, .dropValue, .null] {
            for _ in 0..<700 {
                var parameters = RandomParameters.tree(using: &generator)
                if Bool.random(using: &generator) { parameters["nothing"] = NSNull() }
                let expected = try URLEncoding(nilEncoding: nilEncoding).query(parameters)
                let form = try URLEncodedFormEncoder(nilEncoding: nilEncoding).encode(Tree(parameters))
                #expect(form == expected)
                if form != expected { return }
            }
        }
    }

    @Test func randomTreesWriteTheSameBytesAsURLEncodingWithEveryOption() throws {
        var generator = SplitMix64(seed: 0x0F0A_4D02)
        let arrayEncodings: [URLEncoding.ArrayEncoding] = [.brackets, .noBrackets, .indexInBrackets, .custom { "\($0):\($1)" }]
        let keyPathEncodings: [URLEncodedFormEncoder.KeyPathEncoding] = [.brackets, .dots, .init { "/\($0)" }]
        let nilEncodings: [URLEncoding.NilEncoding] = [.dropKey, .dropValue, .null]
        for round in 0..<600 {
            var parameters = RandomParameters.tree(using: &generator)
            if round.isMultiple(of: 3) { parameters["nothing"] = NSNull() }
            let arrayEncoding = arrayEncodings[Int.random(in: 0..<arrayEncodings.count, using: &generator)]
            let keyPathEncoding = keyPathEncodings[Int.random(in: 0..<keyPathEncodings.count, using: &generator)]
            let nilEncoding = nilEncodings[Int.random(in: 0..<nilEncodings.count, using: &generator)]
            let boolEncoding: URLEncoding.BoolEncoding = Bool.random(using: &generator) ? .numeric : .literal
            let escaping: URLEncoding.Escaping = Bool.random(using: &generator) ? .rfc3986 : .whatwgForm
            let encoding = URLEncoding(arrayEncoding: arrayEncoding, boolEncoding: boolEncoding, nilEncoding: nilEncoding, escaping: escaping)
            let expected = try encoding.queryBuffer(.parameters(parameters), keyPathEncoding: keyPathEncoding).text
            let form = try URLEncodedFormEncoder(arrayEncoding: arrayEncoding, boolEncoding: boolEncoding, keyPathEncoding: keyPathEncoding,
                                                 nilEncoding: nilEncoding, escaping: escaping).encode(Tree(parameters))
            #expect(form == expected)
            if form != expected { return }
        }
    }

    @Test func encodedNilsFollowNilEncoding() throws {
        struct Explicit: Encodable {
            let value: Int?
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(value, forKey: .value)
                try container.encode(1, forKey: .other)
            }
            enum CodingKeys: CodingKey { case value, other }
        }
        #expect(try URLEncodedFormEncoder().encode(Explicit(value: nil)) == "other=1")
        #expect(try URLEncodedFormEncoder(nilEncoding: .dropValue).encode(Explicit(value: nil)) == "other=1&value=")
        #expect(try URLEncodedFormEncoder(nilEncoding: .null).encode(Explicit(value: nil)) == "other=1&value=null")
    }

    @Test func dateStrategies() throws {
        struct Event: Encodable { let at: Date }
        let event = Event(at: Date(timeIntervalSince1970: 1_700_000_000.75))
        #expect(try URLEncodedFormEncoder().encode(event) == "at=721692800.75")
        #expect(try URLEncodedFormEncoder(dateEncoding: .secondsSince1970).encode(event) == "at=1700000000.75")
        #expect(try URLEncodedFormEncoder(dateEncoding: .millisecondsSince1970).encode(event) == "at=1700000000750.0")
        #expect(try URLEncodedFormEncoder(dateEncoding: .iso8601).encode(event) == "at=2023-11-14T22%3A13%3A20Z")
        #expect(try URLEncodedFormEncoder(dateEncoding: .custom { "day-\(Int($0.timeIntervalSince1970) / 86_400)" }).encode(event) == "at=day-19675")

        // Proleptic Gregorian throughout; ISO8601DateFormatter switches to the Julian calendar before 1582.
        #expect(CivilTime(Date(timeIntervalSince1970: -62_135_596_800))?.iso8601 == "0001-01-01T00:00:00Z")
        let formatter = ISO8601DateFormatter()
        for seconds in [-12_219_292_800.0, -1, 0, 951_782_400, 4_102_444_800, 253_402_300_799] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(CivilTime(date)?.iso8601 == formatter.string(from: date))
        }
    }

    @Test func isoDatesOutsideTheFormatAreErrorsWithTheirCodingPath() throws {
        struct Event: Encodable { let at: [Date] }
        let event = Event(at: [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1e15)])
        let error = try #require(throws: EncodingError.self) {
            try URLEncodedFormEncoder(dateEncoding: .iso8601).encode(event)
        }
        guard case .invalidValue(_, let context) = error else { Issue.record("\(error)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["at", "1"])
        #expect(context.debugDescription.contains("years 1 to 9999"))
    }

    @Test func dataStrategies() throws {
        struct Blob: Encodable { let bytes: Data }
        let blob = Blob(bytes: Data([0xFB, 0xFF, 0x01]))
        #expect(try URLEncodedFormEncoder().encode(blob) == "bytes=%2B/8B")
        #expect(try URLEncodedFormEncoder(dataEncoding: .deferredToData).encode(blob) == "bytes%5B%5D=251&bytes%5B%5D=255&bytes%5B%5D=1")
        #expect(try URLEncodedFormEncoder(dataEncoding: .custom { $0.map { String(format: "%02x", $0) }.joined() }).encode(blob) == "bytes=fbff01")
    }

    @Test func keyStrategies() throws {
        struct Keys: Encodable {
            let userID: Int
            let myURLValue: Int
            let _private: Int
            let property1Name: Int
            let plain: Int
        }
        let value = Keys(userID: 1, myURLValue: 2, _private: 3, property1Name: 4, plain: 5)
        #expect(try URLEncodedFormEncoder(keyEncoding: .convertToSnakeCase).encode(value)
            == "_private=3&my_url_value=2&plain=5&property1_name=4&user_id=1")
        #expect(try URLEncodedFormEncoder(keyEncoding: .convertToKebabCase).encode(value)
            == "_private=3&my-url-value=2&plain=5&property1-name=4&user-id=1")
        #expect(try URLEncodedFormEncoder(keyEncoding: .custom { $0.uppercased() }).encode(value)
            == "MYURLVALUE=2&PLAIN=5&PROPERTY1NAME=4&USERID=1&_PRIVATE=3")
        #expect(URLEncodedFormEncoder.KeyEncoding.convertToSnakeCase.encode("HTTPStatusCode") == "http_status_code")
        #expect(URLEncodedFormEncoder.KeyEncoding.convertToSnakeCase.encode("already_snake") == "already_snake")
    }

    @Test func keysAreSortedAtEveryLevelUnlessAskedNotTo() throws {
        struct Inner: Encodable { let zeta = 1; let alpha = 2 }
        struct Outer: Encodable { let z = Inner(); let a = "x" }
        #expect(try URLEncodedFormEncoder().encode(Outer()) == "a=x&z%5Balpha%5D=2&z%5Bzeta%5D=1")
        #expect(try URLEncodedFormEncoder(alphabetizeKeyValuePairs: false).encode(Outer()) == "z%5Bzeta%5D=1&z%5Balpha%5D=2&a=x")
    }

    @Test func urlsAndSpecialNumbers() throws {
        struct Link: Encodable { let url: URL; let big: UInt64; let small: Int8 }
        let link = Link(url: URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/"), big: .max, small: -8)
        #expect(try URLEncodedFormEncoder().encode(link) == "big=18446744073709551615&small=-8&url=https%3A//example.com/a?b%3Dc")
    }

    @Test func aTopLevelValueThatIsNotKeyedIsAnError() throws {
        for value in [Tree.array([.integer(1)]), .string("x"), .integer(3)] {
            let error = try #require(throws: EncodingError.self) { try URLEncodedFormEncoder().encode(value) }
            #expect("\(error)".contains("keyed top-level value"))
        }
        #expect(try URLEncodedFormEncoder().encode([String: Int]()) == "")
    }

    @Test func deepNestingThrowsInsteadOfCrashing() throws {
        var tree = Tree.integer(1)
        for _ in 0..<600 { tree = .object(["k": tree]) }
        let error = try #require(throws: ParameterEncodingError.self) { try URLEncodedFormEncoder().encode(tree) }
        #expect(error.code == .nestingTooDeep)
    }

    @Test func theDepthErrorNamesTheKeyPath() throws {
        var tree = Tree.array([.integer(1)])
        for _ in 0..<600 { tree = .object(["k": tree]) }
        for encoder in [URLEncodedFormEncoder(), URLEncodedFormEncoder(alphabetizeKeyValuePairs: false)] {
            let error = try #require(throws: ParameterEncodingError.self) { try encoder.encode(tree) }
            #expect(error.keyPath?.hasPrefix("k.k.k.k") == true)
        }
        var list = Tree.integer(1)
        for _ in 0..<600 { list = .array([list]) }
        let error = try #require(throws: ParameterEncodingError.self) { try URLEncodedFormEncoder().encode(["top": list]) }
        #expect(error.keyPath?.hasPrefix("top[0][0]") == true)
    }
}
