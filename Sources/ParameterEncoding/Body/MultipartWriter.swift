import Foundation

// MARK: - MultipartWriter

/// Writes the parts of a multipart body with one boundary to a sink, in pieces: part headers,
/// in-memory content, and files in 1 MiB chunks. Content is searched for the boundary as it
/// goes, so that a collision is found without a second pass over a file.
struct MultipartWriter {
    let parts: [MultipartFormBody.Part]
    let boundary: String

    /// Thrown when a part's content contains `--` followed by the boundary.
    struct Collision: Error {
        let partIndex: Int
    }

    static let chunkSize = 1 << 20

    /// Writes the whole body.
    func write(to sink: (Data) throws -> Void) throws {
        let delimiter = Array("--\(boundary)".utf8)
        for (index, part) in parts.enumerated() {
            try sink(try Self.header(of: part, index: index, boundary: boundary))
            switch part.content {
            case .data(let data):
                if Self.contains(data, delimiter) { throw Collision(partIndex: index) }
                try sink(data)
            case .file(let url):
                try streamFile(url, partIndex: index, delimiter: delimiter, to: sink)
            }
            try sink(Data("\r\n".utf8))
        }
        try sink(Data("--\(boundary)--\r\n".utf8))
    }

    private func streamFile(_ url: URL, partIndex: Int, delimiter: [UInt8], to sink: (Data) throws -> Void) throws {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw Self.error(partIndex, parts[partIndex], "cannot open \(url.path): \(error.localizedDescription)", underlying: error)
        }
        defer { try? handle.close() }
        // The size when opened: a file that another process truncates, grows or rewrites while it
        // is read would otherwise be sent as whatever was there, with no one told. A pipe cannot
        // say its size, and a /proc file says 0: those are read to their end unchecked.
        var expected: UInt64?
        if let size = try? handle.seekToEnd() {
            do {
                try handle.seek(toOffset: 0)
            } catch {
                throw Self.error(partIndex, parts[partIndex], "cannot read \(url.path): \(error.localizedDescription)", underlying: error)
            }
            expected = size > 0 ? size : nil
        }
        var received: UInt64 = 0
        // The last bytes of the previous chunk: a delimiter split across two chunks is found by
        // searching them with the start of the next one, without copying whole chunks.
        var carry = Data()
        while true {
            let chunk: Data
            do {
                guard let read = try handle.read(upToCount: Self.chunkSize), !read.isEmpty else { break }
                chunk = read
            } catch {
                throw Self.error(partIndex, parts[partIndex], "cannot read \(url.path): \(error.localizedDescription)", underlying: error)
            }
            let seam = carry + chunk.prefix(delimiter.count - 1)
            if Self.contains(seam, delimiter) || Self.contains(chunk, delimiter) { throw Collision(partIndex: partIndex) }
            let keep = delimiter.count - 1
            carry = chunk.count >= keep ? Data(chunk.suffix(keep)) : Data((carry + chunk).suffix(keep))
            received += UInt64(chunk.count)
            if let expected, received > expected { break }
            try sink(chunk)
        }
        if let expected, received != expected {
            throw Self.error(partIndex, parts[partIndex], "\(url.path) changed while it was read: it had \(expected) bytes when opened, and \(received > expected ? "more" : "only \(received)") could be read")
        }
    }

    /// `--boundary`, `Content-Disposition` and `Content-Type` lines and the blank line.
    static func header(of part: MultipartFormBody.Part, index: Int, boundary: String) throws -> Data {
        var text = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(escaped(part.name))\""
        if let fileName = part.fileName {
            text += "; filename=\"\(escaped(fileName))\""
        }
        text += "\r\n"
        if let mimeType = part.mimeType {
            guard !mimeType.isEmpty, mimeType.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
                throw error(index, part, "the MIME type \(mimeType.debugDescription) is not printable ASCII")
            }
            text += "Content-Type: \(mimeType)\r\n"
        }
        text += "\r\n"
        return Data(text.utf8)
    }

    /// A name or file name inside quotes, escaped as browsers do (WHATWG HTML, multipart/form-data):
    /// `"` as `%22`, CR as `%0D`, LF as `%0A`; other characters, non-ASCII included, as UTF-8.
    static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == 0x0D || $0 == 0x0A }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 6)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "%22"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func error(_ index: Int, _ part: MultipartFormBody.Part, _ detail: String, underlying: (any Error)? = nil) -> ParameterEncodingError {
        ParameterEncodingError(.invalidMultipart, detail: "part \(index + 1) (\(part.name.debugDescription)): \(detail)", underlyingError: underlying)
    }

    /// Whether `haystack` contains `needle`: Boyer–Moore–Horspool, which skips up to the
    /// needle's length per step, so a 1 GiB file is searched in a fraction of a second.
    static func contains(_ haystack: Data, _ needle: [UInt8]) -> Bool {
        let count = needle.count
        guard count > 0, haystack.count >= count else { return false }
        var skip = [Int](repeating: count, count: 256)
        for index in 0..<(count - 1) {
            skip[Int(needle[index])] = count - 1 - index
        }
        return haystack.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            var position = 0
            let last = needle[count - 1]
            while position <= bytes.count - count {
                let tail = bytes[position + count - 1]
                if tail == last {
                    var matched = true
                    for offset in 0..<(count - 1) where bytes[position + offset] != needle[offset] {
                        matched = false
                        break
                    }
                    if matched { return true }
                }
                position += skip[Int(tail)]
            }
            return false
        }
    }
}
