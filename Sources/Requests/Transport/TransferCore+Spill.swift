import Foundation

// MARK: - Spill file events

extension TransferCore {
    /// The spill file wrote what it was handed (`count` bytes), or failed to with `error`.
    mutating func spillWritten(_ count: Int, error: (any Error)?) -> Actions {
        var actions = Actions()
        let limits = self.limits
        var sinking = false
        modifyBuffer { buffer in
            buffer.unwritten -= count
            buffer.writing = false
            sinking = buffer.sinking
            if error != nil {
                // Nothing more goes to a disk that failed.
                buffer.diskFailed = true
                buffer.unwritten -= buffer.pending.reduce(0) { $0 + $1.count }
                if !buffer.pending.isEmpty { actions.append(.release(buffer.pending)) }
                buffer.pending = []
            }
            buffer.writePending(&actions)
            guard !buffer.sinking else { return }
            if buffer.unwritten <= limits.unwrittenLimit / 2, let wait = buffer.engineWait.take() {
                actions.append(.diskCaughtUp(wait))
            }
            buffer.readIfWritten(limits: limits, &actions)
            buffer.rewindIfDrained()
        }
        if sinking, error == nil { sunk(count, &actions) }
        if let error {
            let failure = RequestError(sinking ? .fileFailed : .streamFailed, method: request.method, url: request.url,
                                       detail: sinking ? "could not write the body to its file" : "could not buffer the body on disk",
                                       underlyingError: error)
            fail(with: failure, actions: &actions)
            // What is on disk is given up; a reader waiting for it gets the failure (one whose
            // read is under way gets its bytes first).
            modifyBuffer { buffer in
                if !buffer.reading, let reader = buffer.diskReader.take() {
                    actions.append(.resume(reader, .failure(failure)))
                }
            }
        }
        closeSpillIfDone(&actions)
        finishSinkIfDone(&actions)
        return actions
    }

    /// The spill file read bytes back for the reader, or failed to.
    mutating func spillRead(_ result: Result<Data, any Error>) -> Actions {
        var actions = Actions()
        var reader: Waiter?
        modifyBuffer { buffer in
            buffer.reading = false
            reader = buffer.diskReader.take()
            buffer.rewindIfDrained()
        }
        // Cancelled meanwhile: the reader was told, and the bytes go.
        if let reader {
            switch result {
            case .success(let data): actions.append(.resume(reader, .chunk(data)))
            case .failure(let error): actions.append(.resume(reader, .failure(error)))
            }
        }
        closeSpillIfDone(&actions)
        return actions
    }
}
