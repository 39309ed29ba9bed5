import Foundation
import TestScheduling
import Testing
import ParameterEncoding

@Suite(.backgroundPriority) struct EscapeTests {
    static let unreservedAndQuery = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/?".utf8)

    @Test func everyASCIICharacterFollowsRFC3986() {
        for byte in UInt8(0)..<128 {
            let input = String(decoding: [byte], as: UTF8.self)
            let expected = Self.unreservedAndQuery.contains(byte)
                ? input
                : "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            #expect(URLEncoding.default.escape(input) == expected, "byte \(byte)")
        }
    }

    @Test func everyASCIICharacterMatchesFoundationWithTheSameAllowedSet() {
        let allowed = CharacterSet(charactersIn: URLEncoding.Escaping.rfc3986.allowedCharacters)
        let all = String(decoding: Array(UInt8(0)..<128), as: UTF8.self)
        #expect(URLEncoding.default.escape(all) == all.addingPercentEncoding(withAllowedCharacters: allowed))
    }

    @Test(arguments: [
        ("a b&c", "a%20b%26c"),
        ("", ""),
        ("safe-._~/?", "safe-._~/?"),
        ("!$&'()*+,;=:#[]@", "%21%24%26%27%28%29%2A%2B%2C%3B%3D%3A%23%5B%5D%40"),
        ("100%", "100%25"),
        ("日本語", "%E6%97%A5%E6%9C%AC%E8%AA%9E"),
        ("👨‍👩‍👧", "%F0%9F%91%A8%E2%80%8D%F0%9F%91%A9%E2%80%8D%F0%9F%91%A7"),
        ("🇯🇵", "%F0%9F%87%AF%F0%9F%87%B5"),
        ("e\u{301}", "e%CC%81"),
        ("é", "%C3%A9"),
        ("🌎", "%F0%9F%8C%8E"),
    ])
    func escapesToRFC3986(raw: String, escaped: String) {
        #expect(URLEncoding.default.escape(raw) == escaped)
    }

    @Test(arguments: ["日本語のテキスト", "👨‍👩‍👧‍👦 family 🇯🇵🇫🇷 flags", "Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇", "mixed ascii / 中文 ? ~ and spaces"])
    func unicodeMatchesFoundation(text: String) {
        let allowed = CharacterSet(charactersIn: URLEncoding.Escaping.rfc3986.allowedCharacters)
        #expect(URLEncoding.default.escape(text) == text.addingPercentEncoding(withAllowedCharacters: allowed))
        #expect(URLEncoding.default.escape(text).removingPercentEncoding == text)
    }

    @Test func unicodeOutsideTheBMPAndAllScalarSizesRoundTrip() {
        let text = "\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}"
        let escaped = URLEncoding.default.escape(text)
        #expect(escaped.utf8.allSatisfy { $0 < 0x80 })
        #expect(escaped.removingPercentEncoding == text)
    }

    @Test func whatwgFormWritesSpaceAsPlusAndKeepsItsOwnSet() {
        let form = URLEncoding.Escaping.whatwgForm
        #expect(form.escape("a b") == "a+b")
        #expect(form.escape("a+b") == "a%2Bb")
        #expect(form.escape("*-._~/?") == "*-._%7E%2F%3F")
        #expect(form.escape("Hello, 🌎") == "Hello%2C+%F0%9F%8C%8E")
        #expect(form.allowedCharacters == "*-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
    }

    @Test func whatwgFormIsSelectableOnURLEncoding() throws {
        let encoding = URLEncoding(escaping: .whatwgForm)
        #expect(encoding.escape("a b") == "a+b")
        #expect(try encoding.query(["greeting": "Hello, world", "list": ["x y"]]) == "greeting=Hello%2C+world&list%5B%5D=x+y")
    }

    @Test func customTablesNeverAllowSeparators() {
        let escaping = URLEncoding.Escaping(allowedCharacters: "abc[]%&=#+ \u{7F}é")
        #expect(escaping.allowedCharacters == "[]abc")
        #expect(escaping.escape("a[b]&=#+%c d") == "a[b]%26%3D%23%2B%25c%20%64")
    }

    /// Keys and values of up to 32 bytes are encoded without the pre-scan `escape` uses; both
    /// paths must write the same bytes at every length around that limit, for either table.
    @Test(arguments: [URLEncoding.Escaping.rfc3986, .whatwgForm])
    func queryKeysAndValuesMatchEscapeAtEveryLength(escaping: URLEncoding.Escaping) throws {
        let encoding = URLEncoding(escaping: escaping)
        let pieces = ["a", "Z", "9", " ", "&", "=", "%", "+", "[", "é", "日", "👨‍👩‍👧", "~", "/", "?", "\u{7F}", "\u{0}"]
        for length in 0...40 {
            for seed in 0..<pieces.count {
                var text = ""
                while text.utf8.count < length {
                    text += pieces[(text.utf8.count * 7 + seed) % pieces.count]
                }
                let escaped = escaping.escape(text)
                #expect(try encoding.query(["k": text]) == "k=" + escaped, "value \(text.debugDescription)")
                #expect(try encoding.query([text: "v"]) == escaped + "=v", "key \(text.debugDescription)")
            }
        }
    }

    @Test func textNeedingNoChangeIsReturnedAsIs() {
        let text = "already-safe_text.with~only/allowed?characters"
        #expect(URLEncoding.default.escape(text) == text)
    }
}

extension String {
    func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: Swift.max(0, length - count)) + self
    }
}
