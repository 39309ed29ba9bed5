import Foundation

// MARK: - Options

/// Everything the command line says, parsed by the table in ``Options/table``.
struct Options {
    enum BodyEncoding: String {
        case json, form, plist, plistBinary = "plist-binary", query
    }

    /// `--pretty`: what is done to bodies and heads for reading.
    enum Pretty: String {
        /// Formatted and coloured (the default on a terminal).
        case all
        /// Coloured, laid out as received.
        case colors
        /// Formatted, not coloured.
        case format
        /// As received (the default when standard output is not a terminal).
        case none
    }

    /// `--auth-type`.
    enum AuthType: String {
        case basic, bearer, digest
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
    var all = false
    var color: Bool?
    var pretty: Pretty?
    var style = "auto"
    /// `--sorted` (true), `--unsorted` (false), or neither.
    var sorted: Bool?
    var raw: String?
    var multipart = false
    var authType: AuthType?
    var verify: String?
    var cert: String?
    var certKey: String?
    /// `--pin sha256/BASE64`, each a pin of the URL's host.
    var pins: [String] = []
    var checkStatus = false
    var timeout: Double?
    var auth: String?
    var bearer: String?
    var retries = 0
    /// `--cache DIR`: an RFC 9111 cache on disk in this folder.
    var cache: String?
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
        try options.validate()
        return options
    }

    /// What each option says once all are read: `-v` is `-p HBhb --all`; credentials fit
    /// `--auth-type`; TLS options the transport cannot honour are refused, saying why.
    ///
    /// - Throws: ``UsageError`` naming the option.
    private mutating func validate() throws {
        if verbose {
            all = true
        }
        if let auth {
            switch authType ?? .basic {
            case .basic, .digest:
                guard auth.contains(":") else {
                    throw UsageError("--auth takes USER:PASS for \((authType ?? .basic).rawValue) authentication, not \"\(auth)\" (req does not prompt for a password)")
                }
            case .bearer:
                guard !auth.isEmpty else { throw UsageError("--auth takes a token with --auth-type bearer") }
            }
            if bearer != nil { throw UsageError("--bearer and --auth cannot both be given; --bearer TOKEN is --auth-type bearer --auth TOKEN") }
        } else if authType != nil {
            throw UsageError("--auth-type needs --auth")
        }
        if let bearer {
            auth = bearer
            authType = .bearer
            self.bearer = nil
        }
        try TLSOptions.check(self)
    }
}
