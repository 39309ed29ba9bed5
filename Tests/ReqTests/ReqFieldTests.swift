import Foundation
import Testing

/// Fields are sent as typed: a repeated name keeps every value in order.
@Suite struct ReqFieldTests {
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
        #expect(run.status == 2)
        #expect(run.stderr.contains("\"a[b]\""))
    }
}
