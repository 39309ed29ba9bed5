import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests
import RequestsTesting
import Testing

/// A recording replays with the outcome the live run had: failures midway, timeouts, repeated
/// fields, exact bytes, hidden secrets; and files from other tools are read.
@Suite struct HARFidelityTests {
    private let quickRetry = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2))

    @Test func aBodyThatFailedMidwayReplaysFailingAndTheRetryAfterIt() async throws {
        let stub = StubTransport()
        stub.on(.get, "/report", respond: .stream([Data("part".utf8)], failingWith: .connectionLost), .text("whole body"))
        let recorder = RecordingTransport(wrapping: stub)
        let live = try await Session(transport: recorder, interceptors: [quickRetry]).request("https://a.example/report")
        #expect(live.text == "whole body")
        let har = recorder.har
        #expect(har.log.entries.map(\.response.content.errorKind) == ["connectionLost", nil])

        let replayed = try await Session(transport: ReplayTransport(har), interceptors: [quickRetry]).request("https://a.example/report")
        #expect(replayed.text == "whole body")
        #expect(replayed.failedAttempts.count == 1)
        // Without a retry, the replayed body fails where the live one did.
        let error = await #expect(throws: RequestError.self) {
            try await Session(transport: ReplayTransport(har)).request("https://a.example/report")
        }
        #expect(error?.transportErrorKind == .connectionLost)
    }

    /// The first trip waits 30 s for a head and times out at 200 ms; the retry's answer is at
    /// once, but on a loaded machine the process may stall past 200 ms before its head or its
    /// body is read, so a few more tries are allowed: every trip before the last is recorded as
    /// timed out (before its head, or in its body), and the replay fails the same trips the same way.
    @Test func aTripTheSessionTimedOutIsRecordedAsTimedOutAndReplaysSo() async throws {
        let entries = try await recordAndReplay(path: "/slow") {
            let stub = StubTransport()
            stub.on(.get, "/slow", respond: StubResponse.text("late").delayed(by: .seconds(30)), .text("quick"))
            return stub
        }
        #expect(entries.first?.response.status == 0)
    }

    /// The same for a body that stalls after its head: the trip is recorded with its head and the
    /// part that came, ending `timedOut`, not as a cancel (which a replay would not retry).
    @Test func aBodyTheSessionTimedOutIsRecordedAsTimedOutAndReplaysSo() async throws {
        let entries = try await recordAndReplay(path: "/stall") {
            let stub = StubTransport()
            stub.on(.get, "/stall", respond: .stream([Data("part".utf8), Data("rest".utf8)], every: .seconds(30)), .text("quick"))
            return stub
        }
        if let first = entries.first, first.response.status != 0 {
            // What came is recorded; a head that arrived just as the limit passed (a loaded
            // machine) is cut off before its first chunk is read, and recorded so.
            let comment = first.response.content.comment ?? ""
            #expect(first.response.content.text == "part" || comment.contains("after 0 bytes"), "\(comment)")
            #expect(comment.contains("timed out"))
        }
    }

    /// Records `path` over a stub from `makeStub` with a 200 ms idle limit and retries, checks
    /// that every trip before the answer is recorded as timed out, replays the file and checks
    /// the same trips fail the same way; returns the entries. When a loaded machine holds the
    /// process back past the limit on every try (the quick answer too), the recording starts
    /// over with a limit three times as long, up to 5.4 s.
    private func recordAndReplay(path: String, _ makeStub: () -> StubTransport) async throws -> [HAR.Entry] {
        let retry = RetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2))
        var idle = Duration.milliseconds(200)
        var recording: RecordingTransport?
        for round in 0..<4 {
            let recorder = RecordingTransport(wrapping: makeStub())
            recording = recorder
            let session = Session(transport: recorder, idleTimeout: idle, interceptors: [retry])
            do {
                #expect(try await session.request("https://a.example" + path).text == "quick")
                break
            } catch let error as RequestError where error.code == .timedOut && round < 3 {
                idle *= 3
            }
        }
        let recorder = try #require(recording)
        let entries = recorder.har.log.entries
        #expect(entries.count >= 2)
        #expect(entries.last?.response.status == 200)
        let timedOut = { (entry: HAR.Entry) in
            entry.response.status == 0 ? entry.response.errorKind == "timedOut" : entry.response.content.errorKind == "timedOut"
        }
        #expect(entries.dropLast().allSatisfy(timedOut),
                "\(entries.map { ($0.response.status, $0.response.errorKind ?? "", $0.response.content.errorKind ?? "") })")

        let replay = Session(transport: ReplayTransport(recorder.har), interceptors: [retry])
        let replayed = try await replay.request("https://a.example" + path)
        #expect(replayed.text == "quick")
        #expect(replayed.failedAttempts.count == entries.count - 1)
        #expect(replayed.failedAttempts.allSatisfy { $0.description.contains("timed out") },
                "\(replayed.failedAttempts.map(\.description))")
        return entries
    }

    @Test func aCallerCancelledBeforeTheHeadLeavesNoEntry() async throws {
        let stub = StubTransport()
        stub.on(respond: StubResponse.status(200).delayed(by: .seconds(30)))
        let recorder = RecordingTransport(wrapping: stub)
        let session = Session(transport: recorder)
        let call = Task { try await session.request("https://a.example/") }
        try await Task.sleep(for: .milliseconds(100))
        call.cancel()
        _ = await call.result
        #expect(recorder.har.log.entries.isEmpty)
    }

    @Test func repeatedFieldsStatusTextsAndExactBytesSurviveTheRoundTrip() async throws {
        var headers = HTTPHeaders()
        headers.append(name: "Set-Cookie", value: "a=1")
        headers.append(name: "Set-Cookie", value: "b=2")
        let bom = Data([0xEF, 0xBB, 0xBF]) + Data("text".utf8)
        let stub = StubTransport()
        stub.on(.get, "/cookies", respond: .status(200, headers: headers))
        stub.on(.get, "/bom", respond: .data(bom))
        stub.on(.get, "/teapot", respond: .status(418))
        let recorder = RecordingTransport(wrapping: stub, redactsCredentials: false)
        let session = Session(transport: recorder, cookies: .none)
        for path in ["/cookies", "/bom", "/teapot"] { _ = try await session.request("https://a.example" + path) }
        let har = try JSONDecoder().decode(HAR.self, from: recorder.har.jsonData())
        #expect(har.log.entries.map(\.response.statusText) == ["OK", "OK", ""])
        for entry in har.log.entries {
            // HAR's `time` is the sum of the timings; each is rounded to the microsecond.
            #expect(abs(entry.time - (entry.timings.send + entry.timings.wait + entry.timings.receive)) <= 0.002,
                    "\(entry.time) ≠ \(entry.timings.send) + \(entry.timings.wait) + \(entry.timings.receive)")
        }

        let replay = Session(transport: ReplayTransport(har), cookies: .none)
        let cookies = try await replay.request("https://a.example/cookies")
        #expect(cookies.head.headers.values(for: "Set-Cookie") == ["a=1", "b=2"])
        #expect(try await replay.request("https://a.example/bom").data == bom)
        #expect(try await replay.request("https://a.example/teapot").statusCode == 418)
    }

    @Test func secretsInHeadersURLsAndQueriesAreHiddenAndStillReplay() async throws {
        let stub = StubTransport()
        stub.on(.get, "/data", respond: .status(200, headers: ["set-cookie": "session=s3cret"]))
        let recorder = RecordingTransport(wrapping: stub, redactedHeaders: ["X-Api-Key"], redactedQueryItems: ["api_key"])
        let session = Session(transport: recorder, cookies: .none)
        _ = try await session.request(
            "https://user:pa55@a.example/data?api_key=k3y&page=2", headers: ["authorization": "Bearer t0ken", "X-Api-Key": "k3y"]
        )
        let text = String(decoding: try recorder.har.jsonData(), as: UTF8.self)
        for secret in ["pa55", "k3y", "t0ken", "s3cret", "user:"] {
            #expect(!text.contains(secret), "\(secret) was recorded")
        }
        let entry = try #require(recorder.har.log.entries.first)
        #expect(entry.request.url == "https://a.example/data?api_key=%5Bredacted%5D&page=2")
        #expect(entry.request.queryString.contains(HAR.NameValue(name: "api_key", value: "[redacted]")))

        // The recording replays the request with its real secrets.
        let replayed = try await Session(transport: ReplayTransport(recorder.har), cookies: .none)
            .request("https://user:pa55@a.example/data?api_key=other&page=2")
        #expect(replayed.statusCode == 200)
    }

    @Test func strictReplayAnswersEachEntryInTurnAndLenientRepeatsTheLast() async throws {
        let stub = StubTransport()
        stub.on(.get, "/n", respond: .text("1"), .text("2"))
        let recorder = RecordingTransport(wrapping: stub)
        let session = Session(transport: recorder)
        _ = try await session.request("https://a.example/n")
        _ = try await session.request("https://a.example/n")

        let strict = Session(transport: ReplayTransport(recorder.har))
        #expect(try await strict.request("https://a.example/n").text == "1")
        #expect(try await strict.request("https://a.example/n").text == "2")
        await #expect(throws: RequestError.self) { try await strict.request("https://a.example/n") }

        let lenient = Session(transport: ReplayTransport(recorder.har, mode: .lenient))
        #expect(try await lenient.request("https://a.example/n").text == "1")
        #expect(try await lenient.request("https://a.example/n").text == "2")
        #expect(try await lenient.request("https://a.example/n").text == "2")
    }

    @Test func binaryAndStreamedRequestBodiesAreRecordedWholeAndMatchOnReplay() async throws {
        let stub = StubTransport()
        stub.on(.put, "/blob", respond: .status(201))
        let recorder = RecordingTransport(wrapping: stub)
        let session = Session(transport: recorder)
        let binary = Data([0, 0xFF, 0xFE, 10])
        let parts = AsyncStream<Data> { continuation in
            continuation.yield(binary)
            continuation.yield(Data("tail".utf8))
            continuation.finish()
        }
        let upload = session.upload(.stream(parts, length: nil), to: "https://a.example/blob", method: .put)
        #expect(try await upload.response().statusCode == 201)
        let postData = try #require(recorder.har.log.entries.first?.request.postData)
        #expect(postData.encoding == "base64")
        #expect(Data(base64Encoded: postData.text ?? "") == binary + Data("tail".utf8))

        let replay = Session(transport: ReplayTransport(recorder.har, matchingBody: true))
        let same = replay.upload(.data(binary + Data("tail".utf8)), to: "https://a.example/blob", method: .put)
        #expect(try await same.response().statusCode == 201)
    }

    @Test func aFileFromAnotherToolIsReadLeavingOutWhatHAROnlyAllows() throws {
        let json = """
            {"log": {"version": "1.2", "creator": {"name": "devtools", "version": "1"}, "pages": [],
             "entries": [{"startedDateTime": "2026-11-23T10:00:00.000Z", "time": 12.5, "pageref": "p1",
              "request": {"method": "POST", "url": "https://a.example/form", "httpVersion": "HTTP/2", "cookies": [],
                "headers": [], "queryString": [], "headersSize": -1, "bodySize": 3,
                "postData": {"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "a", "value": "1"}]}},
              "response": {"status": 200, "statusText": "", "httpVersion": "HTTP/2", "cookies": [], "headers": [],
                "content": {"size": 2, "mimeType": "text/plain", "text": "ok"}, "redirectURL": "", "headersSize": -1, "bodySize": 2},
              "cache": {"beforeRequest": null, "afterRequest": {"lastAccess": "x"}},
              "timings": {"send": 1, "wait": 10, "receive": 1.5}}]}}
            """
        let har = try JSONDecoder().decode(HAR.self, from: Data(json.utf8))
        let entry = try #require(har.log.entries.first)
        #expect(entry.timings.blocked == -1 && entry.timings.ssl == -1)
        #expect(entry.request.postData?.text == nil)
        #expect(entry.response.content.text == "ok")
    }
}
