import Foundation
import Testing
@testable import Requests

/// The line splitter and the server-sent-event parser, fed in every possible chunking.
@Suite struct LineSplitterTests {
    /// Splits `text` fed as the given chunks.
    private func lines(_ chunks: [String], breaksOnCR: Bool = false, maxLength: Int = 1 << 20) throws -> [String] {
        var splitter = LineSplitter(breaksOnCR: breaksOnCR, maxLength: maxLength)
        var lines: [String] = []
        for chunk in chunks {
            lines += try splitter.feed(Data(chunk.utf8))
        }
        if let last = splitter.finish() { lines.append(last) }
        return lines
    }

    /// Every way of cutting `bytes` in two and in three.
    private func cuts(_ bytes: [UInt8]) -> [[Data]] {
        var result: [[Data]] = [[Data(bytes)]]
        for i in 0...bytes.count {
            result.append([Data(bytes[..<i]), Data(bytes[i...])])
            for j in i...bytes.count {
                result.append([Data(bytes[..<i]), Data(bytes[i..<j]), Data(bytes[j...])])
            }
        }
        return result
    }

    @Test func linesEndAtLFAndCRLFAndTheLastLineNeedsNoTerminator() throws {
        #expect(try lines(["a\nb\r\nc"]) == ["a", "b", "c"])
        #expect(try lines(["a\n\nb\n"]) == ["a", "", "b"])
        #expect(try lines(["a\rb\n"]) == ["a\rb"])
        #expect(try lines([""]) == [])
    }

    @Test func everyChunkingGivesTheSameLines() throws {
        let text = "héllo\r\n世界\n\r\nlast\r"
        let bytes = Array(text.utf8)
        for chunks in cuts(bytes) {
            var splitter = LineSplitter(maxLength: 100)
            var lines: [String] = []
            for chunk in chunks { lines += try splitter.feed(chunk) }
            if let last = splitter.finish() { lines.append(last) }
            #expect(lines == ["héllo", "世界", "", "last"], "chunks \(chunks.map(\.count))")
        }
    }

    @Test func aLoneCREndsALineWhenAskedAndCRLFSplitAcrossChunksCountsOnce() throws {
        let bytes = Array("a\rb\r\nc\n\rd".utf8)
        for chunks in cuts(bytes) {
            var splitter = LineSplitter(breaksOnCR: true, maxLength: 100)
            var lines: [String] = []
            for chunk in chunks { lines += try splitter.feed(chunk) }
            if let last = splitter.finish() { lines.append(last) }
            #expect(lines == ["a", "b", "c", "", "d"], "chunks \(chunks.map(\.count))")
        }
    }

    @Test func aLineOverTheLimitIsAnError() throws {
        #expect(throws: LineTooLong.self) { try lines(["12345", "6\n"], maxLength: 5) }
        #expect(throws: LineTooLong.self) { try lines(["123456\n"], maxLength: 5) }
        #expect(try lines(["12345\r\n"], maxLength: 5) == ["12345"])
    }

    @Test func invalidUTF8BecomesReplacementCharacters() throws {
        var splitter = LineSplitter(maxLength: 100)
        #expect(try splitter.feed(Data([0x61, 0xFF, 0x0A])) == ["a\u{FFFD}"])
    }
}

@Suite struct ServerSentEventParserTests {
    private func events(_ lines: [String]) -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        return lines.compactMap { try? parser.feed($0) }
    }

    @Test func fieldsCommentsAndDispatchFollowTheWHATWGRules() {
        let parsed = events([
            ": comment", "retry: 2500", "",
            "id: 1", "event: greeting", "data: hello", "data: world", "",
            "data: no event name", "id: 2", "",
            "data:  two spaces", "data", "",
            "event: no data", "",
            "unknown: field", "data:last", "",
            "data: pending at the end",
        ])
        #expect(parsed == [
            ServerSentEvent(type: "greeting", data: "hello\nworld", id: "1", retry: .milliseconds(2500)),
            ServerSentEvent(type: "message", data: "no event name", id: "2", retry: .milliseconds(2500)),
            ServerSentEvent(type: "message", data: " two spaces\n", id: "2", retry: .milliseconds(2500)),
            ServerSentEvent(type: "message", data: "last", id: "2", retry: .milliseconds(2500)),
        ])
    }

    @Test func badRetryAndIdsWithNULAreIgnoredAndALeadingBOMIsDropped() {
        let parsed = events(["\u{FEFF}data: a", "retry: 12x", "id: 7\0", ""])
        #expect(parsed == [ServerSentEvent(type: "message", data: "a", id: nil, retry: nil)])
        #expect(events(["id", "data", ""]) == [ServerSentEvent(data: "", id: "")])
    }

    @Test func aCombiningMarkAfterTheColonDoesNotHideTheField() {
        #expect(events(["data:\u{301}x", ""]) == [ServerSentEvent(data: "\u{301}x")])
        #expect(events(["data: \u{301}y", ""]) == [ServerSentEvent(data: "\u{301}y")])
    }

    @Test func dataPastTheLimitIsAnError() throws {
        var parser = ServerSentEventParser(maxDataLength: 10)
        _ = try parser.feed("data: 12345")
        #expect(throws: EventTooLarge.self) { try parser.feed("data: 67890") }
    }

    @Test func theEventTypeIsResetAfterEveryBlank() {
        #expect(events(["event: x", "", "data: y", ""]) == [ServerSentEvent(type: "message", data: "y")])
    }
}

@Suite struct ContentRangeTests {
    @Test func parsesStartEndAndTotal() {
        #expect(ContentRange("bytes 10-19/100") == ContentRange(start: 10, end: 19, total: 100))
        #expect(ContentRange("bytes 10-19/*")?.total == nil)
        #expect(ContentRange("bytes */100") == nil)
        #expect(ContentRange("items 1-2/3") == nil)
        #expect(ContentRange("bytes 9-1/10") == nil)
    }
}
