import Foundation

// MARK: - A body written to a file

extension TransferCore {
    /// The most bytes of a sunk body that may wait to be written before the engine is held back
    /// (paused, or its thread made to wait when it cannot pause): 8 MiB.
    static var sinkLimit: Int { 8 << 20 }

    /// The reader has the head and wants the rest of the body in `file` from `offset` (a
    /// download): what waits in memory is written first, then each chunk as it arrives, on the
    /// file's queue; nothing is read back. Wait for the last byte with ``waitForSink(_:)``.
    ///
    /// - Returns: Whether the body goes to the file: not before the head, nor once part of the
    ///   body waits in a spill file of its own or a reader waits (then read it chunk by chunk).
    mutating func sink(into file: SpillFile, at offset: Int) -> (accepted: Bool, actions: Actions) {
        var actions = Actions()
        switch state {
        case .streaming, .ended, .failed:
            break
        case .cancelled:
            // The wait that follows is told; the file is not kept.
            actions.append(.closeSpill(file))
            return (true, actions)
        case .awaitingHead, .holding, .modifying:
            actions.append(.closeSpill(file))
            return (false, actions)
        }
        // A reader waiting for a chunk would never get one: the body is read, not sunk.
        var readerWaits = false
        modifyBody { readerWaits = $0.waiter != nil }
        var accepted = false
        modifyBuffer { buffer in
            guard !readerWaits, buffer.file == nil, buffer.onDisk == 0, buffer.diskReader == nil, !buffer.sinking else { return }
            accepted = true
            buffer.sinking = true
            buffer.file = file
            let chunks = buffer.memory.removeAll()
            let count = chunks.reduce(0) { $0 + $1.count }
            buffer.readOffset = offset
            buffer.pendingOffset = offset
            buffer.writeOffset = offset + count
            buffer.unwritten = count
            buffer.pending = chunks
            buffer.writePending(&actions)
        }
        if accepted {
            // The memory drained to the file: an engine paused for the reader goes on.
            modifyBody { Self.letGo(&$0.flow, &actions) }
            // An engine already done with nothing left to write: the file closes now.
            closeSpillIfDone(&actions)
        } else {
            actions.append(.closeSpill(file))
        }
        return (accepted, actions)
    }

    /// The reader waits for a sunk body's last byte on disk: resumed with the end once the
    /// engine finished and every byte is written, with the failure once what came before it is
    /// written (at once when the disk failed), or with `CancellationError` at once (a write under
    /// way then goes on, through the file's own descriptor: ``SpillFile/closeAndWait()`` waits for it).
    mutating func waitForSink(_ waiter: Waiter) -> Actions {
        var actions = Actions()
        if case .cancelled = state {
            actions.append(.resume(waiter, .failure(CancellationError())))
            return actions
        }
        var kept = false
        modifyBuffer { buffer in
            guard buffer.sinking, buffer.sinkWaiter == nil else { return }
            buffer.sinkWaiter = waiter
            kept = true
        }
        if !kept {
            actions.append(.resume(waiter, .failure(RequestError(
                .streamFailed, method: request.method, url: request.url, detail: "the body is not being written to a file"))))
            return actions
        }
        finishSinkIfDone(&actions)
        return actions
    }

    /// A chunk of a sunk body: to the file, after what waits. Past ``sinkLimit`` unwritten, an
    /// engine that pauses is asked to; one that cannot has its thread wait for the disk.
    static func sinkChunk(_ chunk: Data, into body: inout Body, limits: TransferBuffering, _ actions: inout Actions) {
        if body.buffer.pending.isEmpty { body.buffer.pendingOffset = body.buffer.writeOffset }
        body.buffer.pending.append(chunk)
        body.buffer.writeOffset += chunk.count
        body.buffer.unwritten += chunk.count
        body.buffer.writePending(&actions)
        guard body.buffer.unwritten > sinkLimit else { return }
        if limits.enginePauses {
            if case .running = body.flow {
                body.flow = .pausing(resumeWanted: false)
                actions.append(.pause)
            }
        } else if body.buffer.engineWait == nil {
            let wait = DispatchSemaphore(value: 0)
            body.buffer.engineWait = wait
            actions.append(.waitForDisk(wait))
        }
    }

    /// A sunk body's write finished: what it wrote counts as read, and an engine held back goes
    /// on once half of ``sinkLimit`` or less waits.
    mutating func sunk(_ count: Int, _ actions: inout Actions) {
        modifyBuffer { buffer in
            buffer.readOffset += count
            if buffer.unwritten <= Self.sinkLimit / 2, let wait = buffer.engineWait.take() {
                actions.append(.diskCaughtUp(wait))
            }
        }
        modifyBody { body in
            if body.buffer.unwritten <= Self.sinkLimit / 2 { Self.letGo(&body.flow, &actions) }
        }
    }

    /// Resumes the sink's waiter when its body is on disk (ended, nothing unwritten) or failed.
    mutating func finishSinkIfDone(_ actions: inout Actions) {
        var outcome: TransferOutcome?
        switch state {
        case .ended(_, let buffer) where buffer.unwritten == 0 && !buffer.writing:
            outcome = .end
        case .failed(_, let buffer, let error) where buffer.diskFailed || (buffer.unwritten == 0 && !buffer.writing):
            // What came before the failure is on disk first (a resumable download keeps it).
            outcome = .failure(error)
        default:
            return
        }
        modifyBuffer { buffer in
            if let outcome, let waiter = buffer.sinkWaiter.take() { actions.append(.resume(waiter, outcome)) }
        }
    }
}
