import Foundation

// MARK: - MultipartFormBody

/// A `multipart/form-data` body (RFC 7578): text fields, bytes and files.
///
/// ```swift
/// let form = MultipartFormBody([
///     .text("title", "Holiday"),
///     .file("photo", at: URL(fileURLWithPath: "/tmp/beach.jpg")),           // image/jpeg
///     .data("notes", Data(notes.utf8), fileName: "notes.md"),              // text/markdown
/// ])
/// let upload = session.upload(multipart: form, to: "https://example.com/albums")
/// ```
///
/// Names and file names are written inside quotes as browsers write them: `"` as `%22`, CR and LF
/// as `%0D` and `%0A`, everything else (non-ASCII included) as UTF-8.
///
/// The boundary never occurs in the content. The default one is chosen from a fixed list of
/// candidates, so the same parts give the same bytes in every run: at creation, the first
/// candidate that no in-memory part contains; files are searched while they stream, and if one
/// contains the boundary, the body is written again with the next candidate.
///
/// Sent with `Session.upload(multipart:to:)`, files are streamed from disk and never held in
/// memory whole, and the request's `Content-Type` is always this body's. As a plain ``HTTPBody``
/// (``encode()``, ``HTTPBody/applied(to:)``), the whole body is built in memory, and, as for every
/// body, a `Content-Type` the request already has wins: it must then name the boundary.
public struct MultipartFormBody: HTTPBody {
    /// The parts, in order.
    public let parts: [Part]
    /// The boundary the body is written with, unless a file turns out to contain it.
    public let boundary: String
    /// Whether the caller chose the boundary; a chosen boundary found in the content is an error.
    private let boundaryIsFixed: Bool

    /// Creates a multipart body with a boundary that none of the in-memory parts contains.
    ///
    /// - Parameter parts: The parts, in order.
    public init(_ parts: [Part]) {
        self.parts = parts
        self.boundaryIsFixed = false
        let inMemory = parts.compactMap { part -> Data? in
            if case .data(let data) = part.content { return data }
            return nil
        }
        var attempt = 0
        var boundary = Self.candidate(0)
        while attempt < Self.maximumAttempts - 1,
              inMemory.contains(where: { MultipartWriter.contains($0, Array("--\(boundary)".utf8)) }) {
            attempt += 1
            boundary = Self.candidate(attempt)
        }
        self.boundary = boundary
    }

    /// Creates a multipart body with your own boundary.
    ///
    /// - Parameters:
    ///   - parts: The parts, in order.
    ///   - boundary: 1 to 70 characters from RFC 2046's set (letters, digits and `'()+_,-./:=?`
    ///     and space, not ending in a space). Writing the body fails if a part contains it.
    public init(_ parts: [Part], boundary: String) {
        self.parts = parts
        self.boundary = boundary
        self.boundaryIsFixed = true
    }

    /// Whether there are no parts.
    public var isEmpty: Bool { parts.isEmpty }

    /// `Content-Type: multipart/form-data; boundary=…` with ``boundary``.
    public var additionalHeaders: HTTPHeaders {
        HTTPHeaders([HTTPHeader(name: "Content-Type", value: Self.contentType(boundary))])
    }

    /// Returns the whole body, files read into memory.
    ///
    /// - Returns: The body, written with ``boundary``.
    /// - Throws: ``ParameterEncodingError`` with code ``ParameterEncodingError/Code/invalidMultipart``
    ///   naming the part: an unreadable file, a MIME type that is not printable ASCII, an invalid
    ///   boundary, or a file that contains ``boundary`` (``encodedWithHeaders()`` picks another).
    public func encode() throws -> Data {
        try inMemory(tryingOtherBoundaries: false).body
    }

    /// Returns the body and its `Content-Type`, choosing another boundary if a file contains ``boundary``.
    ///
    /// - Returns: The body and its headers.
    /// - Throws: As ``encode()``, except for a default boundary found in a file.
    public func encodedWithHeaders() throws -> (body: Data, headers: HTTPHeaders) {
        let (body, boundary) = try inMemory(tryingOtherBoundaries: true)
        return (body, HTTPHeaders([HTTPHeader(name: "Content-Type", value: Self.contentType(boundary))]))
    }

    /// The whole body in memory and the boundary it was written with.
    private func inMemory(tryingOtherBoundaries: Bool) throws -> (body: Data, boundary: String) {
        var result = Data()
        let boundary = try resolving(tryingOtherBoundaries: tryingOtherBoundaries) { boundary in
            result = Data()
            try MultipartWriter(parts: parts, boundary: boundary).write { result.append($0) }
        }
        return (result, boundary)
    }

    /// Writes the body to a file in chunks, never holding a file part in memory whole.
    ///
    /// - Parameter fileURL: Where to write; the file is created or replaced.
    /// - Returns: The `Content-Type` (with the boundary used) and the body's length in bytes.
    /// - Throws: As ``encode()``, or the error of creating or writing `fileURL`.
    public func write(to fileURL: URL) throws -> (contentType: String, length: Int64) {
        var length: Int64 = 0
        let boundary = try resolving(tryingOtherBoundaries: true) { boundary in
            guard FileManager.default.createFile(atPath: fileURL.path, contents: nil) else {
                throw ParameterEncodingError(.invalidMultipart, detail: "cannot create \(fileURL.path)")
            }
            let handle = try FileHandle(forWritingTo: fileURL)
            defer { try? handle.close() }
            length = 0
            try MultipartWriter(parts: parts, boundary: boundary).write { data in
                try handle.write(contentsOf: data)
                length += Int64(data.count)
            }
        }
        return (Self.contentType(boundary), length)
    }

    // MARK: Boundaries

    static let maximumAttempts = 16

    /// Runs `write` with the boundary, then, when allowed, with the next candidates while a file
    /// contains it; a collision it may not resolve is an error naming the part.
    private func resolving(tryingOtherBoundaries: Bool, _ write: (String) throws -> Void) throws -> String {
        var attempt = 0
        var boundary = self.boundary
        while true {
            do {
                try Self.validate(boundary)
                try write(boundary)
                return boundary
            } catch let collision as MultipartWriter.Collision {
                let part = parts[collision.partIndex]
                if !tryingOtherBoundaries || boundaryIsFixed || attempt >= Self.maximumAttempts {
                    throw MultipartWriter.error(collision.partIndex, part, "the content contains the boundary \(boundary.debugDescription)")
                }
                attempt += 1
                boundary = Self.candidate(attempt)
            }
        }
    }

    /// The `n`th default boundary: a fixed prefix and 96 bits from a fixed sequence.
    static func candidate(_ attempt: Int) -> String {
        var state = 0x5EED_B0B5_1234_5678 &+ UInt64(attempt) &* 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &+ 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let high = String(next(), radix: 16)
        let low = String(next() >> 32, radix: 16)
        return "swift-requests-" + String(repeating: "0", count: 16 - high.count) + high
            + String(repeating: "0", count: 8 - low.count) + low
    }

    private static let boundaryCharacters = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ".utf8)

    private static func validate(_ boundary: String) throws {
        let utf8 = boundary.utf8
        guard (1...70).contains(utf8.count), utf8.allSatisfy(boundaryCharacters.contains), utf8.last != UInt8(ascii: " ") else {
            throw ParameterEncodingError(.invalidMultipart, detail:
                "the boundary \(boundary.debugDescription) must be 1 to 70 of RFC 2046's characters, not ending in a space")
        }
    }

    /// The header value, quoting the boundary when it holds characters a token cannot.
    static func contentType(_ boundary: String) -> String {
        let plain = boundary.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "+")
        }
        return "multipart/form-data; boundary=" + (plain ? boundary : "\"\(boundary)\"")
    }
}
