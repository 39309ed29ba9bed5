import Foundation

// MARK: - A body read whole

extension TransferCore {
    /// The head arrived for a caller who reads the body whole: it is held back while up to
    /// `limit` bytes of body arrive, and handed over with the body's end (or its failure), or
    /// as soon as the body grows past `limit`. A second head is ignored.
    mutating func receive(head: any TransferHead, holdingBodyUpTo limit: Int) -> Actions {
        guard case .awaitingHead(let engine, let waiter, let body) = state else { return Actions() }
        state = .holding(head: head, limit: limit, engine: engine, headWaiter: waiter, body: body)
        var actions = Actions()
        handOverHeldIfPastLimit(&actions)
        return actions
    }

    /// Whether the head is held back while the body is read whole.
    var isHolding: Bool {
        if case .holding = state { return true }
        return false
    }

    /// A held head whose body grew past its limit goes to the reader, and the body streams from
    /// here: the engine is asked to pause now if more than the limits waits.
    mutating func handOverHeldIfPastLimit(_ actions: inout Actions) {
        guard case .holding(let head, let limit, let engine, let waiter, var body) = state,
              body.buffer.memory.buffered + body.buffer.onDisk > limit else { return }
        state = .modifying
        Self.pauseIfFull(&body, limits: limits, &actions)
        state = .streaming(head: head, engine: engine, body: body)
        if let waiter { actions.append(.resume(waiter, .head(head))) }
    }

    /// The whole body at once, when the engine finished and every byte of it waits in memory;
    /// `nil` otherwise (it is then read chunk by chunk). Taking it ends the body for the reader.
    mutating func takeWholeBody() -> [Data]? {
        guard case .ended(let head, var buffer) = state, buffer.onDisk == 0, buffer.file == nil,
              buffer.diskReader == nil else { return nil }
        // Out of the state first, so that the queue's storage is not shared when it is emptied.
        state = .modifying
        let chunks = buffer.memory.removeAll()
        state = .ended(head: head, buffer: buffer)
        return chunks
    }
}
