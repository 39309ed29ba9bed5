import Foundation

// MARK: - LineSplitter

/// Cuts a byte stream into lines, whatever the chunk boundaries: a line, a UTF-8 sequence or a CR LF
/// pair may be split across chunks.
///
/// Lines end at LF or CR LF; with ``breaksOnCR``, as server-sent events require, a lone CR ends one
/// too. The terminators are not part of the lines. Lines are decoded as UTF-8, invalid bytes
/// becoming U+FFFD. A line longer than ``maxLength`` bytes is an error rather than unbounded memory.
struct LineSplitter: Sendable {
    /// Whether a CR that is not followed by LF ends a line.
    let breaksOnCR: Bool
    /// The longest line accepted, in bytes, terminator excluded.
    let maxLength: Int
    /// The bytes of the line being read.
    private var pending: [UInt8] = []
    /// The last chunk ended in CR: an LF at the start of the next one belongs to that CR.
    private var afterCR = false

    init(breaksOnCR: Bool = false, maxLength: Int) {
        self.breaksOnCR = breaksOnCR
        self.maxLength = maxLength
    }

    /// Adds a chunk and returns the lines it completed.
    ///
    /// - Throws: ``LineTooLong`` when a line grows past ``maxLength``.
    mutating func feed(_ chunk: Data) throws -> [String] {
        var lines: [String] = []
        guard !chunk.isEmpty else { return lines }
        try chunk.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            var index = 0
            if afterCR, bytes.first == UInt8(ascii: "\n") {
                start = 1
                index = 1
            }
            afterCR = false
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\n") {
                    var end = index
                    if !breaksOnCR, end > start, bytes[end - 1] == UInt8(ascii: "\r") {
                        end -= 1
                    } else if !breaksOnCR, end == start, pending.last == UInt8(ascii: "\r") {
                        pending.removeLast()
                    }
                    lines.append(try line(UnsafeBufferPointer(rebasing: bytes[start..<end])))
                    start = index + 1
                } else if byte == UInt8(ascii: "\r"), breaksOnCR {
                    lines.append(try line(UnsafeBufferPointer(rebasing: bytes[start..<index])))
                    if index + 1 < bytes.count {
                        if bytes[index + 1] == UInt8(ascii: "\n") { index += 1 }
                    } else {
                        afterCR = true
                    }
                    start = index + 1
                }
                index += 1
            }
            if start < bytes.count {
                guard pending.count + bytes.count - start <= maxLength + 1 else {
                    throw LineTooLong(limit: maxLength)
                }
                pending.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
            }
        }
        return lines
    }

    /// Ends the stream and returns the last line when it had no terminator.
    mutating func finish() -> String? {
        defer { pending = [] }
        if !breaksOnCR, pending.last == UInt8(ascii: "\r") {
            pending.removeLast()
        }
        return pending.isEmpty ? nil : String(decoding: pending, as: UTF8.self)
    }

    /// The pending bytes and `tail` as one line; the pending bytes are used up.
    private mutating func line(_ tail: UnsafeBufferPointer<UInt8>) throws -> String {
        guard pending.count + tail.count <= maxLength else {
            throw LineTooLong(limit: maxLength)
        }
        if pending.isEmpty {
            return String(decoding: tail, as: UTF8.self)
        }
        pending.append(contentsOf: tail)
        defer { pending.removeAll(keepingCapacity: true) }
        return String(decoding: pending, as: UTF8.self)
    }
}

/// A line was longer than the splitter's limit.
struct LineTooLong: Error {
    let limit: Int
}

// MARK: - Lines

extension ResponseBody {
    /// The body as UTF-8 lines, split at LF or CR LF, without the terminators.
    ///
    /// A last line without a terminator is included. Lines longer than 1 MiB end the sequence with
    /// an error; use ``lines(maxLength:)`` for another limit.
    public var lines: Lines { Lines(body: self, maxLength: 1 << 20) }

    /// The body as UTF-8 lines, split at LF or CR LF, accepting lines up to `maxLength` bytes.
    ///
    /// - Parameter maxLength: The longest line accepted, in bytes.
    /// - Returns: The lines.
    public func lines(maxLength: Int) -> Lines {
        Lines(body: self, maxLength: maxLength)
    }

    /// A body's lines, as an `AsyncSequence` of `String`.
    public struct Lines: AsyncSequence, Sendable {
        /// One line, without its terminator.
        public typealias Element = String

        let body: ResponseBody
        let maxLength: Int

        /// Starts reading the body.
        ///
        /// - Returns: The iterator; destroying it before the end cancels the transfer.
        public func makeAsyncIterator() -> Iterator {
            Iterator(chunks: body.makeAsyncIterator(), splitter: LineSplitter(maxLength: maxLength))
        }

        /// Reads lines one after another.
        public struct Iterator: AsyncIteratorProtocol {
            var chunks: ResponseBody.Iterator
            var splitter: LineSplitter
            var ready: [String] = []
            var index = 0
            var ended = false

            /// The next line.
            ///
            /// - Returns: The line, or `nil` at the end of the body.
            /// - Throws: ``RequestError`` (``RequestError/Code/bodyTooLarge`` for a line over the limit,
            ///   ``RequestError/Code/streamFailed`` for a broken transfer), or `CancellationError`.
            public mutating func next() async throws -> String? {
                while index == ready.count {
                    guard !ended else { return nil }
                    ready.removeAll(keepingCapacity: true)
                    index = 0
                    if let chunk = try await chunks.next() {
                        do {
                            ready = try splitter.feed(chunk)
                        } catch {
                            chunks.reader.cancelTransfer()
                            throw RequestError(.bodyTooLarge, detail: "a line is longer than \(splitter.maxLength) bytes")
                        }
                    } else {
                        ended = true
                        if let last = splitter.finish() { ready = [last] }
                    }
                }
                defer { index += 1 }
                return ready[index]
            }
        }
    }
}
