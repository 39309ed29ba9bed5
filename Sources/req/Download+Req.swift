import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - Downloads

extension Download {
    /// Downloads to `--output`, or to a file named from `Content-Disposition` or the URL in the
    /// current directory (never replacing one: `name-1`, `name-2`…), with a progress bar on a
    /// terminal.
    static func run(_ session: Session, _ request: OutgoingRequest, options: Options) async throws -> Response {
        let directory = options.output.map { URL(fileURLWithPath: $0).deletingLastPathComponent() }
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let partial = directory.appendingPathComponent(".req-\(UUID().uuidString).download")
        let download = session.download(request, to: partial)
        let bar = Task {
            let bar = ProgressBar(start: .now)
            let draw = Terminal.stderrIsTerminal
            var lastDrawn = ContinuousClock.now - .seconds(1)
            var last: TransferProgress?
            for await progress in download.progress {
                last = progress
                if draw, ContinuousClock.now - lastDrawn >= .milliseconds(100) {
                    lastDrawn = .now
                    Terminal.error("\r" + bar.line(received: progress.completedBytes, total: progress.totalBytes) + "\u{1B}[K")
                }
            }
            if draw, let last {
                Terminal.error("\r" + bar.line(received: last.completedBytes, total: last.totalBytes) + "\u{1B}[K\n")
            }
        }
        let response: Response
        do {
            response = try await download.response()
            await bar.value
        } catch {
            bar.cancel()
            throw error
        }
        guard let written = response.fileURL else { return response }
        let target = options.output.map { URL(fileURLWithPath: $0) }
            ?? unusedName(in: directory, for: fileName(response))
        if FileManager.default.fileExists(atPath: target.path) {
            try FileManager.default.removeItem(at: target)
        }
        try FileManager.default.moveItem(at: written, to: target)
        Terminal.error("Saved to \(target.lastPathComponent)\n")
        return response
    }

    /// The name `Content-Disposition` gives; or the URL's last path component (`index` when it
    /// has none) with the extension of the response's `Content-Type` added when it has none
    /// (`/report` as `application/json` is `report.json`), as httpie names downloads.
    static func fileName(_ response: Response) -> String {
        if let disposition = response.headers.value(for: "Content-Disposition"),
           let range = disposition.range(of: "filename=") {
            var name = String(disposition[range.upperBound...].prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces)
            if name.hasPrefix("\""), name.hasSuffix("\""), name.count >= 2 { name = String(name.dropFirst().dropLast()) }
            name = (name as NSString).lastPathComponent
            if !name.isEmpty, name != ".", name != ".." { return name }
        }
        let last = response.request.url?.lastPathComponent ?? ""
        let name = last.isEmpty || last == "/" ? "index" : last
        guard !name.dropFirst().contains("."),
              let type = response.headers.value(for: "Content-Type"),
              let fileExtension = MIMEType.fileExtension(for: type) else { return name }
        return name + "." + fileExtension
    }

    /// `name`, or `name-1`, `name-2`… when it exists.
    static func unusedName(in directory: URL, for name: String) -> URL {
        var candidate = directory.appendingPathComponent(name)
        var number = 1
        while FileManager.default.fileExists(atPath: candidate.path) {
            candidate = directory.appendingPathComponent("\(name)-\(number)")
            number += 1
        }
        return candidate
    }
}
