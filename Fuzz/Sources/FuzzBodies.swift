import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - multipart

/// `MultipartFormBody`: the boundary never occurs in the content, and a parser reads back every
/// part's name and bytes.
func fuzzMultipart(_ input: FuzzInput) {
    var input = input
    var parts: [MultipartFormBody.Part] = []
    var expected: [(String, [UInt8])] = []
    while !input.isAtEnd, parts.count < 6 {
        let name = "p\(parts.count)"
        let content = input.chunk(limit: 200)
        parts.append(.data(name, Data(content), fileName: input.byte() % 2 == 0 ? "f\(parts.count).bin" : nil))
        expected.append((name, content))
    }
    guard !parts.isEmpty else { return }
    let body = MultipartFormBody(parts)
    let data: Data
    let contentType: String
    do {
        let (encoded, headers) = try body.encodedWithHeaders()
        data = encoded
        contentType = headers.value(for: "Content-Type") ?? ""
    } catch {
        fail("multipart threw \(error)")
    }
    guard let range = contentType.range(of: "boundary=") else { fail("no boundary in \(contentType)") }
    let boundary = Array(("--" + contentType[range.upperBound...]).utf8)
    for (_, content) in expected where contains(content, boundary) {
        fail("the boundary \(String(decoding: boundary, as: UTF8.self)) occurs in a part")
    }
    // Split at CRLF--boundary; the first piece is the preamble, the last starts with "--".
    let bytes = Array(data)
    var pieces: [[UInt8]] = []
    var start = 0
    var index = 0
    let delimiter = [13, 10] + boundary
    guard bytes.starts(with: boundary) else { fail("the body does not start with the boundary") }
    start = boundary.count
    index = start
    while index + delimiter.count <= bytes.count {
        if Array(bytes[index..<(index + delimiter.count)]) == delimiter {
            pieces.append(Array(bytes[start..<index]))
            index += delimiter.count
            start = index
        } else {
            index += 1
        }
    }
    guard Array(bytes[start...]).starts(with: Array("--".utf8)) else { fail("no closing delimiter") }
    guard pieces.count == expected.count else { fail("read back \(pieces.count) parts, wrote \(expected.count)") }
    for (piece, (name, content)) in zip(pieces, expected) {
        guard let headerEnd = firstIndex(of: [13, 10, 13, 10], in: piece) else { fail("part \(name) has no header end") }
        let headers = String(decoding: piece[..<headerEnd], as: UTF8.self)
        guard headers.contains("name=\"\(name)\"") else { fail("part headers \(headers.debugDescription) lack \(name)") }
        guard Array(piece[(headerEnd + 4)...]) == content else { fail("part \(name) content differs") }
    }
}

private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    firstIndex(of: needle, in: haystack) != nil
}

private func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard needle.count <= haystack.count, !needle.isEmpty else { return nil }
    for start in 0...(haystack.count - needle.count) where Array(haystack[start..<(start + needle.count)]) == needle {
        return start
    }
    return nil
}

// MARK: - headers

/// `HTTPHeaders.validate()` never accepts CR, LF or NUL, in a name or a value, nor an empty name.
func fuzzHeaders(_ input: FuzzInput) {
    var input = input
    var headers = HTTPHeaders()
    while !input.isAtEnd, headers.count < 4 {
        headers.add(name: input.string(limit: 16), value: input.string(limit: 32))
    }
    guard (try? headers.validate()) != nil else { return }
    for header in headers {
        let forbidden: Set<Unicode.Scalar> = ["\r", "\n", "\0"]
        if header.name.isEmpty || header.name.unicodeScalars.contains(where: forbidden.contains)
            || header.value.unicodeScalars.contains(where: forbidden.contains) {
            fail("validate() accepted \(header.name.debugDescription): \(header.value.debugDescription)")
        }
    }
}

// MARK: - form

/// `URLEncodedFormEncoder`: what it writes percent-decodes back to the value's fields.
func fuzzFormEncoder(_ input: FuzzInput) {
    struct Form: Encodable {
        let name: String
        let tags: [String]
        let nested: [String: String]
    }
    var input = input
    let form = Form(name: input.string(), tags: (0..<Int(input.byte() % 3)).map { _ in input.string(limit: 12) },
                    nested: [input.string(limit: 8): input.string(limit: 8)])
    let text: String
    do {
        text = try URLEncodedFormEncoder().encode(form)
    } catch {
        fail("URLEncodedFormEncoder threw \(error)")
    }
    let pairs = text.isEmpty ? [] : text.split(separator: "&").map { pair -> String in
        let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2, let key = percentDecoded(halves[0]),
              let value = percentDecoded(halves[1]) else { fail("malformed pair \(pair) in \(text)") }
        return key + "=" + value
    }
    var expected = ["name=" + form.name] + form.tags.map { "tags[]=" + $0 }
    expected += form.nested.map { "nested[" + $0.key + "]=" + $0.value }
    guard pairs.sorted() == expected.sorted() else { fail("\(text) reads back as \(pairs.sorted()), expected \(expected.sorted())") }

    // Into a request value, query and body, as parameters and as parameter sets: the bytes the
    // URLRequest path writes.
    guard let url = URL(string: "https://example.com/p?x=1") else { fail("no URL") }
    for method in [HTTPMethod.get, .post] {
        var request = OutgoingRequest(url: url, method: method)
        var viaSets = OutgoingRequest(url: url, method: method)
        let viaURLRequest: URLRequest
        do {
            try URLEncodedFormParameterEncoder.default.encode(form, into: &request)
            viaURLRequest = try URLEncodedFormParameterEncoder.default.encode(form, into: URLRequest(url: url, method: method))
            try ParameterSet.encode([.query(["tag": form.tags]), .body(["name": form.name])], into: &viaSets)
        } catch {
            fail("the form encoder into a request value threw \(error)")
        }
        let body: Data? = if case .data(let data) = request.body.storage { data } else { nil }
        guard request.url == viaURLRequest.url, body == viaURLRequest.httpBody else {
            fail("into a request value: \(request.url) \(String(describing: body)); through URLRequest: \(String(describing: viaURLRequest.url)) \(String(describing: viaURLRequest.httpBody))")
        }
        do {
            let expectedSets = try ParameterSet.encode([.query(["tag": form.tags]), .body(["name": form.name])], into: URLRequest(url: url, method: method))
            let setsBody: Data? = if case .data(let data) = viaSets.body.storage { data } else { nil }
            guard viaSets.url == expectedSets.url, setsBody == expectedSets.httpBody else {
                fail("parameter sets into a request value differ from the URLRequest path")
            }
        } catch {
            fail("parameter sets threw \(error)")
        }
    }
}
