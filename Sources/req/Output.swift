import Foundation

// MARK: - Output

/// Where the exchange is printed: standard output, or with `--output FILE` (and no
/// `--download`) that file, which then gets exactly what a pipe would get: no colour, binary
/// bodies as they are.
struct Output {
    private let handle: FileHandle
    /// Whether the output is a terminal: colour, and binary bodies replaced by a note.
    let isTerminal: Bool

    /// Standard output.
    static var standardOutput: Output {
        Output(handle: .standardOutput, isTerminal: Terminal.stdoutIsTerminal)
    }

    /// The output `options` ask for: the `--output` file, created or emptied now, unless the
    /// body is downloaded (then `--output` names the download).
    ///
    /// - Throws: ``UsageError`` naming the file when it cannot be opened for writing.
    static func open(_ options: Options) throws -> Output {
        guard let path = options.output, !options.download else { return .standardOutput }
        let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else {
            throw UsageError("--output \(path): cannot open it for writing (\(String(cString: strerror(errno))))")
        }
        return Output(handle: FileHandle(fileDescriptor: descriptor, closeOnDealloc: true), isTerminal: false)
    }

    /// Writes bytes.
    ///
    /// - Throws: The error writing them (a full disk, say).
    func write(_ data: Data) throws {
        guard !data.isEmpty else { return }
        try handle.write(contentsOf: data)
    }

    /// Writes text as UTF-8.
    ///
    /// - Throws: The error writing it.
    func write(_ text: String) throws {
        try write(Data(text.utf8))
    }
}
