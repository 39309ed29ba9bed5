import Foundation
import LoopbackFixture
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
@testable import ParameterEncoding

@Suite(.backgroundPriority) struct MultipartFormBodyTests {
    /// A temporary directory per test, removed by the caller.
    func temporaryFile(_ name: String, _ contents: Data) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("multipart-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try contents.write(to: url)
        return url
    }

    func remove(_ file: URL) {
        try? FileManager.default.removeItem(at: file.deletingLastPathComponent())
    }

    @Test func writesTheExactBytesOfRFC7578() throws {
        let body = MultipartFormBody([.text("title", "Hi"), .data("blob", Data([0, 1, 2]), fileName: "a.png")], boundary: "B")
        let expected = "--B\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHi\r\n"
            + "--B\r\nContent-Disposition: form-data; name=\"blob\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n\u{0}\u{1}\u{2}\r\n"
            + "--B--\r\n"
        #expect(try body.encode() == Data(expected.utf8))
        #expect(body.additionalHeaders["Content-Type"] == "multipart/form-data; boundary=B")
    }

    @Test func appliedSetsTheContentTypeWithTheBoundary() throws {
        let body = MultipartFormBody([.text("a", "b")])
        let request = try body.applied(to: URLRequest(url: "https://example.com", method: .post))
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "multipart/form-data; boundary=\(body.boundary)")
        #expect(request.httpBody == (try body.encode()))
    }

    @Test func theDefaultBoundaryIsDeterministicAndAvoidsTheContent() throws {
        let first = MultipartFormBody([.text("a", "b")])
        #expect(first.boundary == MultipartFormBody([.text("x", "y")]).boundary)
        #expect(first.boundary.hasPrefix("swift-requests-"))
        let tricky = MultipartFormBody([.text("a", "--\(first.boundary)"), .data("b", Data("x--\(MultipartFormBody.candidate(1))".utf8))])
        #expect(tricky.boundary == MultipartFormBody.candidate(2))
        let text = String(decoding: try tricky.encode(), as: UTF8.self)
        #expect(text.components(separatedBy: "--\(tricky.boundary)").count == 4)
    }

    @Test func aFileThatContainsTheBoundaryIsWrittenWithAnother() throws {
        let defaultBoundary = MultipartFormBody([]).boundary
        let file = try temporaryFile("clash.txt", Data("before\r\n--\(defaultBoundary)\r\nafter".utf8))
        defer { remove(file) }
        let body = MultipartFormBody([.file("doc", at: file)])
        #expect(body.boundary == defaultBoundary)

        let (data, headers) = try body.encodedWithHeaders()
        #expect(headers["Content-Type"] == "multipart/form-data; boundary=\(MultipartFormBody.candidate(1))")
        #expect(String(decoding: data, as: UTF8.self).hasPrefix("--\(MultipartFormBody.candidate(1))\r\n"))

        let output = file.deletingLastPathComponent().appendingPathComponent("body")
        let written = try body.write(to: output)
        #expect(written.contentType == headers["Content-Type"])
        #expect(try Data(contentsOf: output) == data)
        #expect(written.length == Int64(data.count))

        let error = try #require(throws: ParameterEncodingError.self) { try body.encode() }
        #expect(error.code == .invalidMultipart)
        #expect(error.description.contains("part 1 (\"doc\"): the content contains the boundary"))
        let fixed = try #require(throws: ParameterEncodingError.self) {
            try MultipartFormBody([.text("a", "x--fixed")], boundary: "fixed").encodedWithHeaders()
        }
        #expect(fixed.code == .invalidMultipart)
    }

    @Test func namesAndFileNamesAreEscapedAsBrowsersDo() throws {
        let body = MultipartFormBody([.data("say \"hi\"\r\nnow", Data(), fileName: "résumé \"final\".pdf")], boundary: "B")
        let text = String(decoding: try body.encode(), as: UTF8.self)
        #expect(text.contains("Content-Disposition: form-data; name=\"say %22hi%22%0D%0Anow\"; filename=\"résumé %22final%22.pdf\"\r\nContent-Type: application/pdf\r\n"))
    }

    @Test func mimeTypesComeFromTheExtensionUnlessGiven() throws {
        #expect(MultipartFormBody.Part.file("f", at: URL(fileURLWithPath: "/x/photo.JPG")).mimeType == "image/jpeg")
        #expect(MultipartFormBody.Part.file("f", at: URL(fileURLWithPath: "/x/data.json")).mimeType == "application/json")
        #expect(MultipartFormBody.Part.file("f", at: URL(fileURLWithPath: "/x/noextension")).mimeType == "application/octet-stream")
        #expect(MultipartFormBody.Part.file("f", at: URL(fileURLWithPath: "/x/.hidden")).mimeType == "application/octet-stream")
        #expect(MultipartFormBody.Part.file("f", at: URL(fileURLWithPath: "/x/a.png"), mimeType: "image/x-custom").mimeType == "image/x-custom")
        #expect(MultipartFormBody.Part.file("f", at: URL(fileURLWithPath: "/x/a.png"), fileName: "b.gif").fileName == "b.gif")
        #expect(MultipartFormBody.Part.file("f", at: URL(fileURLWithPath: "/x/a.png"), fileName: "b.gif").mimeType == "image/gif")
        #expect(MultipartFormBody.Part.data("d", Data()).mimeType == "application/octet-stream")
        #expect(MultipartFormBody.Part.text("t", "v").mimeType == nil)
    }

    @Test func badInputIsAnErrorThatNamesThePart() throws {
        let missing = try #require(throws: ParameterEncodingError.self) {
            try MultipartFormBody([.text("a", "b"), .file("upload", at: URL(fileURLWithPath: "/nonexistent/file.bin"))]).encode()
        }
        #expect(missing.code == .invalidMultipart)
        #expect(missing.description.contains("part 2 (\"upload\"): cannot open /nonexistent/file.bin"))

        let badType = try #require(throws: ParameterEncodingError.self) {
            try MultipartFormBody([.data("x", Data(), mimeType: "text/plain\r\nInjected: 1")]).encode()
        }
        #expect(badType.description.contains("part 1 (\"x\"): the MIME type"))

        for boundary in ["", String(repeating: "a", count: 71), "ends in space ", "semi;colon", "quo\"te"] {
            #expect(throws: ParameterEncodingError.self) { try MultipartFormBody([.text("a", "b")], boundary: boundary).encode() }
        }
        #expect(MultipartFormBody.contentType("has space") == "multipart/form-data; boundary=\"has space\"")
    }

    @Test func filesStreamInChunksToTheSameBytesAsInMemory() throws {
        // Three chunks and a bit, so the delimiter search runs across chunk edges.
        let size = MultipartWriter.chunkSize * 3 + 12_345
        let contents = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) })
        let file = try temporaryFile("big.bin", contents)
        defer { remove(file) }
        let body = MultipartFormBody([.text("n", "1"), .file("big", at: file), .data("tail", Data("end".utf8))])
        let output = file.deletingLastPathComponent().appendingPathComponent("body")
        let written = try body.write(to: output)
        let streamed = try Data(contentsOf: output)
        #expect(streamed == (try body.encode()))
        #expect(written.length == Int64(streamed.count))
        #expect(streamed.range(of: contents) != nil)
    }

    @Test func aBoundarySplitAcrossTwoChunksIsFound() throws {
        let delimiter = Data("--\(MultipartFormBody([]).boundary)".utf8)
        for split in [1, 7, delimiter.count - 1] {
            var contents = Data(repeating: 0x41, count: MultipartWriter.chunkSize - split)
            contents.append(delimiter)
            contents.append(Data(repeating: 0x42, count: 100))
            let file = try temporaryFile("seam.bin", contents)
            defer { remove(file) }
            let body = MultipartFormBody([.file("f", at: file)])
            #expect(throws: ParameterEncodingError.self) { try body.encode() }
            #expect(try body.encodedWithHeaders().headers["Content-Type"] == "multipart/form-data; boundary=\(MultipartFormBody.candidate(1))")
        }
    }

    @Test func theDelimiterSearchAgreesWithANaiveOne() {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<3_000 {
            let needle = (0..<Int.random(in: 1...6, using: &generator)).map { _ in UInt8.random(in: 0...2, using: &generator) }
            let haystack = Data((0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...2, using: &generator) })
            let naive = haystack.count >= needle.count && (0...(haystack.count - needle.count)).contains { start in
                Array(haystack[start..<(start + needle.count)]) == needle
            }
            #expect(MultipartWriter.contains(haystack, needle) == naive)
        }
    }
}
