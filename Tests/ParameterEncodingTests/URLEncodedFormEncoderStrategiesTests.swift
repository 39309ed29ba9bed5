import Foundation
import TestScheduling
import Testing
import ParameterEncoding

@Suite(.backgroundPriority) struct URLEncodedFormEncoderStrategiesTests {
    // MARK: Keys

    @Test(arguments: [
        (URLEncodedFormEncoder.KeyEncoding.capitalized, "OneTwoThree=oneTwoThree"),
        (.lowercased, "onetwothree=oneTwoThree"),
        (.uppercased, "ONETWOTHREE=oneTwoThree"),
    ])
    func keysCanBeCapitalizedLowercasedOrUppercased(encoding: URLEncodedFormEncoder.KeyEncoding, expected: String) throws {
        #expect(try URLEncodedFormEncoder(keyEncoding: encoding).encode(["oneTwoThree": "oneTwoThree"]) == expected)
    }

    @Test func keyEncodingRewritesEachKeyOfAPathOnItsOwn() throws {
        struct Child: Encodable { let childName = "x" }
        struct Parent: Encodable { let parentName = Child() }
        #expect(try URLEncodedFormEncoder(keyEncoding: .capitalized).encode(Parent()) == "ParentName%5BChildName%5D=x")
        #expect(URLEncodedFormEncoder.KeyEncoding.capitalized.encode("") == "")
        #expect(URLEncodedFormEncoder.KeyEncoding.capitalized.encode("éclair") == "Éclair")
    }

    // MARK: Key paths

    @Test func nestedKeysAreInBracketsByDefault() throws {
        let parameters = ["a": ["b": "b"]]
        #expect(try URLEncodedFormEncoder().encode(parameters) == "a%5Bb%5D=b")
        #expect(try URLEncodedFormEncoder(keyPathEncoding: .brackets).encode(parameters) == "a%5Bb%5D=b")
    }

    @Test func nestedKeysCanBeJoinedWithDots() throws {
        struct Inner: Encodable { let zeta = 1; let alpha = [true] }
        struct Outer: Encodable { let outer = ["inner": Inner()] }
        #expect(try URLEncodedFormEncoder(keyPathEncoding: .dots).encode(["a": ["b": "b"]]) == "a.b=b")
        #expect(try URLEncodedFormEncoder(keyPathEncoding: .dots).encode(Outer())
            == "outer.inner.alpha%5B%5D=1&outer.inner.zeta=1")
    }

    @Test func nestedKeysCanBeJoinedByAClosureAndTheResultIsEscaped() throws {
        #expect(try URLEncodedFormEncoder(keyPathEncoding: .init { "-\($0)" }).encode(["a": ["b": "b"]]) == "a-b=b")
        #expect(try URLEncodedFormEncoder(keyPathEncoding: .init { "&\($0)=" }).encode(["a": ["b": "b"]]) == "a%26b%3D=b")
        #expect(URLEncodedFormEncoder.KeyPathEncoding.dots.encode("k") == ".k")
        #expect(URLEncodedFormEncoder.KeyPathEncoding.brackets.encode("k") == "[k]")
    }

    @Test func customArrayKeysSeeTheJoinedKeyPath() throws {
        let encoder = URLEncodedFormEncoder(arrayEncoding: .custom { key, index in "\(key):\(index)" }, keyPathEncoding: .dots)
        #expect(try encoder.encode(["a": ["b": [7, 8]]]) == "a.b%3A0=7&a.b%3A1=8")
    }

    // MARK: Dates

    @Test func datesCanBeWrittenByADateFormatter() throws {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSSS"
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.locale = Locale(identifier: "en_US_POSIX")
        let encoder = URLEncodedFormEncoder(dateEncoding: .formatted(formatter))
        #expect(try encoder.encode(["date": Date(timeIntervalSinceReferenceDate: 123.456)]) == "date=2001-01-01%2000%3A02%3A03.4560")
    }

    // MARK: Spaces and allowed characters

    @Test func spacesCanBeWrittenAsPlusesAndPlusesStayEncoded() throws {
        let encoder = URLEncodedFormEncoder(spaceEncoding: .plusReplaced)
        #expect(try encoder.encode(["spaces": "replace with spaces", "plus": "1+1"]) == "plus=1%2B1&spaces=replace+with+spaces")
        #expect(encoder.spaceEncoding == .plusReplaced)
        #expect(encoder.escaping.allowedCharacters == URLEncoding.Escaping.rfc3986.allowedCharacters)
        #expect(URLEncodedFormEncoder().spaceEncoding == .percentEscaped)
        #expect(URLEncodedFormEncoder().escaping == .rfc3986)
    }

    @Test func allowedCharactersCanBeNarrowed() throws {
        var allowed = CharacterSet.afURLQueryAllowed
        allowed.remove(charactersIn: "?/")
        let encoder = URLEncodedFormEncoder(allowedCharacters: allowed)
        #expect(try encoder.encode(["allowed": "?/"]) == "allowed=%3F%2F")
        #expect(try URLEncodedFormEncoder().encode(["allowed": "?/"]) == "allowed=?/")
    }

    @Test func allowedCharactersCanBeWidenedButNeverToSeparators() throws {
        var allowed = CharacterSet.afURLQueryAllowed
        allowed.insert(charactersIn: "!*&=+#%é ")
        let encoder = URLEncodedFormEncoder(allowedCharacters: allowed)
        #expect(try encoder.encode(["k": "!*&=+#% é"]) == "k=!*%26%3D%2B%23%25%20%C3%A9")
    }

    @Test func spaceEncodingAndAllowedCharactersAreViewsOfOneEscapingTable() throws {
        var encoder = URLEncodedFormEncoder(escaping: .whatwgForm)
        #expect(encoder.spaceEncoding == .plusReplaced)
        #expect(encoder.allowedCharacters == URLEncoding.Escaping.whatwgForm.allowedCharacterSet)
        encoder.spaceEncoding = .percentEscaped
        #expect(try encoder.encode(["k": "a b*"]) == "k=a%20b*")
        encoder.allowedCharacters = .afURLQueryAllowed
        #expect(encoder.escaping == .rfc3986)
        #expect(try encoder.encode(["k": "a b*"]) == "k=a%20b%2A")
    }

    @Test func theDefaultSetIsAlamofiresQuerySet() {
        let alamofire = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: ":#[]@!$&'()*+,;="))
        #expect(CharacterSet.afURLQueryAllowed == alamofire)
        #expect(URLEncoding.Escaping(allowedCharacters: alamofire) == .rfc3986)
    }

    @Test func argumentsReadInAlamofiresOrder() throws {
        let encoder = URLEncodedFormEncoder(alphabetizeKeyValuePairs: true, arrayEncoding: .noBrackets, boolEncoding: .literal,
                                            dataEncoding: .base64, dateEncoding: .secondsSince1970, keyEncoding: .convertToSnakeCase,
                                            keyPathEncoding: .dots, nilEncoding: .null, spaceEncoding: .plusReplaced,
                                            allowedCharacters: .afURLQueryAllowed)
        struct Form: Encodable { let isOn = true; let tagList = ["a b", "c"]; let none: Int? = nil; let sub = ["innerKey": 1] }
        #expect(try encoder.encode(Form()) == "is_on=true&none=null&sub.inner_key=1&tag_list=a+b&tag_list=c")
    }
}
