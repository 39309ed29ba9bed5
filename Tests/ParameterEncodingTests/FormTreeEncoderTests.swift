import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
import ParameterEncoding

/// How `URLEncodedFormEncoder` treats what an `Encodable` implementation asks of it: optionals,
/// errors of the caller's own closures, containers shared under one key, `superEncoder`.
@Suite(.backgroundPriority) struct FormTreeEncoderTests {
    // MARK: Errors of the caller's closures

    @Test func aCustomDateStrategysErrorReachesTheCallerUnchanged() throws {
        struct DateEncodingError: Error {}
        let encoder = URLEncodedFormEncoder(dateEncoding: .custom { _ in throw DateEncodingError() })
        let result = Result { try encoder.encode(["date": Date(timeIntervalSinceReferenceDate: 123.456)]) }
        #expect(result.failure is DateEncodingError)
    }

    @Test func aCustomDataStrategysErrorReachesTheCallerUnchanged() throws {
        struct DataEncodingError: Error {}
        struct Upload: Encodable { let files: [Data] }
        let encoder = URLEncodedFormEncoder(dataEncoding: .custom { _ in throw DataEncodingError() })
        #expect(throws: DataEncodingError.self) { try encoder.encode(Upload(files: [Data("x".utf8)])) }
        #expect(throws: DataEncodingError.self) {
            try URLEncodedFormParameterEncoder(encoder: encoder).encode(Upload(files: [Data()]), into: URLRequest(url: URL(fileURLWithPath: "/")))
        }
    }

    @Test func errorsTheEncoderRaisesItselfStillNameTheCodingPath() throws {
        struct Event: Encodable { let at: [Date] }
        let error = try #require(throws: EncodingError.self) {
            try URLEncodedFormEncoder(dateEncoding: .iso8601).encode(Event(at: [Date(), Date(timeIntervalSince1970: 1e15)]))
        }
        guard case .invalidValue(_, let context) = error else { Issue.record("\(error)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["at", "1"])
    }

    // MARK: Optionals

    struct OptionalEncodableStruct: Encodable {
        let one = "one"
        let two: String? = nil
    }

    @Test(arguments: [
        (URLEncoding.NilEncoding.dropKey, "one=one"),
        (.dropValue, "one=one&two="),
        (.null, "one=one&two=null"),
    ])
    func optionalPropertiesOfSynthesisedConformancesFollowNilEncoding(nilEncoding: URLEncoding.NilEncoding, expected: String) throws {
        #expect(try URLEncodedFormEncoder(nilEncoding: nilEncoding).encode(OptionalEncodableStruct()) == expected)
        #expect(try URLEncodedFormEncoder(alphabetizeKeyValuePairs: false, nilEncoding: nilEncoding).encode(OptionalEncodableStruct()) == expected)
    }

    @Test func optionalsOfEveryTypeAreWrittenAsNil() throws {
        struct Nest: Encodable { let x = 1 }
        struct Everything: Encodable {
            var bool: Bool?, string: String?, double: Double?, float: Float?, int: Int?, int8: Int8?
            var int16: Int16?, int32: Int32?, int64: Int64?, uint: UInt?, uint8: UInt8?, uint16: UInt16?
            var uint32: UInt32?, uint64: UInt64?, date: Date?, nest: Nest?, list: [Int]?
        }
        let text = try URLEncodedFormEncoder(nilEncoding: .null).encode(Everything())
        #expect(text.split(separator: "&").count == 17)
        #expect(text.split(separator: "&").allSatisfy { $0.hasSuffix("=null") })
        #expect(try URLEncodedFormEncoder().encode(Everything()) == "")
        let some = Everything(bool: true, int8: -1, uint64: 2, nest: Nest(), list: [3])
        #expect(try URLEncodedFormEncoder().encode(some) == "bool=1&int8=-1&list%5B%5D=3&nest%5Bx%5D=1&uint64=2")
    }

    // MARK: Containers under one key

    /// Alamofire's `ManuallyEncodableStruct`: a keyed and then an unkeyed container under `root`.
    struct KeyedThenUnkeyed: Encodable {
        let a = ["string": "string"]
        let b = [1, 2, 3]
        enum RootKey: String, CodingKey { case root }
        enum TypeKeys: String, CodingKey { case a, b }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: RootKey.self)
            var keyed = container.nestedContainer(keyedBy: TypeKeys.self, forKey: .root)
            try keyed.encode(a, forKey: .a)
            var unkeyed = container.nestedUnkeyedContainer(forKey: .root)
            try unkeyed.encode(b)
            var unkeyedKeyed = unkeyed.nestedContainer(keyedBy: TypeKeys.self)
            try unkeyedKeyed.encode(a, forKey: .a)
            var unkeyedUnkeyed = unkeyed.nestedUnkeyedContainer()
            try unkeyedUnkeyed.encode(b)
        }
    }

    @Test func anUnkeyedContainerReplacesAKeyedOneUnderTheSameKeyWhenItWrites() throws {
        // Alamofire's bytes with index keys; with `[]` keys Alamofire sorts the pairs as text and
        // so reorders the array, where this encoder keeps array order.
        #expect(try URLEncodedFormEncoder(arrayEncoding: .indexInBrackets).encode(KeyedThenUnkeyed())
            == "root%5B0%5D%5B0%5D=1&root%5B0%5D%5B1%5D=2&root%5B0%5D%5B2%5D=3&root%5B1%5D%5Ba%5D%5Bstring%5D=string"
            + "&root%5B2%5D%5B0%5D%5B0%5D=1&root%5B2%5D%5B0%5D%5B1%5D=2&root%5B2%5D%5B0%5D%5B2%5D=3")
        #expect(try URLEncodedFormEncoder().encode(KeyedThenUnkeyed())
            == "root%5B%5D%5B%5D=1&root%5B%5D%5B%5D=2&root%5B%5D%5B%5D=3&root%5B%5D%5Ba%5D%5Bstring%5D=string"
            + "&root%5B%5D%5B%5D%5B%5D=1&root%5B%5D%5B%5D%5B%5D=2&root%5B%5D%5B%5D%5B%5D=3")
    }

    @Test func containersOfOneKindUnderOneKeyMerge() throws {
        struct Twice: Encodable {
            enum Keys: String, CodingKey { case list, object, x, y }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                var first = container.nestedContainer(keyedBy: Keys.self, forKey: .object)
                try first.encode(1, forKey: .x)
                var second = container.nestedContainer(keyedBy: Keys.self, forKey: .object)
                try second.encode(2, forKey: .y)
                var list = container.nestedUnkeyedContainer(forKey: .list)
                try list.encode(1)
                var more = container.nestedUnkeyedContainer(forKey: .list)
                try more.encode(2)
            }
        }
        #expect(try URLEncodedFormEncoder(arrayEncoding: .indexInBrackets).encode(Twice())
            == "list%5B0%5D=1&list%5B1%5D=2&object%5Bx%5D=1&object%5By%5D=2")
    }

    @Test func aContainerAskedForButNotWrittenReplacesNothing() throws {
        struct Unused: Encodable {
            enum Keys: String, CodingKey { case k, x }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                var keyed = container.nestedContainer(keyedBy: Keys.self, forKey: .k)
                try keyed.encode(1, forKey: .x)
                _ = container.nestedUnkeyedContainer(forKey: .k)
            }
        }
        #expect(try URLEncodedFormEncoder().encode(Unused()) == "k%5Bx%5D=1")
    }

    @Test func containersOfBothKindsWritingInTurnEachReplaceTheOther() throws {
        struct PingPong: Encodable {
            let endsWithTheArray: Bool
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                var keyed = container.nestedContainer(keyedBy: Key.self, forKey: Key("k"))
                try keyed.encode(1, forKey: Key("x"))
                var list = container.nestedUnkeyedContainer(forKey: Key("k"))
                try list.encode(2)
                try keyed.encode(3, forKey: Key("y"))
                try list.encode(4)
                try keyed.encode(5, forKey: Key("z"))
                if endsWithTheArray { try list.encode(6) }
            }
        }
        #expect(try URLEncodedFormEncoder().encode(PingPong(endsWithTheArray: false)) == "k%5Bz%5D=5")
        #expect(try URLEncodedFormEncoder(arrayEncoding: .indexInBrackets).encode(PingPong(endsWithTheArray: true)) == "k%5B0%5D=6")
    }

    // MARK: superEncoder

    class EncodableSuperclass: Encodable {
        let one = "one"
        let two = 2
        let three = true
    }

    /// Alamofire's `EncodableSubclass`: `super.encode(to:)` with the same encoder.
    final class EncodableSubclass: EncodableSuperclass, @unchecked Sendable {
        let four = [1, 2, 3]
        let five = ["a": "a", "b": "b"]
        enum CodingKeys: String, CodingKey { case four, five }

        override func encode(to encoder: any Encoder) throws {
            try super.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(four, forKey: .four)
            try container.encode(five, forKey: .five)
        }
    }

    /// Alamofire's `ManuallyEncodableSubclass`: every kind of `superEncoder`.
    final class ManuallyEncodableSubclass: EncodableSuperclass, @unchecked Sendable {
        let four = [1, 2, 3]
        let five = ["a": "a", "b": "b"]
        enum CodingKeys: String, CodingKey { case four, five }

        override func encode(to encoder: any Encoder) throws {
            var keyedContainer = encoder.container(keyedBy: CodingKeys.self)
            try keyedContainer.encode(four, forKey: .four)
            try keyedContainer.encode(five, forKey: .five)
            var superContainer = keyedContainer.superEncoder().container(keyedBy: CodingKeys.self)
            try superContainer.encode(one, forKey: .four)
            var superKeyedContainer = keyedContainer.superEncoder(forKey: .four).container(keyedBy: CodingKeys.self)
            try superKeyedContainer.encode(two, forKey: .five)
            var unkeyedContainer = keyedContainer.nestedUnkeyedContainer(forKey: .four)
            var keyedUnkeyedSuperContainer = unkeyedContainer.superEncoder().container(keyedBy: CodingKeys.self)
            try keyedUnkeyedSuperContainer.encode(one, forKey: .four)
        }
    }

    @Test func aSuperclassWritesBesideItsSubclass() throws {
        #expect(try URLEncodedFormEncoder().encode(EncodableSubclass())
            == "five%5Ba%5D=a&five%5Bb%5D=b&four%5B%5D=1&four%5B%5D=2&four%5B%5D=3&one=one&three=1&two=2")
    }

    @Test(arguments: [URLEncoding.ArrayEncoding.brackets, .indexInBrackets])
    func superEncoderWritesIntoTheCurrentContainer(arrayEncoding: URLEncoding.ArrayEncoding) throws {
        #expect(try URLEncodedFormEncoder(arrayEncoding: arrayEncoding).encode(ManuallyEncodableSubclass())
            == "five%5Ba%5D=a&five%5Bb%5D=b&four%5Bfive%5D=2&four%5Bfour%5D=one")
    }

    @Test func superEncoderOfAnArrayAppendsToIt() throws {
        struct Appending: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: FormTreeEncoderTests.Key.self)
                var list = container.nestedUnkeyedContainer(forKey: Key("list"))
                try list.encode(1)
                var more = list.superEncoder().unkeyedContainer()
                try more.encode(2)
            }
        }
        #expect(try URLEncodedFormEncoder().encode(Appending()) == "list%5B%5D=1&list%5B%5D=2")
    }

    // MARK: Single values

    typealias Key = StringKey

    @Test func aSingleValueOverAContainerIsAnErrorNotSilentLoss() throws {
        struct Confused: Encodable {
            func encode(to encoder: any Encoder) throws {
                var keyed = encoder.container(keyedBy: Key.self)
                try keyed.encode(1, forKey: Key("a"))
                var single = encoder.singleValueContainer()
                try single.encode("lost")
            }
        }
        struct Outer: Encodable { let inner = Confused() }
        let error = try #require(throws: EncodingError.self) { try URLEncodedFormEncoder().encode(Outer()) }
        guard case .invalidValue(_, let context) = error else { Issue.record("\(error)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["inner"])
    }

    @Test func twoValuesThroughOneSingleValueContainerAreAnError() throws {
        struct Twice: Encodable {
            func encode(to encoder: any Encoder) throws {
                var single = encoder.singleValueContainer()
                try single.encode(1)
                try single.encode([2])
            }
        }
        #expect(throws: EncodingError.self) { try URLEncodedFormEncoder().encode(["twice": Twice()]) }
    }
}
