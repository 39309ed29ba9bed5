import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - Req

/// Runs one command line and returns the exit status (``ExitStatus``).
enum Req {
    static func run(_ arguments: [String]) async -> Int32 {
        do {
            let options = try Options.parse(arguments)
            if options.help {
                Terminal.write(Help.text)
                return ExitStatus.ok
            }
            if options.version {
                Terminal.write("req \(Version.current)\n")
                return ExitStatus.ok
            }
            return try await send(options)
        } catch let error as UsageError {
            Terminal.error("req: error: \(error)\n")
            return ExitStatus.usage
        } catch let error as ParameterEncodingError {
            Terminal.error("req: error: \(error)\n")
            return ExitStatus.usage
        } catch {
            Terminal.error("req: error: \(error)\n")
            return ExitStatus.of(error)
        }
    }

    private static func send(_ options: Options) async throws -> Int32 {
        var options = options
        let url = try RequestPlan.url(options.url)
        var store = try options.sessionName.map { try SessionStore(name: $0, url: url) }
        if options.auth == nil, let auth = store?.stored.auth {
            // A session keeps --auth, as httpie's does.
            options.auth = auth.credentials
            options.authType = Options.AuthType(rawValue: auth.type) ?? .basic
        }
        let body = options.ignoreStdin ? nil : try StandardInput.body()
        let plan = try RequestPlan(options, storedHeaders: store?.stored.headers ?? [:], standardInput: body)
        // A download goes to standard output when that is a pipe or a file, as httpie's does.
        let downloadToOutput = options.download && options.output == nil && Terminal.stdoutIsRedirected
        let output = try Output.open(options)
        let terminal = output.isTerminal
        let printer = Printer(options, terminal: terminal)
        let parts = options.printParts ?? (options.verbose ? "HBhb" : options.offline ? "HB" : terminal ? "hb" : "b")
        // URLSessionTransport, or AsyncHTTPClientTransport with the TLS options when req is built
        // with the AsyncHTTPClient trait.
        let transport = try TLSOptions.transport(options, host: url.host)
        // What the transport adds is shown offline too, as it would go out.
        let added = transport.behavior.addedHeaders
        for name in plan.removedHeaders {
            if let value = added.value(for: name) {
                Terminal.error("req: note: \(name): cannot be removed: the transport adds \"\(name): \(value)\" to a request without one\n")
            } else if urlSessionAddsItsOwn(name, hasBody: plan.request.httpBody != nil) {
                Terminal.error("req: note: \(name): cannot be removed: URLSession sends its own to a request without one; \(name); sends it empty\n")
            }
        }
        guard !options.offline else {
            try printRequest(plan.request, parts: parts, printer: printer, output: output, followed: false, added: added)
            return ExitStatus.ok
        }
        let log = options.all ? ExchangeLog(output: output, printer: printer, parts: parts, added: added) : nil
        let session = try makeSession(options, url: url, transport: transport, cookies: store?.cookies ?? .inMemory(),
                                      monitors: log.map { [$0.monitor] } ?? [])
        if log == nil {
            // Sent, the request also carries what the transport adds.
            try printRequest(plan.request, parts: parts, printer: printer, output: output, followed: parts.contains("h") || parts.contains("b"), added: added)
        }
        let head: Response
        do {
            head = try await exchange(session, plan.request, options: options, parts: parts, printer: printer, output: output,
                                      toOutput: downloadToOutput, log: log)
        } catch {
            try? await log?.finish()
            throw error
        }
        try store?.save(headers: options.items, auth: options.auth.map { .init(type: (options.authType ?? .basic).rawValue, credentials: $0) })
        let status = ExitStatus.of(head.statusCode, checkStatus: options.checkStatus)
        if status != ExitStatus.ok, !terminal || !Terminal.stdoutIsTerminal {
            Terminal.error("req: warning: HTTP \(head.statusCode) \(Printer.reason(head.statusCode))\n")
        }
        return status
    }

    /// Sends the request and prints the response as `options` ask: whole, streamed, or
    /// downloaded to a file or to the output.
    private static func exchange(
        _ session: Session, _ request: OutgoingRequest, options: Options, parts: String, printer: Printer, output: Output,
        toOutput: Bool, log: ExchangeLog?
    ) async throws -> Response {
        if options.download, !toOutput {
            let head = try await Download.run(session, request, options: options)
            try await log?.finish()
            if parts.contains("h") { try output.write(printer.responseHead(head.head)) }
            if head.fileURL == nil, parts.contains("b") {
                try output.write(printer.responseBody(head.data, mimeType: head.mimeType))
            }
            return head
        }
        if options.stream || toOutput {
            let stream = try await session.stream(request)
            try await log?.finish()
            if parts.contains("h") { try output.write(printer.responseHead(stream.response.head)) }
            // A download to the output is the body byte for byte, whatever the output is.
            let raw = toOutput
            for try await chunk in stream.body where parts.contains("b") || toOutput {
                try output.write(!raw && output.isTerminal && Printer.isBinary(chunk) ? Data(Printer.binaryNote.utf8) : chunk)
            }
            return stream.response
        }
        let response = try await session.request(request)
        try await log?.finish()
        if parts.contains("h") { try output.write(printer.responseHead(response.head)) }
        if parts.contains("b") { try output.write(printer.responseBody(response.data, mimeType: response.mimeType)) }
        return response
    }

    /// The request's head and body, as `parts` ask; `followed` when a response is printed after it.
    private static func printRequest(
        _ request: OutgoingRequest, parts: String, printer: Printer, output: Output, followed: Bool, added: HTTPHeaders = [:]
    ) throws {
        if parts.contains("H") {
            try output.write(printer.requestHead(request, added: added))
        }
        if parts.contains("B") {
            try output.write(printer.requestBody(request.httpBody ?? Data(), mimeType: request.value(forHTTPHeaderField: "Content-Type")))
            // A blank line between the request and the response that follows it.
            if followed {
                try output.write("\n")
            }
        }
    }

    /// Whether URLSession adds `name` to a request without it, with a value that is not in its
    /// `addedHeaders` (whose values are exact): its User-Agent names the process and its engine's
    /// version, and its label for a body depends on the engine. AsyncHTTPClient adds neither.
    private static func urlSessionAddsItsOwn(_ name: String, hasBody: Bool) -> Bool {
        #if AsyncHTTPClient
        _ = (name, hasBody)
        return false
        #else
        return name.lowercased() == "user-agent" || (name.lowercased() == "content-type" && hasBody)
        #endif
    }

    static func makeSession(
        _ options: Options, url: URL, transport: any Transport, cookies: Cookies, monitors: [any EventMonitor]
    ) throws -> Session {
        var interceptors: [any Interceptor] = []
        if options.retries > 0 {
            interceptors.append(RetryPolicy(maxAttempts: options.retries + 1))
        }
        let authType = options.authType ?? .basic
        if authType != .bearer, let auth = options.auth, let colon = auth.firstIndex(of: ":") {
            guard let origin = Origin(url) else { throw UsageError("--auth needs a URL with a host") }
            let (username, password) = (String(auth[..<colon]), String(auth[auth.index(after: colon)...]))
            // Only to the URL's origin, as httpie: never to a host a redirect leads to.
            interceptors.append(authType == .digest
                ? try DigestAuthentication(username: username, password: password, scope: .origins([origin]))
                : try BasicAuthentication(username: username, password: password, scope: .origins([origin])))
        }
        var cache: HTTPCache?
        if let folder = options.cache {
            do {
                cache = HTTPCache(storage: try DiskCacheStorage(directory: URL(fileURLWithPath: folder)))
            } catch {
                throw UsageError("--cache \(folder): the folder cannot be made: \(error.localizedDescription)")
            }
        }
        return Session(
            transport: transport,
            timeout: options.timeout.map { .milliseconds(Int64($0 * 1000)) },
            interceptors: interceptors,
            monitors: monitors,
            redirectPolicy: options.follow ? .follow(max: options.maxRedirects) : .doNotFollow,
            cookies: cookies,
            cache: cache
        )
    }
}
