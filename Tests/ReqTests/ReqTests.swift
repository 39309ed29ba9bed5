import Foundation
import TestScheduling
import Testing

/// `req --offline`: the exact request, byte for byte.
@Suite(.backgroundPriority) struct ReqOfflineTests {
    @Test func getWithANestedQuery() async throws {
        let run = try await req(["--offline", "--query", "example.org/search", "filter[lang]=swift", "tags[]=a", "tags[]=b", "page:=2", "q==x"])
        #expect(run.status == 0)
        #expect(run.output == withTransportHeaders("""
            GET /search?q=x&filter%5Blang%5D=swift&page=2&tags%5B%5D=a&tags%5B%5D=b HTTP/1.1
            Host: example.org
            Accept: */*
            User-Agent: req/0.2.0


            """))
    }

    @Test func jsonWithNestedAndRawJSONFields() async throws {
        let run = try await req(["--offline", "--sorted", "POST", "example.org/users", "name=Arthur", "age:=42", "admin:=true", "user[roles][]=x", "meta:={\"a\":[1,null]}"])
        #expect(run.output == withTransportHeaders("""
            POST /users HTTP/1.1
            Host: example.org
            Accept: application/json, */*;q=0.5
            Content-Length: 84
            Content-Type: application/json
            User-Agent: req/0.2.0

            {"admin":true,"age":42,"meta":{"a":[1,null]},"name":"Arthur","user":{"roles":["x"]}}

            """))
    }

    @Test func form() async throws {
        let run = try await req(["--offline", "--form", "example.org/form", "name=Arthur Dent", "tags[]=a", "ok:=true"])
        #expect(run.output == withTransportHeaders("""
            POST /form HTTP/1.1
            Host: example.org
            Accept: */*
            Content-Length: 36
            Content-Type: application/x-www-form-urlencoded; charset=utf-8
            User-Agent: req/0.2.0

            name=Arthur%20Dent&ok=1&tags%5B%5D=a

            """))
    }

    @Test func multipartWithAFile() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("hello file\n".utf8).write(to: directory.appendingPathComponent("hello.txt"))
        let run = try await req(["--offline", "--form", "--boundary", "XyZ", "example.org/upload", "title=Hi", "file@hello.txt"], in: directory)
        let body = "--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHi\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"hello.txt\"\r\nContent-Type: text/plain\r\n\r\nhello file\n\r\n"
            + "--XyZ--\r\n"
        #expect(run.output == withTransportHeaders("""
            POST /upload HTTP/1.1
            Host: example.org
            Accept: */*
            Content-Length: \(body.utf8.count)
            Content-Type: multipart/form-data; boundary=XyZ
            User-Agent: req/0.2.0


            """) + body)
    }

    @Test func plist() async throws {
        let run = try await req(["--offline", "--plist", "example.org/p", "a=1", "b:=2"])
        let body = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>a</key>
            \t<string>1</string>
            \t<key>b</key>
            \t<integer>2</integer>
            </dict>
            </plist>

            """
        #expect(run.output == withTransportHeaders("""
            POST /p HTTP/1.1
            Host: example.org
            Accept: */*
            Content-Length: \(body.utf8.count)
            Content-Type: application/x-plist
            User-Agent: req/0.2.0


            """) + body)
    }

    @Test func arraysAndBoolsOptions() async throws {
        let index = try await req(["--offline", "--query", "-p", "H", "example.org/", "a[]=x", "a[]=y", "b:=true", "--arrays", "index", "--bools", "literal"])
        #expect(index.output.hasPrefix("GET /?a%5B0%5D=x&a%5B1%5D=y&b=true HTTP/1.1\n"))
        let bare = try await req(["--offline", "--query", "-p", "H", "example.org/", "a[]=x", "a[]=y", "--arrays", "no-brackets"])
        #expect(bare.output.hasPrefix("GET /?a=x&a=y HTTP/1.1\n"))
    }

    @Test func binaryPlist() async throws {
        let run = try await req(["--offline", "--plist-binary", "-p", "B", "example.org/", "a=1"])
        #expect(run.stdout.starts(with: Data("bplist00".utf8)))
    }

    @Test func urlsWithoutSchemeOrHost() async throws {
        #expect(try await req(["--offline", "-p", "H", ":8080/x"]).output.contains("Host: localhost:8080\n"))
        #expect(try await req(["--offline", "-p", "H", "localhost:9/x"]).output.hasPrefix("GET /x HTTP/1.1\nHost: localhost:9\n"))
        #expect(try await req(["--offline", "-p", "H", "example.org"]).output.hasPrefix("GET / HTTP/1.1\nHost: example.org\n"))
    }

    @Test func escapedSeparatorsStayInTheName() async throws {
        let run = try await req(["--offline", "-p", "B", "example.org/", "a\\=b=c", "x\\:y:=1"])
        #expect(run.output == "{\"a=b\":\"c\",\"x:y\":1}\n")
    }

    @Test func usageErrorsExitWith1AndNameTheItem() async throws {
        let bad = try await req(["example.org", "nonsense"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("\"nonsense\""))
        #expect(bad.stderr.split(separator: "\n").count == 1)
        let badJSON = try await req(["--offline", "example.org", "n:={oops"])
        #expect(badJSON.status == 1)
        #expect(badJSON.stderr.contains("n:={oops"))
        #expect(try await req(["--bogus", "example.org"]).status == 1)
        let injected = try await req(["--offline", "example.org", "X-Test:a\r\nInjected: 1"])
        #expect(injected.status == 1)
        #expect(injected.stderr.contains("X-Test"))
        #expect(injected.stdout.isEmpty)
        let json = try await req(["--offline", "--json", "-p", "B", "example.org", "a=1"])
        #expect(json.output == "{\"a\":\"1\"}\n")
        #expect(try await req([]).status == 1)
    }

    @Test func helpAndVersion() async throws {
        let help = try await req(["--help"])
        #expect(help.status == 0)
        for spec in ["--offline", "--form", "--download", "--stream", "--session", "--check-status", "examples:"] {
            #expect(help.output.contains(spec), "help lacks \(spec)")
        }
        #expect(try await req(["--version"]).output == "req 0.2.0\n")
    }
}
