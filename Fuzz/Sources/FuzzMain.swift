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
    "cache": fuzzCache,
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

// MARK: - Percent-decoding

/// `%XX` sequences decoded to bytes, then UTF-8; `nil` for a malformed escape or invalid UTF-8.
///
/// Not `removingPercentEncoding`: Foundation's drops a byte-order mark at the start of the text
/// (`"%EF%BB%BFx"` decodes to `"x"`), so it cannot check that a leading U+FEFF was kept.
func percentDecoded(_ text: some StringProtocol) -> String? {
    var bytes: [UInt8] = []
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
        guard byte == UInt8(ascii: "%") else {
            bytes.append(byte)
            continue
        }
        guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
        bytes.append(high << 4 | low)
    }
    return String(validating: bytes, as: UTF8.self)
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
