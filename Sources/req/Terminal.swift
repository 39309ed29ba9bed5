import Foundation

// MARK: - Terminal

/// Where output goes and whether it may be coloured.
enum Terminal {
    /// Whether standard output is a terminal.
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    /// Whether standard error is a terminal (the progress bar goes there).
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Colour only on a terminal, never with `--no-color` or with `NO_COLOR` set (no-color.org).
    ///
    /// - Parameter terminal: Whether the output is a terminal (not with `--output FILE`).
    static func colors(_ options: Options, terminal: Bool) -> Bool {
        if options.color == false { return false }
        if let noColor = ProcessInfo.processInfo.environment["NO_COLOR"], !noColor.isEmpty { return false }
        return terminal
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

/// ANSI styles, or nothing when colour is off.
struct Style {
    let enabled: Bool

    func paint(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func key(_ text: String) -> String { paint(text, "34") }
    func string(_ text: String) -> String { paint(text, "33") }
    func number(_ text: String) -> String { paint(text, "36") }
    func literal(_ text: String) -> String { paint(text, "35") }
    func headerName(_ text: String) -> String { paint(text, "36") }
    func status(_ text: String, code: Int) -> String {
        paint(text, code < 300 ? "32" : code < 400 ? "33" : "31")
    }
}
