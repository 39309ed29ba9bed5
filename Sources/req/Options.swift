import Foundation

// MARK: - Options

/// Everything the command line says, parsed by the table in ``Options/table``.
struct Options {
    enum BodyEncoding: String {
        case json, form, plist, plistBinary = "plist-binary", query
    }

    var method: String?
    var url = ""
    var items: [RequestItem] = []
    var encoding: BodyEncoding?
    var arrays = "brackets"
    var bools = "numeric"
    var offline = false
    var printParts: String?
    var verbose = false
    var color: Bool?
    var checkStatus = false
    var timeout: Double?
    var auth: String?
    var bearer: String?
    var retries = 0
    var follow = false
    var maxRedirects = 30
    var download = false
    var ignoreStdin = false
    var output: String?
    var stream = false
    var sessionName: String?
    var boundary: String?
    var help = false
    var version = false

    /// One option: its spellings, whether it takes a value, and what it does.
    struct Spec: Sendable {
        let names: [String]
        let value: String?
        let help: String
        let apply: @Sendable (inout Options, String) throws -> Void
    }

    static let table: [Spec] = [
        Spec(names: ["--json", "-j"], value: nil, help: "send fields as a JSON object (the default)") { $0.encoding = .json; _ = $1 },
        Spec(names: ["--form", "-f"], value: nil, help: "send fields form-encoded; multipart when a file is attached") { $0.encoding = .form; _ = $1 },
        Spec(names: ["--plist"], value: nil, help: "send fields as an XML property list") { $0.encoding = .plist; _ = $1 },
        Spec(names: ["--plist-binary"], value: nil, help: "send fields as a binary property list") { $0.encoding = .plistBinary; _ = $1 },
        Spec(names: ["--query"], value: nil, help: "put the fields in the query string") { $0.encoding = .query; _ = $1 },
        Spec(names: ["--arrays"], value: "brackets|no-brackets|index", help: "how --form and --query write arrays") { options, value in
            guard ["brackets", "no-brackets", "index"].contains(value) else { throw UsageError("--arrays takes brackets, no-brackets or index, not \"\(value)\"") }
            options.arrays = value
        },
        Spec(names: ["--bools"], value: "numeric|literal", help: "how --form and --query write booleans") { options, value in
            guard ["numeric", "literal"].contains(value) else { throw UsageError("--bools takes numeric or literal, not \"\(value)\"") }
            options.bools = value
        },
        Spec(names: ["--offline"], value: nil, help: "print the request that would be sent, and send nothing") { $0.offline = true; _ = $1 },
        Spec(names: ["--print", "-p"], value: "HBhb", help: "what to print: H request headers, B request body, h response headers, b response body") { options, value in
            guard !value.isEmpty, value.allSatisfy({ "HBhb".contains($0) }) else { throw UsageError("--print takes letters from HBhb, not \"\(value)\"") }
            options.printParts = value
        },
        Spec(names: ["--verbose", "-v"], value: nil, help: "print the request and the response (-p HBhb)") { $0.verbose = true; _ = $1 },
        Spec(names: ["--no-color"], value: nil, help: "never colour the output (nor with NO_COLOR set)") { $0.color = false; _ = $1 },
        Spec(names: ["--check-status"], value: nil, help: "exit with 3, 4 or 5 for a 3xx, 4xx or 5xx response") { $0.checkStatus = true; _ = $1 },
        Spec(names: ["--timeout"], value: "SECONDS", help: "give up after this long") { options, value in
            guard let seconds = Double(value), seconds > 0 else { throw UsageError("--timeout takes a positive number of seconds, not \"\(value)\"") }
            options.timeout = seconds
        },
        Spec(names: ["--auth", "-a"], value: "USER:PASS", help: "HTTP Basic authentication") { options, value in
            guard value.contains(":") else { throw UsageError("--auth takes USER:PASS, not \"\(value)\"") }
            options.auth = value
        },
        Spec(names: ["--bearer"], value: "TOKEN", help: "send Authorization: Bearer TOKEN") { $0.bearer = $1 },
        Spec(names: ["--retry"], value: "N", help: "retry failed idempotent requests up to N times") { options, value in
            guard let count = Int(value), count >= 0 else { throw UsageError("--retry takes a count, not \"\(value)\"") }
            options.retries = count
        },
        Spec(names: ["--follow", "-F"], value: nil, help: "follow redirects") { $0.follow = true; _ = $1 },
        Spec(names: ["--max-redirects"], value: "N", help: "follow at most N redirects (30)") { options, value in
            guard let count = Int(value), count >= 0 else { throw UsageError("--max-redirects takes a count, not \"\(value)\"") }
            options.maxRedirects = count
        },
        Spec(names: ["--download", "-d"], value: nil, help: "save the body to a file named from the URL or Content-Disposition") { $0.download = true; _ = $1 },
        Spec(names: ["--output", "-o"], value: "FILE", help: "write the output to FILE instead of standard output; with --download, the file to download to") { $0.output = $1 },
        Spec(names: ["--stream", "-S"], value: nil, help: "print the body as it arrives (server-sent events, logs)") { $0.stream = true; _ = $1 },
        Spec(names: ["--ignore-stdin", "-I"], value: nil, help: "do not read standard input as the request body") { $0.ignoreStdin = true; _ = $1 },
        Spec(names: ["--boundary"], value: "TEXT", help: "the multipart boundary (random by default)") { $0.boundary = $1 },
        Spec(names: ["--session"], value: "NAME", help: "keep cookies and headers in a session file between runs") { $0.sessionName = $1 },
        Spec(names: ["--help", "-h"], value: nil, help: "show this help") { $0.help = true; _ = $1 },
        Spec(names: ["--version"], value: nil, help: "show the version") { $0.version = true; _ = $1 },
    ]

    static let methods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "QUERY", "TRACE"]

    /// Parses the arguments after the program name.
    ///
    /// - Throws: ``UsageError`` naming the bad argument.
    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var positional: [String] = []
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if !optionsEnded, argument == "--" {
                optionsEnded = true
                continue
            }
            guard !optionsEnded, argument.hasPrefix("-"), argument.count > 1 else {
                positional.append(argument)
                continue
            }
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            guard let spec = table.first(where: { $0.names.contains(name) }) else {
                throw UsageError("unknown option \(name); see req --help")
            }
            var value = ""
            if spec.value != nil {
                if let inline {
                    value = inline
                } else {
                    guard index < arguments.count else { throw UsageError("\(name) needs a value (\(spec.value ?? ""))") }
                    value = arguments[index]
                    index += 1
                }
            } else if inline != nil {
                throw UsageError("\(name) takes no value")
            }
            try spec.apply(&options, value)
        }
        if options.help || options.version { return options }
        if positional.count > 1, let first = positional.first, methods.contains(first.uppercased()) {
            options.method = first.uppercased()
            positional.removeFirst()
        }
        guard let url = positional.first else {
            throw UsageError("no URL; usage: req [METHOD] URL [ITEM ...]")
        }
        options.url = url
        options.items = try positional.dropFirst().map(RequestItem.init(parsing:))
        return options
    }
}
