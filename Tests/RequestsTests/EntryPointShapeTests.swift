import Foundation
import LoopbackFixture
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// Every public entry point of `Session` takes one parameter list, in one order, with the same
/// defaults: what a call says first (the URL and method, then what goes in the request, then its
/// headers), then how it runs (`timeout`, `interceptors`, `redirectPolicy`, `options`), then what
/// only that kind of call has (a download's file, an event stream's reconnection).
@Suite struct EntryPointShapeTests {
    /// The shared parameters, in their order, with their defaults. `method` defaults to `GET`
    /// everywhere but on `upload`, whose call is named for its body (`POST`, as Alamofire's).
    static let shared: [(label: String, defaultValue: String?)] = [
        ("method", ".get"), ("headers", "nil"), ("timeout", "nil"),
        ("interceptors", "[]"), ("redirectPolicy", "nil"), ("options", "nil"),
    ]

    /// Every public entry point, as the sources declare it: its name and labels (a new entry point
    /// fails this test until it joins the table, and so its shape is checked).
    static let table: [String] = [
        "request(_:method:parameters:encoding:headers:timeout:interceptors:redirectPolicy:options:)",
        "request(_:method:body:headers:timeout:interceptors:redirectPolicy:options:)",
        "request(_:method:parameters:encoder:headers:timeout:interceptors:redirectPolicy:options:)",
        "request(_:method:parameters:headers:timeout:interceptors:redirectPolicy:options:)",
        "request(_:timeout:interceptors:redirectPolicy:options:)",
        "stream(_:method:parameters:encoding:headers:timeout:interceptors:redirectPolicy:options:)",
        "stream(_:timeout:interceptors:redirectPolicy:options:)",
        "download(_:method:parameters:encoding:headers:timeout:interceptors:redirectPolicy:options:to:resumable:)",
        "download(_:timeout:interceptors:redirectPolicy:options:to:resumable:)",
        "upload(multipart:to:method:headers:timeout:interceptors:redirectPolicy:options:)",
        "upload(_:to:method:headers:timeout:interceptors:redirectPolicy:options:)",
        "events(_:method:parameters:encoding:headers:timeout:interceptors:redirectPolicy:options:reconnection:)",
        "events(_:timeout:interceptors:redirectPolicy:options:reconnection:)",
        "requestBlocking(_:method:parameters:encoding:headers:timeout:interceptors:redirectPolicy:options:)",
        "requestBlocking(_:timeout:interceptors:redirectPolicy:options:)",
        "webSocket(_:protocols:headers:timeout:interceptors:redirectPolicy:options:configuration:)",
        "withWebSocket(_:protocols:headers:timeout:interceptors:redirectPolicy:options:configuration:_:)",
    ]

    /// Parameters that several entry points share besides the list above, with their one default.
    static let sameEverywhere: [String: String] = [
        "encoding": "URLEncoding.default", "resumable": "false", "reconnection": ".default",
        "protocols": "[]", "configuration": "WebSocketOptions()",
    ]

    @Test func everyEntryPointIsInTheTable() throws {
        let declared = try Self.entryPoints().map(\.signature)
        #expect(declared.sorted() == Self.table.sorted())
        // Every public method of the Session files is an entry point or one of these (a new
        // verb, such as `webSocket`, must join the table); `Session` is extended nowhere else.
        let others: Set<String> = ["shutdown", "response", "cancel"]
        let methods = try Self.sessionFiles().flatMap { Self.publicMethodNames(in: $0.text) }
        #expect(Set(methods).subtracting(Self.names).subtracting(others).isEmpty, "\(Set(methods).subtracting(Self.names).subtracting(others))")
        let sources = Self.root.appendingPathComponent("Sources/Requests")
        let enumerator = FileManager.default.enumerator(atPath: sources.path)
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            if text.contains("extension Session {") || text.contains("extension Session:") {
                #expect(path.hasPrefix("Session/Session"), "\(path) extends Session outside Sources/Requests/Session/Session*.swift")
            }
        }
    }

    @Test func theSharedParametersComeInOneOrderWithOneDefault() throws {
        for entry in try Self.entryPoints() {
            let labels = entry.parameters.map(\.label)
            // The shared ones present, in the shared order, and the run settings on every one.
            let present = Self.shared.filter { labels.contains($0.label) }
            #expect(labels.filter { label in Self.shared.contains { $0.label == label } } == present.map(\.label), "\(entry.signature)")
            for required in ["timeout", "interceptors", "redirectPolicy", "options"] {
                #expect(labels.contains(required), "\(entry.signature) has no \(required):")
            }
            // What goes in the request comes before the headers; what only this kind has, last.
            if let headers = labels.firstIndex(of: "headers"), let method = labels.firstIndex(of: "method") {
                #expect(method < headers, "\(entry.signature)")
            }
            if let options = labels.firstIndex(of: "options") {
                let after = labels[(options + 1)...]
                #expect(after.allSatisfy { ["to", "resumable", "reconnection", "configuration", "_"].contains($0) }, "\(entry.signature)")
            }
            for parameter in entry.parameters {
                var expected = Self.shared.first { $0.label == parameter.label }?.defaultValue ?? Self.sameEverywhere[parameter.label]
                if parameter.label == "method", entry.name == "upload" { expected = ".post" }
                if parameter.label == "parameters" { expected = parameter.type.hasSuffix("?") ? "nil" : nil }
                if let expected {
                    #expect(parameter.defaultValue == expected, "\(entry.signature): \(parameter.label) defaults to \(parameter.defaultValue ?? "nothing")")
                }
            }
        }
    }

    /// Each entry point takes the whole shared list, written the same way (this compiles only
    /// while it does), and sends what it says.
    @Test func eachEntryPointTakesTheWholeListAndSendsIt() async throws {
        let session = Session(transport: InMemoryServer(), cookies: .none)
        let url = InMemoryServer.baseURL.appendingPathComponent("anything")
        var options = RequestOptions()
        options.operationName = "shape"
        let headers: HTTPHeaders = ["X-Shape": "1"]
        let policy = RedirectPolicy.follow(max: 3)

        var methods: [String] = []
        func method(of response: Response) throws -> String { try response.decode(Echo.self).method }
        methods.append(try method(of: try await session.request(
            url, method: .get, parameters: ["a": 1], encoding: URLEncoding.default, headers: headers,
            timeout: .seconds(30), interceptors: [], redirectPolicy: policy, options: options)))
        methods.append(try method(of: try await session.request(
            url, method: .get, body: EmptyBody(), headers: headers,
            timeout: .seconds(30), interceptors: [], redirectPolicy: policy, options: options)))
        methods.append(try method(of: try await session.request(
            url, method: .get, parameters: ["a": "1"], encoder: URLEncodedFormParameterEncoder.default, headers: headers,
            timeout: .seconds(30), interceptors: [], redirectPolicy: policy, options: options)))
        methods.append(try method(of: try await session.request(
            url, method: .get, parameters: [.query(["a": 1])], headers: headers,
            timeout: .seconds(30), interceptors: [], redirectPolicy: policy, options: options)))
        methods.append(try method(of: try await session.request(
            URLRequest(url: url), timeout: .seconds(30), interceptors: [], redirectPolicy: policy, options: options)))
        let stream = try await session.stream(
            url, method: .get, parameters: nil, encoding: URLEncoding.default, headers: headers,
            timeout: .seconds(30), interceptors: [], redirectPolicy: policy, options: options)
        methods.append(try method(of: try await stream.collect()))
        let again = try await session.stream(URLRequest(url: url), timeout: .seconds(30), interceptors: [], redirectPolicy: policy, options: options)
        methods.append(try method(of: try await again.collect()))
        #expect(methods == Array(repeating: "GET", count: 7))

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shape-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("echo.json")
        let download = session.download(
            url, method: .get, parameters: nil, encoding: URLEncoding.default, headers: headers,
            timeout: .seconds(30), interceptors: [], redirectPolicy: policy, options: options, to: file, resumable: false)
        _ = try await download.response().validate()
        #expect(try JSONDecoder().decode(Echo.self, from: Data(contentsOf: file)).method == "GET")
        let other = session.download(URLRequest(url: url), timeout: .seconds(30), interceptors: [], redirectPolicy: policy,
                                     options: options, to: file, resumable: false)
        _ = try await other.response().validate()

        let upload = session.upload(
            .data(Data("x".utf8)), to: url, method: .post, headers: headers,
            timeout: .seconds(30), interceptors: [], redirectPolicy: policy, options: options)
        #expect(try method(of: try await upload.response()) == "POST")
        let form = session.upload(
            multipart: MultipartFormBody([.text("a", "1")]), to: url, method: .post, headers: headers,
            timeout: .seconds(30), interceptors: [], redirectPolicy: policy, options: options)
        #expect(try method(of: try await form.response()) == "POST")

        // Built, not connected: an event stream sends nothing until it is iterated.
        _ = session.events(url, method: .get, parameters: nil, encoding: URLEncoding.default, headers: headers,
                           timeout: .seconds(30), interceptors: [], redirectPolicy: policy, options: options, reconnection: .default)
        _ = session.events(URLRequest(url: url), timeout: .seconds(30), interceptors: [], redirectPolicy: policy,
                           options: options, reconnection: .default)
    }

    // MARK: Reading the declarations

    struct Parameter {
        let label: String
        let type: String
        let defaultValue: String?
    }

    struct EntryPoint {
        let name: String
        let parameters: [Parameter]
        var signature: String { "\(name)(\(parameters.map { "\($0.label):" }.joined()))" }
    }

    /// The package's folder.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Sources/Requests/Session/Session*.swift`, where `Session` and its extensions are declared.
    static func sessionFiles() throws -> [(name: String, text: String)] {
        let folder = root.appendingPathComponent("Sources/Requests/Session")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().filter { $0.hasPrefix("Session") }.map {
            ($0, try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// The public entry methods declared in the Session files.
    static func entryPoints() throws -> [EntryPoint] {
        try sessionFiles().flatMap { declarations(in: $0.text) }
    }

    /// Each `public func` (or `public nonisolated func`) in `text`: the text from its name on.
    static func publicMethods(in text: String) -> [Substring] {
        var found: [Substring] = []
        var rest = Substring(text)
        while let range = rest.range(of: "public ") {
            rest = rest[range.upperBound...]
            if rest.hasPrefix("nonisolated ") { rest = rest.dropFirst("nonisolated ".count) }
            guard rest.hasPrefix("func ") else { continue }
            found.append(rest.dropFirst("func ".count))
        }
        return found
    }

    /// The names of every `public func` in `text`.
    static func publicMethodNames(in text: String) -> [String] {
        publicMethods(in: text).map { String($0.prefix { $0.isLetter || $0.isNumber || $0 == "_" }) }
    }

    static let names: Set<String> = ["request", "stream", "download", "upload", "events", "requestBlocking", "webSocket", "withWebSocket"]

    /// `public func NAME(…)` or `public func NAME<…>(…)` declarations, their parameters split at the
    /// top level.
    static func declarations(in text: String) -> [EntryPoint] {
        var result: [EntryPoint] = []
        for rest in publicMethods(in: text) {
            let name = String(rest.prefix { $0.isLetter })
            guard names.contains(name), let open = rest.firstIndex(of: "(") else { continue }
            var depth = 0
            var current = ""
            var pieces: [String] = []
            var index = open
            scan: while index < rest.endIndex {
                let character = rest[index]
                switch character {
                case "(", "[", "<":
                    if depth > 0 { current.append(character) }
                    depth += 1
                case ">" where index > rest.startIndex && rest[rest.index(before: index)] == "-":
                    // The arrow of a function type, not a closing bracket.
                    current.append(character)
                case ")", "]", ">":
                    depth -= 1
                    if depth == 0 { break scan }
                    current.append(character)
                case "," where depth == 1:
                    pieces.append(current)
                    current = ""
                default:
                    if depth > 0 { current.append(character) }
                }
                index = rest.index(after: index)
            }
            pieces.append(current)
            let parameters = pieces.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }.map(parameter)
            result.append(EntryPoint(name: name, parameters: parameters))
        }
        return result
    }

    /// `label name: Type = default`, `_ name: Type`, or `name: Type`.
    static func parameter(_ text: String) -> Parameter {
        let colon = text.firstIndex(of: ":") ?? text.endIndex
        let names = text[..<colon].split(separator: " ")
        let afterColon = text[colon...].dropFirst()
        let parts = afterColon.components(separatedBy: " = ")
        return Parameter(
            label: String(names.first ?? ""),
            type: parts[0].trimmingCharacters(in: .whitespaces),
            defaultValue: parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
        )
    }
}
