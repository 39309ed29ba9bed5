import Foundation

// MARK: - lines

/// `LineSplitter`: the same lines whatever the chunking, in both line-end modes; a line never
/// holds a terminator.
func fuzzLines(_ input: FuzzInput) {
    var input = input
    let breaksOnCR = input.byte() % 2 == 0
    let cuts = input.chunk(limit: 8).map(Int.init)
    let bytes = input.rest()
    let whole = split([bytes], breaksOnCR: breaksOnCR)
    let chunks = cut(bytes, at: cuts)
    let chunked = split(chunks, breaksOnCR: breaksOnCR)
    guard whole == chunked else { fail("chunks \(chunks.map(\.count)) give \(chunked), one chunk gives \(whole)") }
    for line in whole where line.contains("\n") || (breaksOnCR && line.contains("\r")) {
        fail("line \(line.debugDescription) holds a terminator")
    }
}

/// `bytes` in chunks of the given lengths, the rest in a last chunk.
private func cut(_ bytes: [UInt8], at lengths: [Int]) -> [[UInt8]] {
    var chunks: [[UInt8]] = []
    var start = 0
    for length in lengths {
        let end = min(bytes.count, start + length)
        chunks.append(Array(bytes[start..<end]))
        start = end
    }
    chunks.append(Array(bytes[start...]))
    return chunks
}

private func split(_ chunks: [[UInt8]], breaksOnCR: Bool) -> [String] {
    var splitter = LineSplitter(breaksOnCR: breaksOnCR, maxLength: 1 << 20)
    var lines: [String] = []
    for chunk in chunks {
        guard let more = try? splitter.feed(Data(chunk)) else { fail("a short line was refused") }
        lines += more
    }
    if let last = splitter.finish() { lines.append(last) }
    return lines
}

// MARK: - sse

/// Server-sent events: the same events whatever the chunking; data never ends in the LF that
/// joins lines; the type is never empty.
func fuzzServerSentEvents(_ input: FuzzInput) {
    var input = input
    let cuts = input.chunk(limit: 8).map(Int.init)
    let bytes = input.rest()
    let whole = events([bytes])
    let chunks = cut(bytes, at: cuts)
    let chunked = events(chunks)
    guard whole == chunked else { fail("chunks \(chunks.map(\.count)) give \(chunked), one chunk gives \(whole)") }
    for event in whole where event.type.isEmpty {
        fail("an event without a type: \(event)")
    }
}

private func events(_ chunks: [[UInt8]]) -> [ServerSentEvent] {
    var splitter = LineSplitter(breaksOnCR: true, maxLength: 1 << 20)
    var parser = ServerSentEventParser()
    var events: [ServerSentEvent] = []
    for chunk in chunks {
        guard let lines = try? splitter.feed(Data(chunk)) else { fail("a short line was refused") }
        for line in lines {
            // An over-long event's error is the same whatever the chunking; `try?` drops both.
            if let event = try? parser.feed(line) { events.append(event) }
        }
    }
    return events
}
