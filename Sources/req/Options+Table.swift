import Foundation

// MARK: - Options table

extension Options {
    /// One option: its spellings, whether it takes a value, and what it does.
    struct Spec: Sendable {
        let names: [String]
        let value: String?
        let help: String
        let apply: @Sendable (inout Options, String) throws -> Void
    }

    /// Every option, in the order `--help` lists them.
    static let table: [Spec] = bodyOptions + outputOptions + sendingOptions

    private static let bodyOptions: [Spec] = [
        Spec(names: ["--json", "-j"], value: nil, help: "send fields as a JSON object (the default); alone, still ask for JSON") { $0.encoding = .json; _ = $1 },
        Spec(names: ["--form", "-f"], value: nil, help: "send fields form-encoded; multipart when a file is attached") { $0.encoding = .form; _ = $1 },
        Spec(names: ["--multipart"], value: nil, help: "send fields as multipart/form-data even without a file") { $0.encoding = .form; $0.multipart = true; _ = $1 },
        Spec(names: ["--plist"], value: nil, help: "send fields as an XML property list") { $0.encoding = .plist; _ = $1 },
        Spec(names: ["--plist-binary"], value: nil, help: "send fields as a binary property list") { $0.encoding = .plistBinary; _ = $1 },
        Spec(names: ["--query"], value: nil, help: "put the fields in the query string") { $0.encoding = .query; _ = $1 },
        Spec(names: ["--raw"], value: "TEXT", help: "send TEXT as the body, as it is (like a body on standard input)") { $0.raw = $1 },
        Spec(names: ["--arrays"], value: "brackets|no-brackets|index", help: "how --form and --query write arrays") { options, value in
            guard ["brackets", "no-brackets", "index"].contains(value) else { throw UsageError("--arrays takes brackets, no-brackets or index, not \"\(value)\"") }
            options.arrays = value
        },
        Spec(names: ["--bools"], value: "numeric|literal", help: "how --form and --query write booleans") { options, value in
            guard ["numeric", "literal"].contains(value) else { throw UsageError("--bools takes numeric or literal, not \"\(value)\"") }
            options.bools = value
        },
        Spec(names: ["--boundary"], value: "TEXT", help: "the multipart boundary (random by default)") { $0.boundary = $1 },
        Spec(names: ["--ignore-stdin", "-I"], value: nil, help: "do not read standard input as the request body") { $0.ignoreStdin = true; _ = $1 },
    ]

    private static let outputOptions: [Spec] = [
        Spec(names: ["--offline"], value: nil, help: "print the request that would be sent, and send nothing") { $0.offline = true; _ = $1 },
        Spec(names: ["--print", "-p"], value: "HBhb", help: "what to print: H request headers, B request body, h response headers, b response body") { options, value in
            guard !value.isEmpty, value.allSatisfy({ "HBhb".contains($0) }) else { throw UsageError("--print takes letters from HBhb, not \"\(value)\"") }
            options.printParts = value
        },
        Spec(names: ["--headers", "-h"], value: nil, help: "print the response headers only (-p h)") { $0.printParts = "h"; _ = $1 },
        Spec(names: ["--body", "-b"], value: nil, help: "print the response body only (-p b)") { $0.printParts = "b"; _ = $1 },
        Spec(names: ["--verbose", "-v"], value: nil, help: "print the requests and responses (-p HBhb --all)") { $0.verbose = true; _ = $1 },
        Spec(names: ["--all"], value: nil, help: "print every exchange: redirects and retries too, not only the last") { $0.all = true; _ = $1 },
        Spec(names: ["--pretty"], value: "all|colors|format|none", help: "format and colour (all on a terminal, none when piped: the body byte for byte)") { options, value in
            guard let pretty = Pretty(rawValue: value) else { throw UsageError("--pretty takes all, colors, format or none, not \"\(value)\"") }
            options.pretty = pretty
        },
        Spec(names: ["--style", "-s"], value: Style.names.joined(separator: "|"), help: "the colour scheme") { options, value in
            guard Style.names.contains(value) else {
                throw UsageError("--style takes \(Style.names.joined(separator: ", ")), not \"\(value)\"")
            }
            options.style = value
        },
        Spec(names: ["--sorted"], value: nil, help: "sort JSON keys, in the body sent and in formatted output") { $0.sorted = true; _ = $1 },
        Spec(names: ["--unsorted"], value: nil, help: "keep JSON keys in their order (the default)") { $0.sorted = false; _ = $1 },
        Spec(names: ["--no-color"], value: nil, help: "never colour the output (nor with NO_COLOR set)") { $0.color = false; _ = $1 },
        Spec(names: ["--output", "-o"], value: "FILE", help: "write the output to FILE instead of standard output; with --download, the file to download to") { $0.output = $1 },
        Spec(names: ["--download", "-d"], value: nil, help: "save the body to a file named from Content-Disposition or the URL (to standard output when piped)") { $0.download = true; _ = $1 },
        Spec(names: ["--stream", "-S"], value: nil, help: "print the body as it arrives (server-sent events, logs)") { $0.stream = true; _ = $1 },
    ]

    private static let sendingOptions: [Spec] = [
        Spec(names: ["--check-status"], value: nil, help: "exit with 3, 4 or 5 for a 3xx, 4xx or 5xx response") { $0.checkStatus = true; _ = $1 },
        Spec(names: ["--timeout"], value: "SECONDS", help: "give up after this long (exit status 2)") { options, value in
            guard let seconds = Double(value), seconds > 0, seconds.isFinite else { throw UsageError("--timeout takes a positive number of seconds, not \"\(value)\"") }
            options.timeout = seconds
        },
        Spec(names: ["--auth", "-a"], value: "USER:PASS|TOKEN", help: "credentials: USER:PASS for basic and digest, TOKEN for --auth-type bearer") { $0.auth = $1 },
        Spec(names: ["--auth-type", "-A"], value: "basic|digest|bearer", help: "how --auth is sent (basic)") { options, value in
            guard let type = AuthType(rawValue: value) else { throw UsageError("--auth-type takes basic, digest or bearer, not \"\(value)\"") }
            options.authType = type
        },
        Spec(names: ["--bearer"], value: "TOKEN", help: "send Authorization: Bearer TOKEN (--auth-type bearer --auth TOKEN)") { $0.bearer = $1 },
        Spec(names: ["--cache"], value: "DIR", help: "keep responses in DIR as an HTTP cache (RFC 9111): a fresh one answers without the network, a stale one is validated") { options, value in
            guard !value.isEmpty else { throw UsageError("--cache takes a folder") }
            options.cache = value
        },
        Spec(names: ["--retry"], value: "N", help: "retry failed idempotent requests up to N times") { options, value in
            guard let count = Int(value), count >= 0 else { throw UsageError("--retry takes a count, not \"\(value)\"") }
            options.retries = count
        },
        Spec(names: ["--follow", "-F"], value: nil, help: "follow redirects") { $0.follow = true; _ = $1 },
        Spec(names: ["--max-redirects"], value: "N", help: "follow at most N redirects (30); more is exit status 6") { options, value in
            guard let count = Int(value), count >= 0 else { throw UsageError("--max-redirects takes a count, not \"\(value)\"") }
            options.maxRedirects = count
        },
        Spec(names: ["--verify"], value: "yes|no|PATH", help: "check the server's certificate (yes), not at all (no), or against the CAs in PATH (*)") { $0.verify = $1 },
        Spec(names: ["--cert"], value: "FILE", help: "a client certificate, PEM; its key too unless --cert-key (*)") { $0.cert = $1 },
        Spec(names: ["--cert-key"], value: "FILE", help: "the client certificate's private key, PEM (*)") { $0.certKey = $1 },
        Spec(names: ["--pin"], value: "sha256/BASE64", help: "accept the host's certificate only with this public key; repeatable (*)") { $0.pins.append($1) },
        Spec(names: ["--session"], value: "NAME", help: "keep cookies, headers and --auth in a session file between runs") { $0.sessionName = $1 },
        Spec(names: ["--help"], value: nil, help: "show this help") { $0.help = true; _ = $1 },
        Spec(names: ["--version"], value: nil, help: "show the version") { $0.version = true; _ = $1 },
    ]
}
