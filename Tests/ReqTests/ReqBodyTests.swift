import Foundation
import TestScheduling
import Testing

/// Whole bodies (`--raw`, `@path`) and httpie's nested-JSON rules: top-level arrays, indexes,
/// appends, and the command line's key order.
@Suite(.backgroundPriority) struct ReqBodyTests {
    private func url(_ path: String) throws -> String {
        "127.0.0.1:\(try server().port)\(path)"
    }

    private func echo(_ run: Run) throws -> Echo {
        try JSONDecoder().decode(Echo.self, from: run.stdout)
    }

    @Test func rawTextIsTheBody() async throws {
        let run = try await req(["--raw", "{\"a\": 1.50}", try url("/anything")])
        #expect(run.status == 0, "\(run.stderr)")
        let echo = try echo(run)
        #expect(echo.method == "POST")
        #expect(echo.bodyText == "{\"a\": 1.50}")
        #expect(echo.header("Content-Type") == "application/json")
        let form = try self.echo(try await req(["--raw", "a=1&b=2", "--form", "PUT", try url("/anything")]))
        #expect(form.method == "PUT")
        #expect(form.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(form.bodyText == "a=1&b=2")
    }

    @Test func aFileIsTheWholeBodyLabelledByItsExtension() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = Data("{\"n\": 12345678901234567890}\n".utf8)
        try bytes.write(to: directory.appendingPathComponent("data.json"))
        try Data("<a/>".utf8).write(to: directory.appendingPathComponent("doc.xml"))
        try Data("plain".utf8).write(to: directory.appendingPathComponent("notes.unknown"))
        let json = try echo(try await req([try url("/anything"), "@data.json"], in: directory))
        #expect(json.method == "POST")
        #expect(json.bodyData == bytes)
        #expect(json.header("Content-Type") == "application/json")
        #expect(try echo(try await req([try url("/anything"), "@doc.xml"], in: directory)).header("Content-Type") == "application/xml")
        // An unknown extension is labelled as httpie labels a raw body: JSON, or the flag's type.
        #expect(try echo(try await req([try url("/anything"), "@notes.unknown"], in: directory)).header("Content-Type") == "application/json")
        let missing = try await req([try url("/anything"), "@nope.json"], in: directory)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("\"@nope.json\": cannot read nope.json"), "\(missing.stderr)")
    }

    @Test(arguments: [
        (["--raw", "x", "a=1"], "--raw is the request body, so request data items such as \"a=1\""),
        (["@data.json", "a=1"], "\"@data.json\" is the request body, so request data items such as \"a=1\""),
        (["--raw", "x", "@data.json"], "--raw and \"@data.json\" are both the whole request body"),
        (["--multipart", "--raw", "x"], "--multipart sends fields"),
    ])
    func oneWholeBodyAndNoFieldsBesideIt(arguments: [String], message: String) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("{}".utf8).write(to: directory.appendingPathComponent("data.json"))
        let run = try await req(["--offline", "example.org"] + arguments, in: directory)
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test func topLevelArrays() async throws {
        let appended = try await req([try url("/anything"), "[]:=1", "[]:=2", "[]=x"])
        #expect(try echo(appended).bodyText == "[1,2,\"x\"]")
        let indexed = try await req([try url("/anything"), "[0]=a", "[1]=b"])
        #expect(try echo(indexed).json == .array([.string("a"), .string("b")]))
        let objects = try await req([try url("/anything"), "[][name]=x", "[][name]=y"])
        #expect(try echo(objects).bodyText == #"[{"name":"x"},{"name":"y"}]"#)
    }

    @Test func indexesMakeArraysAndBracketsAppend() async throws {
        let run = try await req([try url("/anything"), "a[0]=x", "a[1]=y", "b[2]=z", "c[]=1", "c[]=2", "c[2]=3",
                                 "d[0][k]=1", "d[0][l]=2", "e[][k]=1", "e[][k]=2", "f\\[x\\]=literal"])
        #expect(run.status == 0, "\(run.stderr)")
        let body = try echo(run).bodyText
        #expect(body == #"{"a":["x","y"],"b":[null,null,"z"],"c":["1","2","3"],"#
            + #""d":[{"k":"1","l":"2"}],"e":[{"k":"1"},{"k":"2"}],"f[x]":"literal"}"#, "\(body)")
    }

    @Test func jsonKeepsTheCommandLinesKeyOrderUnlessSorted() async throws {
        let ordered = try await req(["--offline", "-p", "B", "example.org", "zeta=1", "alpha[b]=2", "alpha[a]=3", "mid:=4"])
        #expect(ordered.output == #"{"zeta":"1","alpha":{"b":"2","a":"3"},"mid":4}"# + "\n")
        let sorted = try await req(["--offline", "--sorted", "-p", "B", "example.org", "zeta=1", "alpha[b]=2", "alpha[a]=3", "mid:=4"])
        #expect(sorted.output == #"{"alpha":{"a":"3","b":"2"},"mid":4,"zeta":"1"}"# + "\n")
        // What reaches the server is what --offline shows.
        let sent = try echo(try await req([try url("/anything"), "zeta=1", "alpha[b]=2", "alpha[a]=3", "mid:=4"]))
        #expect(sent.bodyText + "\n" == ordered.output)
    }

    @Test(arguments: [
        ("[]:=1 a=1", "\"a=1\": the field \"a\" needs the body to be an object, but the body is already an array (from \"[]:=1\")"),
        ("a[b]=1 a[0]=2", "\"a[0]=2\": the field \"a[0]\" needs a to be an array, but a is already an object"),
        ("a[0]=x a[0]=y", "\"a[0]=y\": a[0] is set twice"),
        ("a[x=1", "\"a[x=1\": a \"[\" is not closed in the field name \"a[x\""),
        ("a[-1]=1", "negative indexes such as [-1] are not supported"),
        ("[x]=1", "a top-level array takes [] or [index], not [x]"),
    ])
    func malformedOrClashingNamesAreUsageErrors(items: String, message: String) async throws {
        let run = try await req(["--offline", "example.org"] + items.split(separator: " ").map(String.init))
        #expect(run.status == 1)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test func formsKeepIndexesAsTypedAndRefuseTopLevelArrays() async throws {
        let form = try await req(["--form", try url("/anything"), "a[0]=x", "a[1]=y"])
        #expect(try echo(form).form == [["a[0]", "x"], ["a[1]", "y"]])
        let array = try await req(["--offline", "--form", "example.org", "[]=x"])
        #expect(array.status == 1)
        #expect(array.stderr.contains("only JSON can send"))
    }
}
