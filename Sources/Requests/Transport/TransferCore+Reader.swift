import Foundation

// MARK: - Reader events

extension TransferCore {
    /// The reader waits for the head.
    mutating func waitForHead(_ waiter: Waiter) -> Actions {
        var actions = Actions()
        switch state {
        case .cancelled:
            actions.append(.resume(waiter, .failure(CancellationError())))
        case .streaming(let head, _, _), .ended(let head, _), .failed(let head?, _, _):
            actions.append(.resume(waiter, .head(head)))
        case .failed(.none, _, let error):
            actions.append(.resume(waiter, .failure(error)))
        case .awaitingHead(let engine, .none, let body):
            state = .awaitingHead(engine: engine, headWaiter: waiter, body: body)
        case .holding(let head, let limit, let engine, .none, let body):
            state = .holding(head: head, limit: limit, engine: engine, headWaiter: waiter, body: body)
        case .awaitingHead, .holding, .modifying:
            actions.append(.resume(waiter, .failure(TransportError(.other, detail: "the head is already awaited"))))
        }
        return actions
    }

    /// The reader waits for the next chunk: what is in memory (up to a batch), then what is on
    /// disk, then the end, or a wait. Taking memory down to half its limit resumes a paused engine.
    mutating func waitForChunk(_ waiter: Waiter) -> Actions {
        var actions = Actions()
        var taken = false
        let limits = self.limits
        // In memory first: it is older than what is on disk.
        modifyBuffer { buffer in
            taken = Self.take(from: &buffer, for: waiter, limits: limits, actions: &actions)
        }
        if taken {
            modifyBody { body in
                if body.buffer.memory.buffered <= limits.bytes / 2, body.buffer.memory.count < limits.chunks {
                    Self.letGo(&body.flow, &actions)
                }
            }
            closeSpillIfDone(&actions)
            return actions
        }
        if isSinking {
            actions.append(.resume(waiter, .failure(RequestError(
                .streamFailed, method: request.method, url: request.url,
                detail: "the body is being written to a file; it cannot be read as well"))))
            return actions
        }
        if isWaitingOnDisk {
            actions.append(.resume(waiter, .failure(RequestError(
                .streamFailed, method: request.method, url: request.url,
                detail: "the body is already being read by another loop; a body is read once"))))
            return actions
        }
        switch state {
        case .cancelled:
            actions.append(.resume(waiter, .failure(CancellationError())))
        case .ended:
            actions.append(.resume(waiter, .end))
        case .failed(_, _, let error):
            actions.append(.resume(waiter, .failure(error)))
        case .awaitingHead, .streaming, .holding, .modifying:
            var kept = false
            modifyBody { body in
                guard body.waiter == nil else { return }
                body.waiter = waiter
                kept = true
            }
            if !kept {
                actions.append(.resume(waiter, .failure(RequestError(
                    .streamFailed, method: request.method, url: request.url,
                    detail: "the body is already being read by another loop; a body is read once"))))
            }
        }
        return actions
    }

    /// Whether the body goes to a file (``sink(into:at:)``).
    private var isSinking: Bool {
        switch state {
        case .awaitingHead(_, _, let body), .streaming(_, _, let body), .holding(_, _, _, _, let body): body.buffer.sinking
        case .ended(_, let buffer), .failed(_, let buffer, _): buffer.sinking
        case .cancelled, .modifying: false
        }
    }

    /// Whether the reader waits for bytes from disk (read or about to be).
    private var isWaitingOnDisk: Bool {
        switch state {
        case .awaitingHead(_, _, let body), .streaming(_, _, let body), .holding(_, _, _, _, let body): body.buffer.diskReader != nil
        case .ended(_, let buffer), .failed(_, let buffer, _): buffer.diskReader != nil
        case .cancelled, .modifying: false
        }
    }

    /// Hands the reader what the buffer holds, from memory or from disk.
    ///
    /// - Returns: Whether anything was handed over.
    private static func take(from buffer: inout Buffer, for waiter: Waiter, limits: TransferBuffering, actions: inout Actions) -> Bool {
        switch buffer.memory.take(batchBytes: buffer.heldWhole ? .max : limits.batchBytes) {
        case .chunk(let chunk):
            actions.append(.resume(waiter, .chunk(chunk)))
            return true
        case .chunks(let chunks):
            actions.append(.resume(waiter, .chunks(chunks)))
            return true
        case .empty:
            guard buffer.onDisk > 0, !buffer.diskFailed, buffer.diskReader == nil else { return false }
            // The reader waits for the disk: read at once what is written, or when it is.
            buffer.diskReader = waiter
            buffer.readIfWritten(limits: limits, &actions)
            return true
        }
    }

    /// Cancels the transfer: every waiter fails with `CancellationError`, the engine is stopped
    /// unless it finished, and what is buffered is dropped. A second cancel does nothing.
    mutating func cancel() -> Actions {
        var actions = Actions()
        let previous = state
        state = .cancelled
        switch previous {
        case .cancelled, .modifying:
            break
        case .awaitingHead(let engine, let headWaiter, var body), .holding(_, _, let engine, let headWaiter, var body):
            if let engine { actions.append(.stop(engine)) }
            Self.letGo(&body.flow, &actions)
            if let headWaiter { actions.append(.resume(headWaiter, .failure(CancellationError()))) }
            if let waiter = body.waiter { actions.append(.resume(waiter, .failure(CancellationError()))) }
            Self.drop(&body.buffer, &actions)
        case .streaming(_, let engine, var body):
            if let engine { actions.append(.stop(engine)) }
            Self.letGo(&body.flow, &actions)
            if let waiter = body.waiter { actions.append(.resume(waiter, .failure(CancellationError()))) }
            Self.drop(&body.buffer, &actions)
        case .ended(_, var buffer), .failed(_, var buffer, _):
            Self.drop(&buffer, &actions)
        }
        // What the states held (a head, an error) goes with `previous` here; the caller releases
        // what the actions hold once unlocked.
        return actions
    }

    /// What a cancelled transfer had buffered, handed out to be dropped and closed unlocked.
    private static func drop(_ buffer: inout Buffer, _ actions: inout Actions) {
        if let wait = buffer.engineWait.take() { actions.append(.diskCaughtUp(wait)) }
        if let reader = buffer.diskReader.take() { actions.append(.resume(reader, .failure(CancellationError()))) }
        if let sinker = buffer.sinkWaiter.take() { actions.append(.resume(sinker, .failure(CancellationError()))) }
        let chunks = buffer.memory.removeAll()
        if !chunks.isEmpty { actions.append(.release(chunks)) }
        if !buffer.pending.isEmpty { actions.append(.release(buffer.pending)) }
        buffer.pending = []
        if let file = buffer.file.take() { actions.append(.closeSpill(file)) }
    }
}
