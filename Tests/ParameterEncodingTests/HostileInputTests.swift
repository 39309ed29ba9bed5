import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import ParameterEncoding
import TestScheduling
import Testing

/// Hostile input for every public entry point of the module: NaN and infinity, nesting 1,000 and
/// 100,000 deep, a million pairs, every code point U+0000–U+00FF and lone surrogates, and a
/// multipart file that changes while it is read. Each gets a thrown error that says what and
/// where, or output that reads back whole.
@Suite(.backgroundPriority) struct HostileInputTests {
    static let request = URLRequest(url: URL(fileURLWithPath: "/").deletingLastPathComponent())

    /// Every code point from U+0000 to U+00FF, NUL, CR and LF included.
    static let latin1 = String(String.UnicodeScalarView((UInt8(0)...255).map(Unicode.Scalar.init)))

    /// A string built from UTF-16 with a lone high and a lone low surrogate. Swift's `String`
    /// cannot hold them: bridging from `NSString` repairs each to U+FFFD before any encoder sees it.
    static let loneSurrogates: String = {
        let units: [UInt16] = [0x61, 0xD800, 0x62, 0xDC00, 0x63]
        return NSString(characters: units, length: units.count) as String
    }()

    // MARK: NaN and infinity

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteNumbersAreWrittenWhereTheFormatCanAndRefusedWhereItCannot(value: Double) throws {
        let parameters: Parameters = ["outer": ["inner": value]]
        // A query string has no number type: the text Swift gives is the value ("nan", "inf").
        #expect(try URLEncoding.default.query(parameters) == "outer%5Binner%5D=\(value)")
        // JSON has no spelling for them: refused, naming the key path.
        let json = #expect(throws: ParameterEncodingError.self) { try JSONEncoding.default.encode(Self.request, with: parameters) }
        #expect(json?.keyPath == "outer.inner", "\(String(describing: json))")
        // A property list has a real type for them, in both formats.
        for encoding in [PropertyListEncoding.xml, .binary] {
            let body = try #require(try encoding.encode(Self.request, with: parameters).httpBody)
            let read = try PropertyListSerialization.propertyList(from: body, format: nil) as? [String: [String: Double]]
            let number = try #require(read?["outer"]?["inner"])
            #expect(number.isNaN == value.isNaN && (value.isNaN || number == value))
        }
        // Encodable values: the form encoder writes the text; JSON bodies are refused.
        struct Box: Encodable { let value: Double }
        #expect(try URLEncodedFormEncoder().encode(Box(value: value)) == "value=\(value)")
        #expect(throws: (any Error).self) { try JSONBody(Box(value: value)).encode() }
    }

    // MARK: Nesting

    @Test(arguments: [1_000, 100_000])
    func deepNestingIsRefusedWithTheKeyPathByEveryEncoder(depth: Int) throws {
        var dictionary: any Sendable = "leaf"
        var array: any Sendable = "leaf"
        for _ in 0..<depth {
            dictionary = ["a": dictionary] as Parameters
            array = [array] as [any Sendable]
        }
        // A scope of its own: what it holds is released before the chains are unwound below.
        do {
            let nested: Parameters = ["d": dictionary, "l": array]
            let encoders: [(String, () throws -> Any)] = [
                ("query", { try URLEncoding.default.query(nested) }),
                ("URLEncoding.httpBody", { try URLEncoding.httpBody.encode(Self.request, with: nested) }),
                ("JSONEncoding", { try JSONEncoding.default.encode(Self.request, with: nested) }),
                ("PropertyListEncoding.xml", { try PropertyListEncoding.xml.encode(Self.request, with: nested) }),
                ("PropertyListEncoding.binary", { try PropertyListEncoding.binary.encode(Self.request, with: nested) }),
                ("FormBody", { try FormBody(nested).encode() }),
            ]
            for (name, encode) in encoders {
                let error = #expect(throws: ParameterEncodingError.self, "\(name)") { _ = try encode() }
                #expect(error?.code == .nestingTooDeep, "\(name)")
                // The path names the first container too deep, down one of the two chains.
                let keyPath = error?.keyPath ?? ""
                #expect(keyPath.hasPrefix("d.a.a.a") || keyPath.hasPrefix("l[0][0][0]"), "\(name): \(keyPath.prefix(40))")
                #expect(keyPath.utf8.count >= ParameterEncodingError.maximumDepth * 2 - 1, "\(name)")
            }
        }
        Self.unwind(&dictionary)
        Self.unwind(&array)
    }

    /// Lets go of a nested chain one level at a time. Releasing its top in one step would free
    /// 100,000 levels recursively and overflow this thread's stack: a limit of the test, not of
    /// the encoders, which never recurse.
    private static func unwind(_ value: inout any Sendable) {
        while true {
            if let next = (value as? Parameters)?["a"] {
                value = next
            } else if let next = (value as? [any Sendable])?.first {
                value = next
            } else {
                return
            }
        }
    }

    // MARK: A million pairs

    @Test func aMillionPairsReadBackWhole() async throws {
        // Seconds of work in a debug build: off the cooperative pool, at low priority, so the
        // timing-sensitive tests running beside it keep their threads.
        let read = try await inBackground { () throws -> [String: Int]? in
            var parameters: Parameters = [:]
            parameters.reserveCapacity(1_000_000)
            for index in 0..<1_000_000 {
                parameters["k\(index)"] = index
            }
            guard let body = try JSONEncoding.default.encode(Self.request, with: parameters).httpBody else { return nil }
            return try JSONSerialization.jsonObject(with: body) as? [String: Int]
        }
        #expect(read?.count == 1_000_000)
        #expect(read?["k999999"] == 999_999)
    }

    // MARK: Every code point U+0000–U+00FF, lone surrogates

    @Test(arguments: [latin1, loneSurrogates])
    func everyLatin1CodePointAndLoneSurrogatesRoundTrip(text: String) throws {
        // escape: only unreserved and query-safe ASCII comes out, and it decodes back exactly.
        let escaped = URLEncoding.default.escape(text)
        #expect(escaped.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F })
        #expect(escaped.removingPercentEncoding == text)
        // query: the text as key and value comes back from a naive split-and-decode.
        let query = try URLEncoding.default.query([text: text])
        let pair = query.split(separator: "=", omittingEmptySubsequences: false).map { String($0).removingPercentEncoding }
        #expect(pair == [text, text])
        // JSON and both property-list formats read back equal.
        let json = try #require(try JSONEncoding.default.encode(Self.request, with: [text: text]).httpBody)
        #expect(try JSONSerialization.jsonObject(with: json) as? [String: String] == [text: text])
        for encoding in [PropertyListEncoding.xml, .binary] {
            let outcome = Result { try encoding.encode(Self.request, with: [text: text]).httpBody }
            switch outcome {
            case .success(let body?):
                let read = try PropertyListSerialization.propertyList(from: body, format: nil) as? [String: String]
                #expect(read == [text: text], "\(encoding.format)")
            case .success(nil):
                Issue.record("no body")
            case .failure(let error):
                // XML 1.0 cannot carry most C0 controls: refused, naming them, never written unreadable.
                #expect(encoding.format == .xml, "\(error)")
                #expect("\(error)".contains("U+0000") || "\(error)".contains("control"), "\(error)")
            }
        }
        // The Encodable form encoder.
        struct Box: Encodable { let value: String }
        let form = try URLEncodedFormEncoder().encode(Box(value: text))
        #expect(form.hasPrefix("value="))
        #expect(String(form.dropFirst(6)).removingPercentEncoding == text)
    }

    /// Found by the plist fuzz target: Foundation's XML property-list reader drops a leading
    /// U+FEFF, so XML refuses such a string, naming it, and binary keeps it.
    @Test func aLeadingByteOrderMarkIsRefusedByXMLPropertyListsAndKeptByBinaryOnes() throws {
        for parameters: Parameters in [["a": ["\u{FEFF}key": "v"]], ["a": ["b": "\u{FEFF}value"]], ["a": ["\u{FEFF}x"]]] {
            let error = #expect(throws: ParameterEncodingError.self) { try PropertyListEncoding.xml.encode(Self.request, with: parameters) }
            #expect(error?.code == .invalidPropertyListValue)
            #expect((error?.keyPath ?? "").hasPrefix("a") && error?.description.contains("U+FEFF") == true, "\(String(describing: error))")
            let body = try #require(try PropertyListEncoding.binary.encode(Self.request, with: parameters).httpBody)
            let read = try PropertyListSerialization.propertyList(from: body, format: nil)
            #expect("\(read)".contains("\u{FEFF}"))
        }
        // Anywhere but first, it survives XML.
        let body = try #require(try PropertyListEncoding.xml.encode(Self.request, with: ["k": "a\u{FEFF}b"]).httpBody)
        #expect(try PropertyListSerialization.propertyList(from: body, format: nil) as? [String: String] == ["k": "a\u{FEFF}b"])
    }

    @Test func loneSurrogatesAreRepairedBeforeAnyEncoderSeesThem() {
        #expect(Self.loneSurrogates == "a\u{FFFD}b\u{FFFD}c")
        #expect(URLEncoding.default.escape(Self.loneSurrogates) == "a%EF%BF%BDb%EF%BF%BDc")
    }

    // MARK: Headers

    @Test func everyByteInAHeaderValueIsAcceptedOrRefusedByName() throws {
        for byte in UInt8(0)...255 {
            let scalar = Unicode.Scalar(byte)
            let header = HTTPHeader(name: "X-Test", value: "a\(Character(scalar))b")
            let refused = byte == 0x00 || byte == 0x0A || byte == 0x0D
            if refused {
                let error = #expect(throws: ParameterEncodingError.self) { try header.validate() }
                #expect(error?.description.contains("X-Test") == true)
            } else {
                #expect(throws: Never.self) { try header.validate() }
            }
            let name = HTTPHeader(name: "X\(Character(scalar))Y", value: "v")
            if !HTTPToken.isTokenByte(byte) {
                let error = #expect(throws: ParameterEncodingError.self) { try name.validate() }
                #expect(error?.code == .invalidHeader)
            }
        }
    }

    // MARK: A multipart file that changes while it is read

    @Test func aMultipartFileThatShrinksWhileReadIsAnErrorNamingIt() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("shrinking-\(UUID().uuidString).bin")
        try Data(repeating: 0x61, count: MultipartWriter.chunkSize * 3).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let writer = MultipartWriter(parts: [.text("a", "1"), .file("upload", at: url)], boundary: "B")
        var chunks = 0
        let error = #expect(throws: ParameterEncodingError.self) {
            try writer.write { data in
                chunks += 1
                if data.count == MultipartWriter.chunkSize, chunks < 10 {
                    // After the first chunk of the file, another process truncates it.
                    let handle = try FileHandle(forWritingTo: url)
                    try handle.truncate(atOffset: UInt64(MultipartWriter.chunkSize + 10))
                    try handle.close()
                    chunks = 10
                }
            }
        }
        #expect(error?.code == .invalidMultipart)
        #expect(error?.description.contains("part 2 (\"upload\")") == true, "\(String(describing: error))")
        #expect(error?.description.contains("changed while it was read") == true)
    }

    @Test func aFileThatCannotSayItsSizeIsReadToItsEnd() throws {
        #if os(Linux)
        // /proc files say they hold 0 bytes; their content is read all the same.
        let body = try MultipartFormBody([.file("status", at: URL(fileURLWithPath: "/proc/self/status"))], boundary: "B").encode()
        #expect(String(decoding: body, as: UTF8.self).contains("VmRSS:"))
        #endif
    }

    @Test func aMultipartFileDeletedWhileReadIsStillSentWhole() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("deleted-\(UUID().uuidString).bin")
        let content = Data((0..<(MultipartWriter.chunkSize * 2 + 7)).map { UInt8(truncatingIfNeeded: $0) })
        try content.write(to: url)
        let writer = MultipartWriter(parts: [.file("upload", at: url)], boundary: "B")
        var body = Data()
        try writer.write { data in
            body.append(data)
            // Unlinking an open file leaves its bytes readable: nothing is lost.
            if FileManager.default.fileExists(atPath: url.path), data.count == MultipartWriter.chunkSize {
                try FileManager.default.removeItem(at: url)
            }
        }
        #expect(body.range(of: content) != nil)
        // A file gone before it is opened is an error naming it.
        let error = #expect(throws: ParameterEncodingError.self) { try MultipartFormBody([.file("upload", at: url)]).encode() }
        #expect(error?.description.contains(url.path) == true)
    }
}
