import Foundation
import Testing
@testable import Requests

/// `TransferCore`: every transition, as a table of state × event and the actions it returns.
/// Waiters and engines are named here, so the actions read as words.
@Suite struct TransferCoreTests {
    typealias Core = TransferCore<String>

    struct Failure: Error {}

    /// An engine known by its name; stopping it is an action the table reads.
    struct NamedEngine: TransferEngine {
        let name: String
        func stop() {}
    }

    static let url = URL(string: "http://127.0.0.1/") ?? URL(fileURLWithPath: "/")
    static let head = ResponseHead(statusCode: 200, url: url)

    /// A transfer in a named state: the engine attached, and what the state says happened.
    static func core(_ state: String, pauses: Bool = true) -> Core {
        var core = Core(request: (.get, url), buffering: TransferBuffering(bytes: 8, chunks: 3, enginePauses: pauses, batchBytes: 0))
        _ = core.attach(NamedEngine(name: "engine"))
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
            _ = core.paused(resumingWith: {})
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
        case "holding":
            _ = core.receive(head: head, holdingBodyUpTo: 10)
        case "holding, head awaited":
            _ = core.waitForHead("head reader")
            _ = core.receive(head: head, holdingBodyUpTo: 10)
        case "holding 3 bytes, head awaited":
            _ = core.waitForHead("head reader")
            _ = core.receive(head: head, holdingBodyUpTo: 10)
            _ = core.receive(Data([1, 2, 3]))
        case "spilling 2 bytes":
            core = Self.spilling()
        case "spilling 2 bytes, 1 more pending":
            core = Self.spilling()
            _ = core.receive(Data([1]))
        case "spilled, ended":
            core = Self.spilling()
            _ = core.spillWritten(2, error: nil)
            _ = core.finish(nil)
        case "spilled, ended, memory read":
            core = Self.spilling()
            _ = core.spillWritten(2, error: nil)
            _ = core.finish(nil)
            _ = core.waitForChunk("reader")
        case "spilled, ended, read from disk":
            core = Self.spilling()
            _ = core.spillWritten(2, error: nil)
            _ = core.finish(nil)
            _ = core.waitForChunk("reader")
            _ = core.waitForChunk("reader 2")
        case "spilling 2 bytes, read, ended":
            core = Self.spilling()
            _ = core.finish(nil)
            _ = core.waitForChunk("reader")
            _ = core.waitForChunk("reader")
        default:
            Issue.record("no state \(state)")
        }
        return core
    }

    /// An event, applied to the core.
    static func apply(_ event: String, to core: inout Core) -> Core.Actions {
        switch event {
        case "head": return core.receive(head: head)
        case "held head": return core.receive(head: head, holdingBodyUpTo: 10)
        case "chunk": return core.receive(Data([9]))
        case "big chunk": return core.receive(Data(count: 8))
        case "end": return core.finish(nil)
        case "failure": return core.finish(Failure())
        case "wait for head": return core.waitForHead("head reader 2")
        case "wait for chunk": return core.waitForChunk("reader 2")
        case "cancel": return core.cancel()
        case "paused": return core.paused(resumingWith: {})
        case "spilled": return core.spillWritten(2, error: nil)
        case "read back": return core.spillRead(.success(Data(count: 2)))
        case "disk failure": return core.spillWritten(2, error: Failure())
        case "attach": return core.attach(NamedEngine(name: "engine 2"))
        default:
            Issue.record("no event \(event)")
            return Core.Actions()
        }
    }

    /// The actions in words, in the order the owner performs them.
    static func words(_ actions: Core.Actions) -> [String] {
        actions.map { action in
            switch action {
            case .resumeEngine: "resume engine"
            case .resume(let waiter, .head(let head)): "\(waiter) gets head \((try? head.responseHead())?.statusCode ?? 0)"
            case .resume(let waiter, .end): "\(waiter) gets the end"
            case .resume(let waiter, .chunk(let chunk)): "\(waiter) gets [\(chunk.count)]"
            case .resume(let waiter, .chunks(let chunks)): "\(waiter) gets \(chunks.map(\.count))"
            case .resume(let waiter, .failure(is CancellationError)): "\(waiter) gets cancelled"
            case .resume(let waiter, .failure(let error as RequestError)): "\(waiter) gets \(error.code)"
            case .resume(let waiter, .failure): "\(waiter) gets the failure"
            case .stop(let engine): "stop \((engine as? NamedEngine)?.name ?? "?")"
            case .pause: "pause engine"
            case .spill(_, let chunks, _): "spill \(chunks.map(\.count))"
            case .readSpill(_, let count, let offset): "read \(count) from disk at \(offset)"
            case .closeSpill: "close spill"
            case .waitForDisk: "engine waits for the disk"
            case .diskCaughtUp: "engine goes on"
            case .release(let engine as NamedEngine): "release \(engine.name)"
            case .release: "drop buffer"
            }
        }
    }

    static let table: [(state: String, event: String, effects: [String], phase: TransferPhase)] = [
        // Waiting for the head.
        ("awaiting head", "head", [], .streaming),
        ("awaiting head, head awaited", "head", ["head reader gets head 200"], .streaming),
        ("awaiting head", "wait for head", [], .awaitingHead),
        ("awaiting head, head awaited", "wait for head", ["head reader 2 gets the failure"], .awaitingHead),
        ("awaiting head, head awaited", "failure", ["release engine", "head reader gets the failure"], .failed),
        ("awaiting head, head awaited", "end", ["release engine", "head reader gets the failure"], .failed),
        ("awaiting head, head awaited", "cancel", ["stop engine", "head reader gets cancelled"], .cancelled),
        ("awaiting head", "attach", ["release engine"], .awaitingHead),
        // The body arriving.
        ("streaming", "head", [], .streaming),
        ("streaming", "wait for head", ["head reader 2 gets head 200"], .streaming),
        ("streaming", "chunk", [], .streaming),
        ("streaming", "big chunk", ["pause engine"], .streaming),
        ("streaming", "wait for chunk", [], .streaming),
        ("streaming, reader waiting", "chunk", ["reader gets [1]"], .streaming),
        ("streaming, reader waiting", "wait for chunk", ["reader 2 gets streamFailed"], .streaming),
        ("streaming, reader waiting", "end", ["release engine", "reader gets the end"], .ended),
        ("streaming, reader waiting", "failure", ["release engine", "reader gets the failure"], .failed),
        ("streaming, reader waiting", "cancel", ["stop engine", "reader gets cancelled"], .cancelled),
        ("streaming, 3 bytes buffered", "wait for chunk", ["reader 2 gets [3]"], .streaming),
        ("streaming, 3 bytes buffered", "cancel", ["stop engine", "drop buffer"], .cancelled),
        // A body read whole: the head held back until the body ends, or grows past 10 bytes.
        ("awaiting head", "held head", [], .streaming),
        ("awaiting head, head awaited", "held head", [], .streaming),
        ("holding", "head", [], .streaming),
        ("holding", "wait for head", [], .streaming),
        ("holding", "attach", ["release engine"], .streaming),
        ("holding, head awaited", "wait for head", ["head reader 2 gets the failure"], .streaming),
        ("holding, head awaited", "big chunk", [], .streaming),
        ("holding 3 bytes, head awaited", "big chunk", ["pause engine", "head reader gets head 200"], .streaming),
        ("holding 3 bytes, head awaited", "end", ["release engine", "head reader gets head 200"], .ended),
        ("holding 3 bytes, head awaited", "failure", ["release engine", "head reader gets head 200"], .failed),
        ("holding 3 bytes, head awaited", "cancel", ["stop engine", "head reader gets cancelled", "drop buffer"], .cancelled),
        ("holding, head awaited", "end", ["release engine", "head reader gets head 200"], .ended),
        // Back-pressure: paused at the limit, resumed at half of it.
        ("streaming, pausing", "paused", [], .streaming),
        ("streaming, pausing", "chunk", [], .streaming),
        ("streaming, pausing", "wait for chunk", ["reader 2 gets [8]"], .streaming),
        ("streaming, paused", "wait for chunk", ["reader 2 gets [8]", "resume engine"], .streaming),
        ("streaming, paused", "cancel", ["stop engine", "resume engine", "drop buffer"], .cancelled),
        ("streaming, paused", "end", ["release engine", "resume engine"], .ended),
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
        // Spilling (an engine that cannot pause, its memory full): to disk, then read back.
        ("spilling 2 bytes", "chunk", [], .streaming),
        ("spilling 2 bytes, 1 more pending", "spilled", ["spill [1]"], .streaming),
        ("spilling 2 bytes", "wait for chunk", ["reader 2 gets [8]"], .streaming),
        ("spilling 2 bytes", "spilled", [], .streaming),
        ("spilling 2 bytes", "disk failure", ["stop engine", "close spill"], .failed),
        ("spilling 2 bytes", "end", ["release engine"], .ended),
        ("spilling 2 bytes", "cancel", ["stop engine", "drop buffer", "close spill"], .cancelled),
        ("spilled, ended", "wait for chunk", ["reader 2 gets [8]"], .ended),
        ("spilled, ended, memory read", "wait for chunk", ["read 2 from disk at 0"], .ended),
        ("spilled, ended, read from disk", "read back", ["reader 2 gets [2]", "close spill"], .ended),
        ("spilled, ended, read from disk", "cancel", ["reader 2 gets cancelled", "close spill"], .cancelled),
        ("spilled, ended, read from disk", "wait for chunk", ["reader 2 gets streamFailed"], .ended),
        ("spilling 2 bytes, read, ended", "spilled", ["read 2 from disk at 0"], .ended),
        ("spilling 2 bytes, read, ended", "disk failure", ["reader gets streamFailed", "close spill"], .failed),
        ("spilling 2 bytes, read, ended", "cancel", ["reader gets cancelled", "close spill"], .cancelled),
    ]

    /// A transfer whose engine cannot pause: 8 bytes in memory, then 2 decided for disk and not
    /// reported written yet.
    static func spilling() -> Core {
        var core = Core(request: (.get, url), buffering: TransferBuffering(bytes: 8, enginePauses: false, batchBytes: 0))
        _ = core.attach(NamedEngine(name: "engine"))
        _ = core.receive(head: head)
        _ = core.receive(Data(count: 8))
        _ = core.receive(Data(count: 2))
        return core
    }

    @Test(arguments: table.indices)
    func transition(row: Int) {
        let (state, event, expected, phase) = Self.table[row]
        var core = Self.core(state)
        let actions = Self.apply(event, to: &core)
        #expect(Self.words(actions) == expected, "\(state) + \(event)")
        #expect(core.phase == phase, "\(state) + \(event)")
    }

    /// A held head waits past the engine's chunk limit without pausing it (the reader cannot read
    /// yet), then the whole body is taken at once, and the reader's next wait is the end.
    @Test func aHeldBodyIsTakenWholeAfterItsEnd() {
        var core = Self.core("holding, head awaited")
        for _ in 0..<5 {
            #expect(Self.words(core.receive(Data([7, 7]))) == [])
        }
        #expect(core.takeWholeBody() == nil, "the engine has not finished")
        #expect(Self.words(core.finish(nil)) == ["release engine", "head reader gets head 200"])
        let whole = core.takeWholeBody()
        #expect(whole?.map(\.count) == [2, 2, 2, 2, 2])
        #expect(Self.words(core.waitForChunk("reader")) == ["reader gets the end"])
        #expect(core.takeWholeBody() == [])
    }

    /// A held body read chunk by chunk after its end comes in one piece, whatever the batch size.
    @Test func aHeldBodyReadAfterItsEndComesInOnePiece() {
        var core = Self.core("holding 3 bytes, head awaited")
        _ = core.receive(Data([4, 5]))
        _ = core.finish(nil)
        #expect(Self.words(core.waitForChunk("reader")) == ["reader gets [3, 2]"])
        #expect(Self.words(core.waitForChunk("reader")) == ["reader gets the end"])
    }

    /// A body not all in memory, or still arriving, is not taken whole.
    @Test func aBodyOnDiskOrStillArrivingIsNotTakenWhole() {
        var streaming = Self.core("streaming, 3 bytes buffered")
        #expect(streaming.takeWholeBody() == nil)
        var spilled = Self.core("spilled, ended")
        #expect(spilled.takeWholeBody() == nil)
        var failed = Self.core("failed in body")
        #expect(failed.takeWholeBody() == nil)
    }

    /// A paused engine is resumed once the reader took the queue down to half the byte limit.
    @Test func aPausedEngineResumesAtHalfTheLimit() {
        var core = Core(request: (.get, Self.url), buffering: TransferBuffering(bytes: 8, enginePauses: true, batchBytes: 0))
        _ = core.attach(NamedEngine(name: "engine"))
        _ = core.receive(head: Self.head)
        _ = core.receive(Data(count: 3))
        _ = core.receive(Data(count: 3))
        #expect(Self.words(core.receive(Data(count: 3))) == ["pause engine"])
        #expect(Self.words(core.paused(resumingWith: {})).isEmpty)
        #expect(Self.words(core.waitForChunk("reader")) == ["reader gets [3]"])
        #expect(Self.words(core.waitForChunk("reader")) == ["reader gets [3]", "resume engine"])
    }

    /// The reader catching up while the engine is being paused: the pause, once reported, is
    /// let go at once.
    @Test func aPauseReportedAfterTheReaderCaughtUpResumesAtOnce() {
        var core = Self.core("streaming, pausing")
        #expect(Self.words(core.waitForChunk("reader")) == ["reader gets [8]"])
        #expect(Self.words(core.paused(resumingWith: {})) == ["resume engine"])
    }

    /// An engine that cannot pause sends what is beyond the limit to disk, and everything after
    /// it too while anything waits there: memory is read first, then the disk, in order.
    @Test func anEngineThatCannotPauseSpillsInOrder() {
        var core = Core(request: (.get, Self.url), buffering: TransferBuffering(bytes: 4, enginePauses: false, batchBytes: 0))
        _ = core.receive(head: Self.head)
        var words: [String] = []
        for byte in UInt8(0)..<4 {
            words += Self.words(core.receive(Data([byte, byte])))
        }
        // One write at a time: what comes meanwhile waits, to be written together next.
        #expect(words == ["spill [2]"])
        #expect(Self.words(core.waitForChunk("reader")) == ["reader gets [2]"])
        // Memory has room again, but the disk holds older bytes: the next chunk goes after them.
        #expect(Self.words(core.receive(Data([4, 4]))).isEmpty)
        #expect(Self.words(core.waitForChunk("reader")) == ["reader gets [2]"])
        // Nothing on disk is reported written yet: the reader waits, and reads once it is.
        #expect(Self.words(core.waitForChunk("reader")).isEmpty)
        #expect(Self.words(core.spillWritten(2, error: nil)) == ["spill [2, 2]", "read 2 from disk at 0"])
        #expect(Self.words(core.spillWritten(4, error: nil)).isEmpty)
        #expect(Self.words(core.spillRead(.success(Data([2, 2])))) == ["reader gets [2]"])
        #expect(Self.words(core.waitForChunk("reader")) == ["read 4 from disk at 2"])
        #expect(Self.words(core.spillRead(.success(Data([3, 3, 4, 4])))) == ["reader gets [4]"])
        // The disk drained: the file starts over, and chunks go to memory again.
        #expect(Self.words(core.receive(Data([5]))).isEmpty)
        #expect(Self.words(core.waitForChunk("reader")) == ["reader gets [1]"])
        _ = core.receive(Data(count: 4))
        #expect(Self.words(core.receive(Data([6]))) == ["spill [1]"])
        if case .streaming(_, _, let body) = core.state {
            #expect(body.buffer.writeOffset == 1)
        }
    }

    /// A reader further behind than the spill limit fails the transfer, and the engine stops;
    /// the chunk that could not be kept is not kept.
    @Test func aReaderTooFarBehindFailsTheTransfer() {
        var core = Core(request: (.get, Self.url), buffering: TransferBuffering(bytes: 2, enginePauses: false, spillLimit: 4))
        _ = core.attach(NamedEngine(name: "engine"))
        _ = core.receive(head: Self.head)
        _ = core.receive(Data([1, 2]))
        #expect(Self.words(core.receive(Data(count: 5))) == ["stop engine"])
        #expect(core.phase == .failed)
        // What was kept is read, then the failure.
        #expect(Self.words(core.waitForChunk("reader")) == ["reader gets [2]"])
        #expect(Self.words(core.waitForChunk("reader")) == ["reader gets bodyTooLarge"])
    }

    /// A disk slower than the network holds the engine back once the bytes not yet written pass
    /// their limit (16 MiB here), instead of holding them all in memory, and lets it go once the
    /// disk has written half; a cancel lets it go too.
    @Test func aDiskFarBehindTheNetworkHoldsTheEngineBack() {
        var core = Core(request: (.get, Self.url), buffering: TransferBuffering(bytes: 1, enginePauses: false))
        _ = core.attach(NamedEngine(name: "engine"))
        _ = core.receive(head: Self.head)
        _ = core.receive(Data([1]))
        let chunk = Data(count: 1 << 20)
        #expect(Self.words(core.receive(chunk)) == ["spill [\(1 << 20)]"])
        for _ in 1..<16 {
            #expect(Self.words(core.receive(chunk)).isEmpty)
        }
        #expect(Self.words(core.receive(chunk)) == ["engine waits for the disk"])
        #expect(Self.words(core.spillWritten(1 << 20, error: nil)) == ["spill \(Array(repeating: 1 << 20, count: 16))"])
        #expect(Self.words(core.spillWritten(16 << 20, error: nil)) == ["engine goes on"])
        #expect(core.phase == .streaming)
        for _ in 0..<17 {
            _ = core.receive(chunk)
        }
        #expect(Self.words(core.cancel()) == ["stop engine", "engine goes on", "drop buffer", "drop buffer", "close spill"])
    }
}

/// `TransferCore`'s sink: a download's body written to its file by the transfer itself.
@Suite struct TransferCoreSinkTests {
    typealias Core = TransferCore<String>
    typealias Words = TransferCoreTests

    static func file() -> SpillFile {
        SpillFile(directory: nil)
    }

    /// A streaming transfer sinking into a file, 2 bytes being written, "sinker" waiting.
    static func sinkingTwoBytes() -> Core {
        var core = Words.core("streaming")
        _ = core.sink(into: file(), at: 0)
        _ = core.receive(Data([1, 2]))
        _ = core.waitForSink("sinker")
        return core
    }

    @Test func aSunkBodyIsWrittenInOrderFromItsOffsetAndEndsOnceOnDisk() {
        var core = Words.core("streaming, 3 bytes buffered")
        let (accepted, first) = core.sink(into: Self.file(), at: 100)
        #expect(accepted)
        #expect(first.map { action -> Int in if case .spill(_, _, let offset) = action { offset } else { -1 } } == [100])
        let second = core.receive(Data([1]))
        #expect(Words.words(second).isEmpty, "one write at a time: the chunk waits for the first")
        #expect(Words.words(core.waitForSink("sinker")).isEmpty)
        #expect(Words.words(core.finish(nil)) == ["release engine"], "ended, but not on disk yet")
        let next = core.spillWritten(3, error: nil)
        #expect(next.map { action -> Int in if case .spill(_, _, let offset) = action { offset } else { -1 } } == [103])
        #expect(Words.words(core.spillWritten(1, error: nil)) == ["close spill", "sinker gets the end"])
    }

    @Test func aBodyIsSunkOnlyAfterItsHeadAndWithNothingOnDisk() {
        var waiting = Words.core("awaiting head")
        #expect(!waiting.sink(into: Self.file(), at: 0).accepted)
        var holding = Words.core("holding")
        #expect(!holding.sink(into: Self.file(), at: 0).accepted)
        var spilled = Words.core("spilling 2 bytes")
        #expect(!spilled.sink(into: Self.file(), at: 0).accepted)
        var read = Words.core("streaming, reader waiting")
        #expect(!read.sink(into: Self.file(), at: 0).accepted, "a reader waits for a chunk")
        var ended = Words.core("ended")
        #expect(ended.sink(into: Self.file(), at: 0).accepted)
        #expect(Words.words(ended.waitForSink("sinker")) == ["sinker gets the end"])
    }

    @Test func aFailureEndsTheSinkOnceWhatCameIsWrittenACancelAtOnce() {
        var failing = Self.sinkingTwoBytes()
        #expect(Words.words(failing.finish(TransferCoreTests.Failure())) == ["release engine"], "what came is written first")
        #expect(Words.words(failing.spillWritten(2, error: nil)) == ["close spill", "sinker gets the failure"])
        var cancelled = Self.sinkingTwoBytes()
        #expect(Words.words(cancelled.cancel()) == ["stop engine", "sinker gets cancelled", "close spill"], "the chunk is being written")
        #expect(Words.words(cancelled.waitForSink("sinker 2")) == ["sinker 2 gets cancelled"])
    }

    @Test func aFileThatCannotBeWrittenFailsTheSinkAsAFileFailure() {
        var core = Self.sinkingTwoBytes()
        #expect(Words.words(core.spillWritten(2, error: TransferCoreTests.Failure())) == ["stop engine", "sinker gets fileFailed", "close spill"])
    }

    @Test func aSunkBodyCannotBeReadAsWell() {
        var core = Words.core("streaming")
        _ = core.sink(into: Self.file(), at: 0)
        #expect(Words.words(core.waitForChunk("reader")) == ["reader gets streamFailed"])
    }

    @Test func aSinkRefusedOrTooLateClosesItsFile() {
        var waiting = Words.core("awaiting head")
        #expect(Words.words(waiting.sink(into: Self.file(), at: 0).actions) == ["close spill"])
        var cancelled = Words.core("cancelled")
        #expect(Words.words(cancelled.sink(into: Self.file(), at: 0).actions) == ["close spill"])
        var ended = Words.core("ended")
        #expect(Words.words(ended.sink(into: Self.file(), at: 0).actions) == ["close spill"], "nothing left to write")
    }

    /// A write queued after the file was closed (decided before a cancel, queued after it) is
    /// dropped: the caller's file gets nothing once `closeAndWait()` returned.
    @Test func aWriteAfterTheCloseNeverReachesTheFile() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sink-\(UUID().uuidString)")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        let reported = Guarded<[Int]>([])
        let file = try SpillFile(sinkFor: handle.fileDescriptor) { count in reported.withLock { $0.append(count) } }
        try handle.close()  // the file writes through a descriptor of its own
        let first: (any Error)? = await withCheckedContinuation { done in
            file.write([Data("ab".utf8), Data("cd".utf8)], at: 0) { _, error in done.resume(returning: error) }
        }
        #expect(first == nil)
        await file.closeAndWait()
        let late: (any Error)? = await withCheckedContinuation { done in
            file.write([Data("ef".utf8)], at: 4) { _, error in done.resume(returning: error) }
        }
        #expect(late != nil)
        #expect(try Data(contentsOf: url) == Data("abcd".utf8))
        #expect(reported.withLock { $0 } == [4])
    }

    @Test func aWaitWithoutASinkFails() {
        var core = Words.core("streaming")
        #expect(Words.words(core.waitForSink("sinker")) == ["sinker gets streamFailed"])
    }

    @Test func anEngineThatPausesIsHeldBackPastTheSinkLimitAndGoesOnAtHalf() {
        var core = Core(request: (.get, Words.url), buffering: TransferBuffering(bytes: .max, chunks: 3, enginePauses: true, batchBytes: 0))
        _ = core.attach(TransferCoreTests.NamedEngine(name: "engine"))
        _ = core.receive(head: Words.head)
        _ = core.sink(into: Self.file(), at: 0)
        let piece = 1 << 20
        _ = core.receive(Data(count: piece))
        var words: [String] = []
        for _ in 0..<8 { words = Words.words(core.receive(Data(count: piece))) }
        #expect(words == ["pause engine"], "9 MiB unwritten")
        _ = core.paused(resumingWith: {})
        #expect(Words.words(core.spillWritten(piece, error: nil)) == ["spill [1048576, 1048576, 1048576, 1048576, 1048576, 1048576, 1048576, 1048576]"])
        #expect(Words.words(core.spillWritten(4 * piece, error: nil)) == ["resume engine"], "4 MiB left")
    }

    @Test func anEngineThatCannotPauseWaitsForTheDiskPastTheSinkLimit() {
        var core = Core(request: (.get, Words.url), buffering: TransferBuffering(bytes: 1 << 20, enginePauses: false, batchBytes: 0))
        _ = core.attach(TransferCoreTests.NamedEngine(name: "engine"))
        _ = core.receive(head: Words.head)
        _ = core.sink(into: Self.file(), at: 0)
        var words: [String] = []
        for _ in 0..<9 { words = Words.words(core.receive(Data(count: 1 << 20))) }
        #expect(words == ["engine waits for the disk"])
        _ = core.spillWritten(1 << 20, error: nil)
        #expect(Words.words(core.spillWritten(4 << 20, error: nil)) == ["engine goes on"])
    }
}
