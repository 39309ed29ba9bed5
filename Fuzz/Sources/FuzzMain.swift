import Foundation

// The one libFuzzer entry point of the fuzz binary: `FUZZ_TARGET` picks the target, so that one
// build serves them all (see Fuzz/README.md). Each target checks a property and stops the process
// with a message when it fails; libFuzzer then saves the input as a crash file.

/// A target: reads its input and traps on a property failure.
typealias FuzzTarget = (FuzzInput) -> Void

let fuzzTargets: [String: FuzzTarget] = [
    "escape": fuzzEscape,
    "query": fuzzQuery,
    "json": fuzzJSON,
    "plist": fuzzPropertyList,
    "multipart": fuzzMultipart,
    "headers": fuzzHeaders,
    "form": fuzzFormEncoder,
    "lines": fuzzLines,
    "sse": fuzzServerSentEvents,
]

nonisolated(unsafe) let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
    guard let target = fuzzTargets[name] else {
        FileHandle.standardError.write(Data("FUZZ_TARGET must be one of \(fuzzTargets.keys.sorted())\n".utf8))
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    selectedTarget(FuzzInput(Array(UnsafeBufferPointer(start: data, count: size))))
    return 0
}

/// Stops the process with a message: libFuzzer reports it and keeps the input.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("PROPERTY FAILED: \(message)\n".utf8))
    abort()
}

// MARK: - FuzzInput

/// The fuzzer's bytes, read as small decisions and strings.
struct FuzzInput {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { index >= bytes.count }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// Up to `limit` bytes, ending at a 0xFF byte or the end.
    mutating func chunk(limit: Int = 64) -> [UInt8] {
        var result: [UInt8] = []
        while index < bytes.count, result.count < limit {
            let byte = bytes[index]
            index += 1
            if byte == 0xFF { break }
            result.append(byte)
        }
        return result
    }

    /// A string decoded from the next chunk (invalid UTF-8 becomes U+FFFD).
    mutating func string(limit: Int = 64) -> String {
        String(decoding: chunk(limit: limit), as: UTF8.self)
    }

    /// All the bytes that are left.
    mutating func rest() -> [UInt8] {
        defer { index = bytes.count }
        return Array(bytes[min(index, bytes.count)...])
    }
}
