import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
@testable import ParameterEncoding

/// One classifier for every writer: a value is recognised the same way, in the same order, by
/// the query, JSON and property-list writers, each of which only decides what its format does
/// with it.
@Suite(.backgroundPriority) struct ParameterValueTests {
    /// Every kind a parameter can be, and what the classifier calls it.
    @Test func everyKindIsRecognisedOnce() {
        func kind(_ value: Any) -> String {
            switch _openExistential(value, do: classifyParameter) {
            case .text(let text): "text \(text)"
            case .integer(let integer): "integer \(integer)"
            case .bool(let bool): "bool \(bool)"
            case .double(let double): "double \(double)"
            case .children(let children): "children \(children.count) \(children.isObject ? "object" : "array")"
            case .null: "null"
            case .number(let number): "number \(number)"
            case .rawJSON(let raw): "raw \(raw.text)"
            case .jsonText: "jsonText"
            case .keyed(let entries): "keyed \(entries.count)"
            case .otherInteger(let integer): "otherInteger \(integer)"
            case .float(let float): "float \(float)"
            case .decimal(let decimal): "decimal \(decimal)"
            case .date(let date): "date \(date.timeIntervalSince1970)"
            case .data(let data): "data \(data.count)"
            case .unsupported(let value): "unsupported \(type(of: value))"
            }
        }
        let nested: String?? = .some(.some("deep"))
        let none: Int?? = .some(nil)
        struct Custom {}
        #expect(kind("a") == "text a")
        #expect(kind(Substring("sub")) == "text sub")
        #expect(kind(Character("c")) == "text c")
        #expect(kind(NSString(string: "ns")) == "text ns")
        #expect(kind(7) == "integer 7")
        #expect(kind(Int8(-3)) == "otherInteger -3")
        #expect(kind(UInt64.max) == "otherInteger \(UInt64.max)")
        #expect(kind(true) == "bool true")
        #expect(kind(0.5) == "double 0.5")
        #expect(kind(Float(0.25)) == "float 0.25")
        #expect(kind(Decimal(string: "1.10")!) == "decimal 1.1")
        #expect(kind(NSNumber(value: 3)) == "number 3")
        #expect(kind(nested as Any) == "text deep")
        #expect(kind(none as Any) == "null")
        #expect(kind(NSNull()) == "null")
        #expect(kind(Date(timeIntervalSince1970: 60)) == "date 60.0")
        #expect(kind(Data([1, 2])) == "data 2")
        #expect(kind(["a": 1] as [String: Int]) == "children 1 object")
        #expect(kind(["x", "y"]) == "children 2 array")
        #expect(kind(Set([1, 2, 3])) == "children 3 array")
        #expect(kind(KeyValuePairs(dictionaryLiteral: ("b", 1), ("a", 2))) == "children 2 object")
        #expect(kind([1: "one"] as [Int: String]) == "keyed 1")
        #expect(kind(NSDictionary(dictionary: ["k": 1])) == "keyed 1")
        #expect(kind(NSArray(array: [1, 2])) == "children 2 array")
        #expect(kind(Custom()) == "unsupported Custom")
        #expect((try? kind(RawJSON("[1]"))) == "raw [1]")
    }

    /// The same uncommon values through all three writers: each gives them its own form.
    @Test func everyWriterWritesTheUncommonTypesItsOwnWay() throws {
        let parameters: Parameters = ["byte": UInt8(200), "float": Float(0.1), "decimal": Decimal(string: "2.5")!, "sub": Substring("s")]
        #expect(try URLEncoding.default.query(parameters) == "byte=200&decimal=2.5&float=0.1&sub=s")
        let json = try JSONEncoding.default.data(for: parameters)
        #expect(String(decoding: json, as: UTF8.self) == #"{"byte":200,"decimal":2.5,"float":0.1,"sub":"s"}"#)
        let plist = try PropertyListEncoding.xml.data(for: parameters)
        let decoded = try PropertyListSerialization.propertyList(from: plist, format: nil) as? NSDictionary
        #expect(decoded == ["byte": 200, "decimal": 2.5, "float": 0.1, "sub": "s"] as NSDictionary)
    }

    /// A dictionary whose keys are not strings: the query writes their descriptions, JSON and
    /// property lists refuse it with the same sentence, naming the first key by description.
    @Test func nonStringKeysAreNamedTheSameByJSONAndPropertyLists() throws {
        let parameters: Parameters = ["map": [2: "two", 1: "one"] as [Int: String]]
        #expect(try URLEncoding.default.query(parameters) == "map%5B1%5D=one&map%5B2%5D=two")
        let expected = "dictionary keys must be strings, found key 1 of type Int"
        #expect(throws: ParameterEncodingError.self) { try JSONEncoding.default.data(for: parameters) }
        do {
            _ = try JSONEncoding.default.data(for: parameters)
        } catch let error as ParameterEncodingError {
            #expect(error.detail == expected)
        }
        do {
            _ = try PropertyListEncoding.xml.data(for: parameters)
            Issue.record("a property list took integer keys")
        } catch let error as ParameterEncodingError {
            #expect(error.detail == expected)
        }
    }

    /// An `[AnyHashable: Any]` dictionary's key is named by the type it wraps, not `AnyHashable`.
    @Test func anAnyHashableKeyIsNamedByItsOwnType() throws {
        let entries: [(key: Any, value: Any)] = [(key: AnyHashable(3), value: 1), (key: AnyHashable("a"), value: 2)]
        guard case .failure(let key) = ParameterValue.stringKeyed(entries) else {
            Issue.record("an integer key was taken for a string")
            return
        }
        #expect(key.detail == "dictionary keys must be strings, found key 3 of type Int")
        let strings: [(key: Any, value: Any)] = [(key: AnyHashable("b"), value: 1), (key: AnyHashable("a"), value: 2)]
        guard case .success(let children) = ParameterValue.stringKeyed(strings) else {
            Issue.record("string keys in AnyHashable were refused")
            return
        }
        #expect(children.keys == ["b", "a"])
    }

    /// Ordered pairs are dictionaries in a property list too (they were refused before); a key
    /// given twice is an error, not a silently dropped value.
    @Test func orderedPairsAreDictionariesInAPropertyList() throws {
        let pairs: Parameters = ["pairs": KeyValuePairs(dictionaryLiteral: ("b", 1), ("a", 2)), "list": [("x", "1"), ("y", "2")] as [(String, any Sendable)]]
        let data = try PropertyListEncoding.binary.data(for: pairs)
        let decoded = try PropertyListSerialization.propertyList(from: data, format: nil) as? NSDictionary
        #expect(decoded == ["pairs": ["a": 2, "b": 1], "list": ["x": "1", "y": "2"]] as NSDictionary)

        let repeated: Parameters = ["pairs": [("k", 1), ("k", 2)] as [(String, any Sendable)]]
        do {
            _ = try PropertyListEncoding.xml.data(for: repeated)
            Issue.record("a repeated key was dropped silently")
        } catch let error as ParameterEncodingError {
            #expect(error.code == .invalidPropertyListValue)
            #expect(error.detail.contains("\"k\" is there twice"))
            #expect(error.keyPath == "pairs")
        }
    }

    /// An `AnyHashable` is the value it wraps, to every writer: a wrapped `Bool` follows the
    /// query's bool encoding, as it did when the query writer cast it.
    @Test func anAnyHashableIsTheValueItWraps() throws {
        let encoding = URLEncoding(boolEncoding: .numeric)
        let components = try encoding.queryComponents(fromKey: "f", value: [AnyHashable(true), AnyHashable(7), AnyHashable("x")])
        #expect(components.map { "\($0.0)=\($0.1)" } == ["f%5B%5D=1", "f%5B%5D=7", "f%5B%5D=x"])
        guard case .bool(true) = _openExistential(AnyHashable(true) as Any, do: classifyParameter) else {
            Issue.record("AnyHashable(true) was not taken for a Bool")
            return
        }
    }

    /// JSON writes an `Optional` `Double` or `Bool` that holds a value, as it always wrote an
    /// `Optional` `Int` or `String` (it used to refuse the first two).
    @Test func jsonWritesEveryOptionalThatHoldsAValue() throws {
        let parameters: Parameters = ["d": Optional(1.5), "b": Optional(true), "i": Optional(2), "s": Optional("t"), "n": Int?.none]
        let json = try JSONEncoding.default.data(for: parameters)
        #expect(String(decoding: json, as: UTF8.self) == #"{"b":true,"d":1.5,"i":2,"n":null,"s":"t"}"#)
    }
}
