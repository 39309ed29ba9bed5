import Foundation
import Requests

/// Detail a test gathers for people who want it (the hostile-server matrix's rows, say): printed
/// when `REQUESTS_TEST_DETAIL=1`, otherwise written to a file under the temporary folder, so that
/// the README's `swift test` prints only what a reader needs.
enum TestDetail {
    /// Prints `lines`, or writes them to `<tmp>/swift-requests-test-detail/<name>.txt`.
    ///
    /// - Parameters:
    ///   - lines: The detail.
    ///   - name: The file's name, without extension.
    static func report(_ lines: [String], as name: String) {
        if ProcessInfo.processInfo.environment["REQUESTS_TEST_DETAIL"] == "1" {
            for line in lines { print(line) }
            return
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swift-requests-test-detail")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("\(name).txt")
        try? Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
    }
}

/// Polls `condition` every 5 ms until it holds, for at most 20 s: a wait bounded by how late the
/// machine runs, not by a tight constant.
///
/// - Parameter condition: What to wait for.
/// - Returns: Whether it came to hold in time.
func becomesTrue(_ condition: @Sendable () -> Bool) async throws -> Bool {
    let end = ContinuousClock.now + .seconds(20)
    while !condition() {
        guard ContinuousClock.now < end else { return false }
        try await Task.sleep(for: .milliseconds(5))
    }
    return true
}

extension RequestOptions {
    /// Every progress value the transfer has, for a test that looks at more than the first and
    /// the last.
    static var unpacedProgress: RequestOptions {
        var options = RequestOptions()
        options.progressPacing = .unpaced
        return options
    }
}
