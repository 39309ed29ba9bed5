import Foundation

// MARK: - Terminal

/// Where output goes and whether it may be coloured.
enum Terminal {
    /// Whether standard output is a terminal.
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    /// Whether standard output is a pipe or a regular file, where `--download` writes the body
    /// as httpie does (not a terminal, and not `/dev/null` or another device).
    static var stdoutIsRedirected: Bool {
        var status = stat()
        guard fstat(STDOUT_FILENO, &status) == 0 else { return false }
        let type = status.st_mode & mode_t(S_IFMT)
        return type == mode_t(S_IFIFO) || type == mode_t(S_IFREG)
    }
    /// Whether standard error is a terminal (the progress bar goes there).
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// What `--pretty` means here: given, as given; otherwise `all` on a terminal and `none`
    /// elsewhere (a pipe or a file gets the body byte for byte).
    ///
    /// - Parameter terminal: Whether the output is a terminal (not with `--output FILE`).
    static func pretty(_ options: Options, terminal: Bool) -> Options.Pretty {
        options.pretty ?? (terminal ? .all : .none)
    }

    /// Colour when `--pretty` asks for it, never with `--no-color`; with `NO_COLOR` set
    /// (no-color.org) only when `--pretty=all` or `--pretty=colors` is given.
    ///
    /// - Parameter terminal: Whether the output is a terminal (not with `--output FILE`).
    static func colors(_ options: Options, terminal: Bool) -> Bool {
        if options.color == false { return false }
        let pretty = pretty(options, terminal: terminal)
        guard pretty == .all || pretty == .colors else { return false }
        if options.pretty == nil, let noColor = ProcessInfo.processInfo.environment["NO_COLOR"], !noColor.isEmpty { return false }
        return true
    }

    static func write(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }

    static func write(_ text: String) {
        write(Data(text.utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

// MARK: - Style

/// ANSI colours from one of a few schemes (`--style`), or nothing when colour is off.
struct Style {
    /// The SGR codes of one scheme.
    struct Palette {
        let key, string, number, literal, headerName, success, redirect, failure: String
    }

    let enabled: Bool
    let palette: Palette

    init(enabled: Bool, name: String = "auto") {
        self.enabled = enabled
        self.palette = Self.palettes[name] ?? Self.auto
    }

    /// The scheme names `--style` takes.
    static let names = ["auto", "monokai", "solarized", "pie-dark", "pie-light"]

    /// The terminal's own 16 colours, so that its theme decides (as httpie's `auto`).
    private static let auto = Palette(key: "34", string: "33", number: "36", literal: "35", headerName: "36",
                                      success: "32", redirect: "33", failure: "31")

    /// 256-colour approximations of the schemes httpie ships under these names.
    private static let palettes: [String: Palette] = [
        "auto": auto,
        "monokai": Palette(key: "38;5;197", string: "38;5;186", number: "38;5;141", literal: "38;5;81", headerName: "38;5;81",
                           success: "38;5;148", redirect: "38;5;208", failure: "38;5;197"),
        "solarized": Palette(key: "38;5;33", string: "38;5;37", number: "38;5;125", literal: "38;5;166", headerName: "38;5;33",
                             success: "38;5;64", redirect: "38;5;136", failure: "38;5;160"),
        "pie-dark": Palette(key: "38;5;117", string: "38;5;222", number: "38;5;183", literal: "38;5;183", headerName: "38;5;117",
                            success: "38;5;114", redirect: "38;5;222", failure: "38;5;203"),
        "pie-light": Palette(key: "38;5;25", string: "38;5;130", number: "38;5;91", literal: "38;5;91", headerName: "38;5;25",
                             success: "38;5;28", redirect: "38;5;130", failure: "38;5;160"),
    ]

    func paint(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func key(_ text: String) -> String { paint(text, palette.key) }
    func string(_ text: String) -> String { paint(text, palette.string) }
    func number(_ text: String) -> String { paint(text, palette.number) }
    func literal(_ text: String) -> String { paint(text, palette.literal) }
    func headerName(_ text: String) -> String { paint(text, palette.headerName) }
    func status(_ text: String, code: Int) -> String {
        paint(text, code < 300 ? palette.success : code < 400 ? palette.redirect : palette.failure)
    }
}
