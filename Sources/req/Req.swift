import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - Req

/// Runs one command line and returns the exit status.
enum Req {
    static func run(_ arguments: [String]) async -> Int32 {
        do {
            let options = try Options.parse(arguments)
            if options.help {
                Terminal.write(Help.text)
                return 0
            }
            if options.version {
                Terminal.write("req \(Version.current)\n")
                return 0
            }
            return try await send(options)
        } catch let error as UsageError {
            Terminal.error("req: error: \(error)\n")
            return 2
        } catch let error as ParameterEncodingError {
            Terminal.error("req: error: \(error)\n")
            return 2
        } catch {
            Terminal.error("req: error: \(error)\n")
            return 1
        }
    }

    private static func send(_ options: Options) async throws -> Int32 {
        let url = try RequestPlan.url(options.url)
        var store = try options.sessionName.map { try SessionStore(name: $0, url: url) }
        let body = options.ignoreStdin ? nil : try StandardInput.body()
        let plan = try RequestPlan(options, storedHeaders: store?.stored.headers ?? [:], standardInput: body)
        let output = try Output.open(options)
        let terminal = output.isTerminal
        let printer = Printer(style: Style(enabled: Terminal.colors(options, terminal: terminal)), terminal: terminal)
        let parts = options.printParts ?? (options.verbose ? "HBhb" : options.offline ? "HB" : terminal ? "hb" : "b")
        let session = options.offline ? nil : try makeSession(options, url: url, cookies: store?.cookies ?? .inMemory())
        if parts.contains("H") {
            // Sent, the request also carries what the transport adds; offline, exactly what req built.
            try output.write(printer.requestHead(plan.request, added: session?.transport.behavior.addedHeaders ?? [:]))
        }
        if parts.contains("B") {
            try output.write(printer.requestBody(plan.request.httpBody ?? Data()))
            // A blank line between the request and the response that follows it.
            if !options.offline, parts.contains("h") || parts.contains("b") {
                try output.write("\n")
            }
        }
        guard let session else { return 0 }
        let head: Response
        if options.download {
            head = try await Download.run(session, plan.request, options: options)
            if parts.contains("h") { try output.write(printer.responseHead(head.head)) }
            if head.fileURL == nil, parts.contains("b") {
                try output.write(printer.responseBody(head.data, mimeType: head.mimeType))
            }
        } else if options.stream {
            let stream = try await session.stream(plan.request)
            head = stream.head
            if parts.contains("h") { try output.write(printer.responseHead(head.head)) }
            for try await chunk in stream.body where parts.contains("b") {
                try output.write(terminal && Printer.isBinary(chunk) ? Data(Printer.binaryNote.utf8) : chunk)
            }
        } else {
            head = try await session.request(plan.request)
            if parts.contains("h") { try output.write(printer.responseHead(head.head)) }
            if parts.contains("b") { try output.write(printer.responseBody(head.data, mimeType: head.mimeType)) }
        }
        try store?.save(headers: options.items)
        return exitStatus(head.statusCode, options)
    }

    static func makeSession(_ options: Options, url: URL, cookies: Cookies) throws -> Session {
        var interceptors: [any Interceptor] = []
        if options.retries > 0 {
            interceptors.append(RetryPolicy(maxAttempts: options.retries + 1))
        }
        if let auth = options.auth, let colon = auth.firstIndex(of: ":") {
            guard let origin = Origin(url) else { throw UsageError("--auth needs a URL with a host") }
            interceptors.append(try BasicAuthentication(
                username: String(auth[..<colon]), password: String(auth[auth.index(after: colon)...]), scope: .origins([origin])
            ))
        }
        return Session(
            timeout: options.timeout.map { .milliseconds(Int64($0 * 1000)) },
            interceptors: interceptors,
            redirectPolicy: options.follow ? .follow(max: options.maxRedirects) : .doNotFollow,
            cookies: cookies
        )
    }

    static func exitStatus(_ status: Int, _ options: Options) -> Int32 {
        guard options.checkStatus else { return 0 }
        switch status {
        case 300..<400: return 3
        case 400..<500: return 4
        case 500..<600: return 5
        default: return 0
        }
    }
}
