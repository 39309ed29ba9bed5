import Foundation
import TestScheduling
import Testing
import ParameterEncoding

/// `RawJSON`: checked once, copied verbatim by the JSON writer, read as the value it spells by the
/// query and property-list writers.
@Suite(.backgroundPriority) struct RawJSONTests {
    private func json(_ value: any Sendable, _ options: JSONSerialization.WritingOptions = []) throws -> String {
        String(decoding: try JSONEncoding(options: options).data(for: value), as: UTF8.self)
    }

    @Test func jsonKeepsNumbersExactlyAsWritten() throws {
        let parameters: Parameters = [
            "big": try RawJSON("12345678901234567890"), "one": try RawJSON("1.0"), "exp": try RawJSON("1e3"),
            "neg": try RawJSON("-0.000"), "upper": try RawJSON("2E+10"),
        ]
        #expect(try json(parameters) == #"{"big":12345678901234567890,"exp":1e3,"neg":-0.000,"one":1.0,"upper":2E+10}"#)
    }

    @Test func jsonKeepsNestedTextKeyOrderAndSpacing() throws {
        let data = try RawJSON(#"{"z": 1.50, "a": [1, {"x": "é\u00e9"}], "n": null}"#)
        let parameters: Parameters = ["data": data, "list": [try RawJSON("1.0"), "s"] as [any Sendable]]
        #expect(try json(parameters) == #"{"data":{"z": 1.50, "a": [1, {"x": "é\u00e9"}], "n": null},"list":[1.0,"s"]}"#)
        // Pretty printing indents around it and leaves its inside alone.
        #expect(try json(["a": try RawJSON("[1,2]")] as Parameters, .prettyPrinted) == "{\n  \"a\" : [1,2]\n}")
    }

    @Test func aRawArrayOrObjectIsAContainerAtTheTopLevel() throws {
        #expect(try json(try RawJSON(" [1.0, 2] ")) == "[1.0, 2]")
        #expect(try json(try RawJSON("{}")) == "{}")
        let scalar = try #require(throws: ParameterEncodingError.self) { try json(try RawJSON("1.0")) }
        #expect(scalar.code == .invalidJSONValue)
        #expect(try json(try RawJSON("1.0"), .fragmentsAllowed) == "1.0")
    }

    @Test(arguments: [
        ("12345678901234567890", "12345678901234567890"), ("  true\n", "true"), ("null", "null"), ("-0", "-0"),
        ("0.5e-7", "0.5e-7"), ("\"\\ud83d\\ude00\"", "\"\\ud83d\\ude00\""), ("\t[ ]\r\n", "[ ]"),
        ("{\"a\":1,\"a\":2}", "{\"a\":1,\"a\":2}"), ("\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"", "\"\\/\\b\\f\\n\\r\\t\\\"\\\\\""),
    ])
    func validTextIsKeptWithoutTheWhitespaceAroundIt(text: String, kept: String) throws {
        #expect(try RawJSON(text).text == kept)
        #expect(try RawJSON(Data(text.utf8)).description == kept)
    }

    @Test(arguments: [
        ("", "the text is empty"),
        (" \n", "the text is only whitespace"),
        ("{oops", "expected a quoted key at byte 1, near \"oops\""),
        ("01", "a number cannot start with a leading zero at byte 0"),
        ("1.", "a number needs a digit after \".\" at byte 2"),
        ("-", "a number needs a digit after \"-\" at byte 1"),
        ("1e+", "a number needs a digit in its exponent at byte 3"),
        ("[1,]", "expected a value at byte 3, near \"]\""),
        ("{\"a\" 1}", "expected \":\" after the key at byte 5"),
        ("{\"a\":1,}", "expected a quoted key at byte 7"),
        ("[1 2]", "expected \",\" or \"]\" at byte 3"),
        ("\"a\nb\"", "a string holds the control character U+000A; escape it at byte 2"),
        ("\"abc", "a string is never closed: it starts at byte 0"),
        ("\"\\x\"", "\"\\x\" is not a JSON escape at byte 1"),
        ("\"\\u12\"", "\"\\u\" needs four hex digits at byte 1"),
        ("\"\\ud800\"", "the escape of a high surrogate has no low surrogate after it at byte 1"),
        ("\"\\udc00\"", "the escape of a low surrogate has no high surrogate before it at byte 1"),
        ("1 2", "expected the end of the text after the value at byte 2"),
        ("tru", "expected a value at byte 0"),
        ("NaN", "expected a value at byte 0"),
        ("'a'", "expected a value at byte 0"),
        ("[1", "the text ends where \",\" or \"]\" was expected"),
    ])
    func invalidTextIsRefusedSayingWhatAndWhere(text: String, detail: String) throws {
        let error = try #require(throws: ParameterEncodingError.self) { try RawJSON(text) }
        #expect(error.code == .invalidJSONText)
        #expect(error.detail.hasPrefix(detail), "\(error.detail)")
        #expect(error.description.hasPrefix("Invalid JSON text: "))
    }

    @Test func invalidUTF8IsRefused() throws {
        let error = try #require(throws: ParameterEncodingError.self) { try RawJSON(Data([0x22, 0xFF, 0x22])) }
        #expect(error.code == .invalidJSONText)
        #expect(error.detail == "the data is not valid UTF-8")
    }

    @Test func nestingStopsAtTheLimitWithoutRecursing() throws {
        let limit = ParameterEncodingError.maximumDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(try RawJSON(deepest).text == deepest)
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        let error = try #require(throws: ParameterEncodingError.self) { try RawJSON(tooDeep) }
        #expect(error.code == .nestingTooDeep)
        // 100,000 levels fail the same way, on any thread's stack.
        #expect(throws: ParameterEncodingError.self) { try RawJSON(String(repeating: "{\"a\":", count: 100_000)) }
    }

    @Test func equalityAndHashingFollowTheText() throws {
        #expect(try RawJSON("1.0") != RawJSON("1"))
        #expect(try RawJSON(" 1.0 ") == RawJSON("1.0"))
        #expect(try Set([RawJSON("1"), RawJSON("1"), RawJSON("[1]")]).count == 2)
    }

    @Test func queryWritesTheValueTheTextSpells() throws {
        let parameters: Parameters = [
            "big": try RawJSON("12345678901234567890"), "f": try RawJSON("1.0"), "t": try RawJSON("true"),
            "s": try RawJSON(#""a b\u00e9""#), "none": try RawJSON("null"),
            "o": try RawJSON(#"{"z": 1e3, "a": [1, "x"], "e": {}}"#),
        ]
        #expect(try URLEncoding.default.query(parameters)
            == "big=12345678901234567890&f=1.0&o%5Bz%5D=1e3&o%5Ba%5D%5B%5D=1&o%5Ba%5D%5B%5D=x&s=a%20b%C3%A9&t=1")
        let literal = URLEncoding(boolEncoding: .literal, nilEncoding: .null)
        #expect(try literal.query(["t": try RawJSON("false"), "n": try RawJSON("null")] as Parameters) == "n=null&t=false")
    }

    @Test func propertyListsReadTheValueTheTextSpells() throws {
        let raw = try RawJSON(#"{"i": -42, "r": 1.5, "e": 1e3, "s": "x", "b": true, "a": [1, [2.0]]}"#)
        for encoding in [PropertyListEncoding.xml, .binary] {
            let data = try encoding.data(for: ["raw": raw] as Parameters)
            let read = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
            let dictionary = try #require(read["raw"] as? [String: Any])
            #expect(dictionary["i"] as? Int == -42)
            #expect(dictionary["r"] as? Double == 1.5)
            #expect(dictionary["e"] as? Double == 1000)
            #expect(dictionary["s"] as? String == "x")
            #expect(dictionary["b"] as? Bool == true)
            #expect((dictionary["a"] as? [Any])?.count == 2)
        }
    }

    @Test(arguments: [
        (#"{"n": null}"#, "raw.n", "nil has no property-list form"),
        ("[1, 12345678901234567890]", "raw[1]", "the integer 12345678901234567890 does not fit the 64 bits"),
        ("1e400", "raw", "the number 1e400 is beyond the range of a property-list real"),
        (#"{"a": 1, "a": 2}"#, "raw", "the raw JSON object has the key \"a\" twice"),
    ])
    func propertyListsRefuseWhatTheyCannotHoldNamingTheKeyPath(text: String, keyPath: String, detail: String) throws {
        let raw = try RawJSON(text)
        let error = try #require(throws: ParameterEncodingError.self) { try PropertyListEncoding.xml.data(for: ["raw": raw] as Parameters) }
        #expect(error.code == .invalidPropertyListValue)
        #expect(error.keyPath == keyPath)
        #expect(error.detail.hasPrefix(detail), "\(error.detail)")
    }
}
