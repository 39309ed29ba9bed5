import Foundation

// MARK: - StandardInput

/// Standard input as the request body, the way httpie takes it: `echo '{"a":1}' | req POST URL`.
///
/// It is read only when it is a pipe or a regular file (`req POST URL < body.json`). A terminal,
/// `/dev/null` and other devices, a socket, or a closed descriptor are not read, so a script or CI
/// job that gives `req` no input runs as before. A pipe is read to its end, as httpie reads it; a
/// pipe that stays open without data (a test runner's inherited standard input) would wait
/// forever, so after a few seconds a note on standard error says what `req` is waiting for and
/// that `--ignore-stdin` skips it. An empty pipe or file is no body.
enum StandardInput {
    /// What kind of file standard input is.
    enum Kind: Equatable {
        case pipe, regularFile, terminal, other
    }

    /// The kind of standard input, from `isatty` and `fstat`.
    static var kind: Kind {
        if isatty(STDIN_FILENO) == 1 { return .terminal }
        var status = stat()
        guard fstat(STDIN_FILENO, &status) == 0 else { return .other }
        switch status.st_mode & mode_t(S_IFMT) {
        case mode_t(S_IFIFO): return .pipe
        case mode_t(S_IFREG): return .regularFile
        default: return .other
        }
    }

    /// How long a pipe may stay silent before the note about `--ignore-stdin`.
    static let silenceBeforeNote: Int32 = 3_000

    /// The bytes piped or redirected into `req`, or `nil` when standard input is not to be read
    /// or holds nothing.
    ///
    /// - Throws: The error reading standard input.
    static func body() throws -> Data? {
        let kind = kind
        guard kind == .pipe || kind == .regularFile else { return nil }
        if kind == .pipe, !waitForData(milliseconds: silenceBeforeNote) {
            Terminal.error("req: waiting for the request body on standard input (a pipe); pass --ignore-stdin not to read it\n")
        }
        guard let data = try FileHandle.standardInput.readToEnd(), !data.isEmpty else { return nil }
        return data
    }

    /// Whether data (or the end of the pipe) arrives on standard input within the time given.
    private static func waitForData(milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        var result: Int32
        repeat {
            result = poll(&descriptor, 1, milliseconds)
        } while result < 0 && errno == EINTR
        return result != 0
    }
}
