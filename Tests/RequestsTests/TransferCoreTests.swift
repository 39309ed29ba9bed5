import Foundation
import Testing
@testable import Requests

/// `TransferCore`: every transition, as a table of state × event and the effects it returns.
/// Waiters, the engine and its hold are plain strings here, so the effects read as words.
@Suite struct TransferCoreTests {
    typealias Core = TransferCore<ResponseHead, String, String, String>

    struct Failure: Error {}

    static let url = URL(string: "http://127.0.0.1/") ?? URL(fileURLWithPath: "/")
    static let head = ResponseHead(statusCode: 200, url: url)

    /// A transfer in a named state: the engine attached, and what the state says happened.
    static func core(_ state: String, pauses: Bool = true) -> Core {
        var core = Core(request: (.get, url), buffering: ChunkQueue.Limits(bytes: 8, chunks: 3, enginePauses: pauses, batchBytes: 0))
        _ = core.attach("engine")
        switch state {
        case "awaiting head":
            break
        case "awaiting head, head awaited":
            _ = core.waitForHead("head reader")
        case "streaming":
            _ = core.receive(head: head)
        case "streaming, reader waiting":
            _ = core.receive(head: head)
            _ = core.waitForChunk("reader")
        case "streaming, 3 bytes buffered":
            _ = core.receive(head: head)
            _ = core.receive(Data([1, 2, 3]))
        case "streaming, pausing":
            _ = core.receive(head: head)
            _ = core.receive(Data(count: 8))
        case "streaming, paused":
            _ = core.receive(head: head)
            _ = core.receive(Data(count: 8))
            _ = core.paused("hold")
        case "ended, 3 bytes buffered":
            _ = core.receive(head: head)
            _ = core.receive(Data([1, 2, 3]))
            _ = core.finish(nil)
        case "ended":
            _ = core.receive(head: head)
            _ = core.finish(nil)
        case "failed before head":
            _ = core.finish(Failure())
        case "failed in body":
            _ = core.receive(head: head)
            _ = core.finish(Failure())
        case "cancelled":
            _ = core.cancel()
        default:
            Issue.record("no state \(state)")
        }
        return core
    }

    /// An event, applied to the core.
    static func apply(_ event: String, to core: inout Core) -> TransferEffects<ResponseHead, String, String, String> {
        switch event {
        case "head": return core.receive(head: head)
        case "chunk": return core.receive(Data([9]))
        case "big chunk": return core.receive(Data(count: 8))
        case "end": return core.finish(nil)
        case "failure": return core.finish(Failure())
        case "wait for head": return core.waitForHead("head reader 2")
        case "wait for chunk": return core.waitForChunk("reader 2")
        case "cancel": return core.cancel()
        case "paused": return core.paused("hold 2")
        case "attach": return core.attach("engine 2")
        default:
            Issue.record("no event \(event)")
            return TransferEffects()
        }
    }

    /// The effects in words, in the order the owner performs them.
    static func words(_ effects: TransferEffects<ResponseHead, String, String, String>) -> [String] {
        var words: [String] = []
        if let hold = effects.resume { words.append("resume engine (\(hold))") }
        for (waiter, outcome) in effects.resumes {
            switch outcome {
            case .head(let head): words.append("\(waiter) gets head \(head.statusCode)")
            case .end: words.append("\(waiter) gets the end")
            case .chunk(let chunk): words.append("\(waiter) gets [\(chunk.count)]")
            case .chunks(let chunks): words.append("\(waiter) gets \(chunks.map(\.count))")
            case .failure(is CancellationError): words.append("\(waiter) gets cancelled")
            case .failure(let error as RequestError): words.append("\(waiter) gets \(error.code)")
            case .failure: words.append("\(waiter) gets the failure")
            }
        }
        if let engine = effects.stop { words.append("stop \(engine)") }
        if effects.pause { words.append("pause engine") }
        if let engine = effects.release { words.append("release \(engine)") }
        if effects.dropped != nil { words.append("drop buffer") }
        return words
    }

    static let table: [(state: String, event: String, effects: [String], phase: Core.Phase)] = [
        // Waiting for the head.
        ("awaiting head", "head", [], .streaming),
        ("awaiting head, head awaited", "head", ["head reader gets head 200"], .streaming),
        ("awaiting head", "wait for head", [], .awaitingHead),
        ("awaiting head, head awaited", "wait for head", ["head reader 2 gets the failure"], .awaitingHead),
        ("awaiting head, head awaited", "failure", ["head reader gets the failure", "release engine"], .failed),
        ("awaiting head, head awaited", "end", ["head reader gets the failure", "release engine"], .failed),
        ("awaiting head, head awaited", "cancel", ["head reader gets cancelled", "stop engine"], .cancelled),
        ("awaiting head", "attach", ["release engine"], .awaitingHead),
        // The body arriving.
        ("streaming", "head", [], .streaming),
        ("streaming", "wait for head", ["head reader 2 gets head 200"], .streaming),
        ("streaming", "chunk", [], .streaming),
        ("streaming", "big chunk", ["pause engine"], .streaming),
        ("streaming", "wait for chunk", [], .streaming),
        ("streaming, reader waiting", "chunk", ["reader gets [1]"], .streaming),
        ("streaming, reader waiting", "wait for chunk", ["reader 2 gets streamFailed"], .streaming),
        ("streaming, reader waiting", "end", ["reader gets the end", "release engine"], .ended),
        ("streaming, reader waiting", "failure", ["reader gets the failure", "release engine"], .failed),
        ("streaming, reader waiting", "cancel", ["reader gets cancelled", "stop engine"], .cancelled),
        ("streaming, 3 bytes buffered", "wait for chunk", ["reader 2 gets [3]"], .streaming),
        ("streaming, 3 bytes buffered", "cancel", ["stop engine", "drop buffer"], .cancelled),
        // Back-pressure: paused at the limit, resumed at half of it.
        ("streaming, pausing", "paused", [], .streaming),
        ("streaming, pausing", "chunk", [], .streaming),
        ("streaming, pausing", "wait for chunk", ["reader 2 gets [8]"], .streaming),
        ("streaming, paused", "wait for chunk", ["resume engine (hold)", "reader 2 gets [8]"], .streaming),
        ("streaming, paused", "cancel", ["resume engine (hold)", "stop engine", "drop buffer"], .cancelled),
        ("streaming, paused", "end", ["resume engine (hold)", "release engine"], .ended),
        // Ended or failed: what is buffered first.
        ("ended, 3 bytes buffered", "wait for chunk", ["reader 2 gets [3]"], .ended),
        ("ended", "wait for chunk", ["reader 2 gets the end"], .ended),
        ("ended", "chunk", [], .ended),
        ("ended", "failure", [], .ended),
        ("ended", "cancel", [], .cancelled),
        ("ended", "attach", ["release engine 2"], .ended),
        ("failed before head", "wait for head", ["head reader 2 gets the failure"], .failed),
        ("failed in body", "wait for chunk", ["reader 2 gets the failure"], .failed),
        ("failed in body", "cancel", [], .cancelled),
        // Cancelled: nothing more, and an engine that comes later is stopped at once.
        ("cancelled", "wait for head", ["head reader 2 gets cancelled"], .cancelled),
        ("cancelled", "wait for chunk", ["reader 2 gets cancelled"], .cancelled),
        ("cancelled", "chunk", [], .cancelled),
        ("cancelled", "head", [], .cancelled),
        ("cancelled", "end", [], .cancelled),
        ("cancelled", "cancel", [], .cancelled),
        ("cancelled", "attach", ["stop engine 2"], .cancelled),
    ]

    @Test(arguments: table.indices)
    func transition(row: Int) {
        let (state, event, expected, phase) = Self.table[row]
        var core = Self.core(state)
        let effects = Self.apply(event, to: &core)
        #expect(Self.words(effects) == expected, "\(state) + \(event)")
        #expect(core.phase == phase, "\(state) + \(event)")
    }

    /// A paused engine is resumed once the reader took the queue down to half the byte limit.
    @Test func aPausedEngineResumesAtHalfTheLimit() {
        var core = Core(request: (.get, Self.url), buffering: ChunkQueue.Limits(bytes: 8, enginePauses: true, batchBytes: 0))
        _ = core.attach("engine")
        _ = core.receive(head: Self.head)
        _ = core.receive(Data(count: 3))
        _ = core.receive(Data(count: 3))
        #expect(Self.words(core.receive(Data(count: 3))) == ["pause engine"])
        #expect(Self.words(core.paused("hold")).isEmpty)
        #expect(Self.words(core.waitForChunk("reader")) == ["reader gets [3]"])
        #expect(Self.words(core.waitForChunk("reader")) == ["resume engine (hold)", "reader gets [3]"])
    }

    /// The reader catching up while the engine is being paused: the pause, once reported, is
    /// let go at once.
    @Test func aPauseReportedAfterTheReaderCaughtUpResumesAtOnce() {
        var core = Self.core("streaming, pausing")
        #expect(Self.words(core.waitForChunk("reader")) == ["reader gets [8]"])
        #expect(Self.words(core.paused("hold")) == ["resume engine (hold)"])
    }

    /// An engine that cannot pause spills what is beyond the limit to disk, read back in order.
    @Test func anEngineThatCannotPauseSpillsInOrder() {
        var core = Core(request: (.get, Self.url), buffering: ChunkQueue.Limits(bytes: 4, enginePauses: false, batchBytes: 0))
        _ = core.receive(head: Self.head)
        for byte in UInt8(0)..<6 {
            #expect(Self.words(core.receive(Data([byte, byte]))).isEmpty)
        }
        _ = core.finish(nil)
        var read = Data()
        while let outcome = core.waitForChunk("reader").resumes.first?.outcome {
            switch outcome {
            case .chunk(let chunk): read.append(chunk)
            case .chunks(let chunks): chunks.forEach { read.append($0) }
            default: break
            }
            if case .end = outcome { break }
        }
        #expect(read == Data([0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]))
    }

    /// A reader further behind than the spill limit fails the transfer, and the engine stops.
    @Test func aReaderTooFarBehindFailsTheTransfer() {
        var core = Core(request: (.get, Self.url), buffering: ChunkQueue.Limits(bytes: 2, enginePauses: false, spillLimit: 4))
        _ = core.attach("engine")
        _ = core.receive(head: Self.head)
        _ = core.receive(Data([1, 2]))
        #expect(Self.words(core.receive(Data(count: 5))) == ["stop engine"])
        #expect(core.phase == .failed)
        // What was kept is read, then the failure.
        #expect(Self.words(core.waitForChunk("reader")) == ["reader gets [2]"])
        #expect(Self.words(core.waitForChunk("reader")) == ["reader gets [5]"])
        #expect(Self.words(core.waitForChunk("reader")) == ["reader gets bodyTooLarge"])
    }
}
