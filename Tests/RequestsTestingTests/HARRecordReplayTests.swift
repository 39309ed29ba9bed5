import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackFixture
import Requests
import RequestsTesting
import Testing

/// Recording real loopback traffic to HAR 1.2, reading it back (also with python's `json`), and
/// replaying it offline.
@Suite struct HARRecordReplayTests {
    private func server() throws -> LoopbackServer { try LoopbackServer.shared.get() }

    private func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("har-\(UUID().uuidString)-\(name)")
    }

    /// Records a GET with a query and credentials, a JSON POST, a 404 and a binary body.
    private func record(redactsCredentials: Bool = true) async throws -> (RecordingTransport, URL) {
        let base = try server().baseURL
        let recorder = RecordingTransport(wrapping: URLSessionTransport(configuration: .ephemeral), redactsCredentials: redactsCredentials)
        let session = Session(transport: recorder, cookies: .none)
        let get = try await session.request(
            base.appendingPathComponent("anything/users"), parameters: ["page": 2, "q": "a b"],
            headers: ["Authorization": "Bearer secret-token", "Cookie": "id=secret-cookie"]
        )
        #expect(get.statusCode == 200)
        let post = try await session.request(
            base.appendingPathComponent("anything/items"), method: .post, parameters: ["name": "Ada"], encoding: JSONEncoding.default
        )
        #expect(post.statusCode == 200)
        #expect(try await session.request(base.appendingPathComponent("status/404")).statusCode == 404)
        #expect(try await session.request(base.appendingPathComponent("bytes/300")).data.count == 300)
        try await session.shutdown()
        return (recorder, base)
    }

    @Test func aRealExchangeIsWrittenAsHAR12AndPythonReadsIt() async throws {
        let (recorder, base) = try await record()
        let file = temporaryFile("real.har")
        defer { try? FileManager.default.removeItem(at: file) }
        try recorder.write(to: file)

        // The structure HAR 1.2 requires, field by field, from the JSON itself.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let log = try #require(json["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2")
        #expect((log["creator"] as? [String: Any])?["name"] is String)
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(entries.count == 4)
        for entry in entries {
            for field in ["startedDateTime", "time", "request", "response", "cache", "timings"] {
                #expect(entry[field] != nil, "an entry lacks \(field)")
            }
            let request = try #require(entry["request"] as? [String: Any])
            for field in ["method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"] {
                #expect(request[field] != nil, "a request lacks \(field)")
            }
            let response = try #require(entry["response"] as? [String: Any])
            for field in ["status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize", "bodySize"] {
                #expect(response[field] != nil, "a response lacks \(field)")
            }
            let content = try #require(response["content"] as? [String: Any])
            #expect(content["size"] is Int && content["mimeType"] is String)
            let timings = try #require(entry["timings"] as? [String: Any])
            for field in ["send", "wait", "receive"] {
                #expect((timings[field] as? Double).map { $0 >= 0 } == true, "timings.\(field) is missing or negative")
            }
        }

        // Python's json reads it as a HAR viewer would.
        let script = """
            import json, sys
            log = json.load(open(sys.argv[1]))["log"]
            assert log["version"] == "1.2", log["version"]
            for e in log["entries"]:
                r, s, t = e["request"], e["response"], e["timings"]
                assert r["method"] and r["url"].startswith("http://127.0.0.1:"), r
                assert isinstance(s["status"], int) and isinstance(s["content"]["size"], int), s
                assert all(t[k] >= 0 for k in ("send", "wait", "receive")), t
            print(len(log["entries"]), " ".join(e["request"]["method"] + ":" + str(e["response"]["status"]) for e in log["entries"]))
            """
        let output = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), arguments: ["python3", "-c", script, file.path])
        #expect(output.status == 0, "python3: \(String(decoding: output.stderr, as: UTF8.self))")
        #expect(String(decoding: output.stdout, as: UTF8.self) == "4 GET:200 POST:200 GET:404 GET:200\n")

        let har = try HAR(contentsOf: file)
        #expect(har == recorder.har)
        let first = try #require(har.log.entries.first)
        #expect(first.request.url.hasPrefix(base.absoluteString + "/anything/users?"))
        #expect(first.request.queryString.contains(HAR.NameValue(name: "q", value: "a b")))
        #expect(har.log.entries[1].request.postData?.text == "{\"name\":\"Ada\"}")
        #expect(har.log.entries[1].request.postData?.mimeType.hasPrefix("application/json") == true)
        #expect(har.log.entries[3].response.content.encoding == "base64")
    }

    @Test func credentialsAreRedactedUnlessAskedNotTo() async throws {
        let (redacting, _) = try await record()
        let headers = try #require(redacting.har.log.entries.first).request.headers
        #expect(headers.first { $0.name == "Authorization" }?.value == "[redacted]")
        #expect(headers.first { $0.name == "Cookie" }?.value == "[redacted]")
        // Only the server's echo, in the response body, still shows them.
        #expect(!headers.contains { $0.value.contains("secret") })

        let (keeping, _) = try await record(redactsCredentials: false)
        let kept = try #require(keeping.har.log.entries.first).request.headers
        #expect(kept.first { $0.name == "Authorization" }?.value == "Bearer secret-token")
    }

    @Test func aRecordingReplaysOfflineStrictly() async throws {
        let (recorder, base) = try await record()
        let replay = ReplayTransport(recorder.har)
        let session = Session(transport: replay, cookies: .none)
        let get = try await session.request(base.appendingPathComponent("anything/users"), parameters: ["page": 2, "q": "a b"])
        #expect(get.statusCode == 200)
        #expect(get.text.contains("\"path\": \"/anything/users\"") || get.text.contains("/anything/users"))
        let post = try await session.request(
            base.appendingPathComponent("anything/items"), method: .post, parameters: ["name": "Ada"], encoding: JSONEncoding.default
        )
        #expect(post.statusCode == 200)
        #expect(try await session.request(base.appendingPathComponent("status/404")).statusCode == 404)
        let bytes = try await session.request(base.appendingPathComponent("bytes/300")).data
        #expect(bytes == Data((0..<300).map { UInt8($0 % 256) }))
        #expect(replay.unusedEntries.isEmpty)

        // Strict: each entry once, and nothing unrecorded.
        let again = await #expect(throws: RequestError.self) { try await session.request(base.appendingPathComponent("status/404")) }
        #expect(again?.description.contains("all replayed (strict mode)") == true)
        let never = await #expect(throws: RequestError.self) { try await session.request(base.appendingPathComponent("status/500")) }
        #expect(never?.description.contains("no recorded entry in the HAR file matches GET \(base.absoluteString)/status/500") == true)
        // The query in another order is another URL in strict mode.
        await #expect(throws: RequestError.self) {
            try await session.request(try #require(URL(string: base.absoluteString + "/anything/users?q=a%20b&page=2")))
        }
    }

    @Test func lenientReplayIgnoresQueryOrderAndRepeatsTheLastEntry() async throws {
        let (recorder, base) = try await record()
        let replay = ReplayTransport(recorder.har, mode: .lenient, matchingBody: true)
        let session = Session(transport: replay, cookies: .none)
        let url = try #require(URL(string: base.absoluteString + "/anything/users?q=a%20b&page=2"))
        #expect(try await session.request(url).statusCode == 200)
        #expect(try await session.request(url).statusCode == 200)
        // JSON bodies compare by value; another value is another request.
        let items = base.appendingPathComponent("anything/items")
        let same = try await session.request(items, method: .post, body: DataBody(Data("{ \"name\" : \"Ada\" }".utf8), additionalHeaders: ["Content-Type": "application/json"]))
        #expect(same.statusCode == 200)
        await #expect(throws: RequestError.self) {
            try await session.request(items, method: .post, parameters: ["name": "Bob"], encoding: JSONEncoding.default)
        }
    }

    @Test func aFailureIsRecordedAndReplayedWithItsKind() async throws {
        let base = try server().baseURL
        let recorder = RecordingTransport(wrapping: URLSessionTransport(configuration: .ephemeral))
        let session = Session(transport: recorder, cookies: .none)
        let live = await #expect(throws: RequestError.self) { try await session.request(base.appendingPathComponent("close")) }
        try await session.shutdown()
        let entry = try #require(recorder.har.log.entries.first)
        #expect(entry.response.status == 0)
        #expect(entry.response.errorKind == live?.transportErrorKind?.description)

        let replayed = await #expect(throws: RequestError.self) {
            try await Session(transport: ReplayTransport(recorder.har), cookies: .none).request(base.appendingPathComponent("close"))
        }
        #expect(replayed?.transportErrorKind == live?.transportErrorKind)
    }

    @Test func aBodyCancelledMidwayIsRecordedAsFarAsItCameWithAComment() async throws {
        let base = try server().baseURL
        let recorder = RecordingTransport(wrapping: URLSessionTransport(configuration: .ephemeral))
        let session = Session(transport: recorder, cookies: .none)
        let stream = try await session.stream(base.appendingPathComponent("drip/har-\(UUID().uuidString.prefix(8))").absoluteString + "?bytes=8192&chunk=1024&interval_ms=100")
        var chunks = stream.body.makeAsyncIterator()
        let first = try #require(try await chunks.next())
        stream.body.cancel()
        try await session.shutdown()
        let content = try #require(recorder.har.log.entries.first).response.content
        #expect(content.size == first.count)
        #expect(content.comment == "the body was cancelled after \(first.count) bytes")
    }

    @Test func twoHundredConcurrentExchangesAreEachRecordedWhole() async throws {
        let stub = StubTransport()
        for index in 0..<200 {
            stub.on(.post, URLPattern.path("/items/\(index)"), respond: .text("item \(index)", status: 201))
        }
        let recorder = RecordingTransport(wrapping: stub)
        let session = Session(transport: recorder, cookies: .none)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let response = try await session.request("https://api.example/items/\(index)", method: .post, parameters: ["n": index])
                    #expect(response.text == "item \(index)")
                }
            }
            try await group.waitForAll()
        }
        let entries = recorder.har.log.entries
        #expect(entries.count == 200)
        // Each entry pairs its own request with its own response.
        for entry in entries {
            let index = try #require(entry.request.url.split(separator: "/").last.map(String.init))
            #expect(entry.request.postData?.text == "n=\(index)")
            #expect(entry.response.content.text == "item \(index)")
            #expect(entry.response.status == 201)
        }
        #expect(Set(entries.map(\.request.url)).count == 200)
    }

    @Test func aFileIsRecordedOnceAndReplayedAfter() async throws {
        let base = try server().baseURL
        let file = temporaryFile("cassette.har")
        defer { try? FileManager.default.removeItem(at: file) }
        let url = base.appendingPathComponent("anything/cassette")

        let first = try ReplayTransport.replaying(file, orRecordingThrough: URLSessionTransport(configuration: .ephemeral))
        #expect(first is RecordingTransport)
        let recording = Session(transport: first, cookies: .none)
        let live = try await recording.request(url)
        try await recording.shutdown()
        #expect(FileManager.default.fileExists(atPath: file.path))

        let second = try ReplayTransport.replaying(file, orRecordingThrough: StubTransport())
        #expect(second is ReplayTransport)
        let replayed = try await Session(transport: second, cookies: .none).request(url)
        #expect(replayed.data == live.data)
        #expect(replayed.statusCode == live.statusCode)
    }
}
