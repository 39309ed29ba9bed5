import Foundation

/// An executable target of this package that SwiftPM built beside the tests (`req`,
/// `URLSessionProbe`): looked for beside the test bundle, then in `.build/debug`.
///
/// - Parameter name: The executable's name.
/// - Returns: Its URL.
/// - Throws: `CocoaError(.fileNoSuchFile)` naming the places looked in.
public func builtExecutable(_ name: String) throws -> URL {
    var candidates: [URL] = []
    if let executable = Bundle.main.executableURL {
        candidates.append(executable.deletingLastPathComponent())
    }
    candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    for bundle in Bundle.allBundles {
        candidates.append(bundle.bundleURL.deletingLastPathComponent())
    }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(root.appendingPathComponent(".build/debug"))
    for directory in candidates {
        let url = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no \(name) executable in \(candidates.map(\.path))"])
}
