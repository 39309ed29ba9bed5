import Foundation
import TestScheduling
import Testing

/// Fields are sent as typed: a repeated name keeps every value in order, and raw JSON
/// (`name:=json`) keeps its text.
@Suite(.backgroundPriority) struct ReqFieldTests {
    private func url(_ path: String) throws -> String {
        "127.0.0.1:\(try server().port)\(path)"
    }

    private func echo(_ run: Run) throws -> Echo {
        try JSONDecoder().decode(Echo.self, from: run.stdout)
    }

    // MARK: Repeated names

    @Test func aRepeatedFormFieldKeepsEveryValueInOrder() async throws {
        let run = try await req(["--form", "POST", try url("/anything"), "a=2", "b=x", "a=1", "a=3", "u[k]=p", "u[k]=q"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try echo(run).form == [["a", "2"], ["a", "1"], ["a", "3"], ["b", "x"], ["u[k]", "p"], ["u[k]", "q"]])
        let offline = try await req(["--offline", "--form", "-p", "B", "example.org", "a=1", "a=2"])
        #expect(offline.output == "a=1&a=2\n")
    }

    @Test func repeatedQueryItemsAndQueryFieldsKeepEveryValue() async throws {
        #expect(try echo(try await req([try url("/anything"), "a==1", "a==2", "b==x"])).query == "a=1&a=2&b=x")
        #expect(try echo(try await req(["--query", try url("/anything"), "a=2", "a=1"])).query == "a=2&a=1")
    }

    @Test func aRepeatedJSONKeyBecomesAnArray() async throws {
        let run = try await req([try url("/anything"), "a=1", "a=2", "n:=3", "n:=4", "u[k]=p", "u[k]=q"])
        #expect(try echo(run).json == .object([
            "a": .array([.string("1"), .string("2")]), "n": .array([.number(3), .number(4)]),
            "u": .object(["k": .array([.string("p"), .string("q")])]),
        ]))
        let offline = try await req(["--offline", "-p", "B", "example.org", "a=1", "a=2", "a=3"])
        #expect(offline.output == "{\"a\":[\"1\",\"2\",\"3\"]}\n")
    }

    @Test func aNameUsedAsAValueAndAContainerIsStillAUsageError() async throws {
        let run = try await req(["--offline", "example.org", "a=1", "a[b]=2"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("\"a[b]\""))
    }

    // MARK: Raw JSON

    @Test func rawJSONIsSentExactlyAsTyped() async throws {
        let arguments = ["n:=12345678901234567890", "f:=1.0", "e:=1e3", "data:={\"n\": 1.50, \"a\": [1E+2]}", "z:=-0"]
        let run = try await req([try url("/anything")] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
        // In the command line's order, as httpie sends fields.
        let sent = #"{"n":12345678901234567890,"f":1.0,"e":1e3,"data":{"n": 1.50, "a": [1E+2]},"z":-0}"#
        #expect(try echo(run).bodyText == sent)
        let offline = try await req(["--offline", "POST", "example.org/raw"] + arguments)
        #expect(offline.output == withTransportHeaders("""
            POST /raw HTTP/1.1
            Host: example.org
            Accept: application/json, */*;q=0.5
            Content-Length: \(sent.utf8.count)
            Content-Type: application/json
            User-Agent: req/0.2.0

            \(sent)

            """))
    }

    @Test func rawJSONFromAFileKeepsItsText() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("{\"price\": 19.90}\n".utf8).write(to: directory.appendingPathComponent("p.json"))
        let run = try await req(["--offline", "-p", "B", "example.org", "p:=@p.json"], in: directory)
        #expect(run.output == "{\"p\":{\"price\": 19.90}}\n")
    }

    @Test func rawNumbersInFormsAndQueriesAreWrittenAsTyped() async throws {
        let form = try await req(["--form", try url("/anything"), "n:=12345678901234567890", "f:=1.0", "t:=true", "l:=[1.5,\"x\"]"])
        #expect(try echo(form).form == [["f", "1.0"], ["l[]", "1.5"], ["l[]", "x"], ["n", "12345678901234567890"], ["t", "1"]])
        let query = try await req(["--query", try url("/anything"), "e:=1e3"])
        #expect(try echo(query).query == "e=1e3")
    }

    @Test(arguments: [
        ("n:=1.", "a number needs a digit after \".\""),
        ("n:=01", "a number cannot start with a leading zero"),
        ("o:={\"a\":1,}", "expected a quoted key"),
        ("s:='x'", "expected a value"),
    ])
    func invalidRawJSONIsAUsageErrorNamingTheItem(item: String, reason: String) async throws {
        let run = try await req(["--offline", "example.org", item])
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("\"\(item)\""), "\(run.stderr)")
        #expect(run.stderr.contains(reason), "\(run.stderr)")
    }

    @Test func propertyListsRefuseANumberTheyCannotHold() async throws {
        let run = try await req(["--offline", "--plist", "example.org", "n:=12345678901234567890"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("at n: the integer 12345678901234567890 does not fit"), "\(run.stderr)")
    }
}
