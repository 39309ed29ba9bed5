import Foundation

// MARK: - Lending

/// A resource that one caller at a time takes out of a lock to use, and gives back: how a file
/// handle behind a ``Guarded`` is read or written without doing I/O inside the critical section.
///
/// ```swift
/// let file = Guarded(Lending(handle))
/// guard case .lent(let handle) = file.withLock({ $0.borrow() }) else { ... }
/// let chunk = try handle.read(upToCount: size)        // unlocked
/// if let closing = file.withLock({ $0.giveBack(handle) }) { try? closing.close() }
/// ```
///
/// Invariant: the resource is in exactly one place: here (`idle`), with the one borrower
/// (`lent`), or handed out to be closed (`closed`). Closing while it is lent marks it closed, and
/// the borrower gets it back from ``giveBack(_:)`` to close.
package struct Lending<Resource> {
    private enum Slot {
        case idle(Resource)
        case lent
        case closed
    }

    /// What ``borrow()`` found.
    package enum Borrowed {
        /// The resource, now the caller's until it gives it back.
        case lent(Resource)
        /// Another caller has it.
        case busy
        /// It was closed.
        case closed
    }

    private var slot: Slot

    /// Keeps `resource`, ready to lend; `nil` starts closed.
    package init(_ resource: Resource?) {
        slot = resource.map(Slot.idle) ?? .closed
    }

    /// Takes the resource out, when it is here.
    package mutating func borrow() -> Borrowed {
        switch slot {
        case .idle(let resource):
            slot = .lent
            return .lent(resource)
        case .lent:
            return .busy
        case .closed:
            return .closed
        }
    }

    /// Gives the resource back.
    ///
    /// - Returns: The resource, to be closed by the caller once unlocked, when it was closed
    ///   meanwhile; `nil` when it is kept.
    package mutating func giveBack(_ resource: Resource) -> Resource? {
        guard case .lent = slot else { return resource }
        slot = .idle(resource)
        return nil
    }

    /// Closes: the resource is handed out to be closed once unlocked, or, while lent, closed by
    /// its borrower when it gives it back.
    ///
    /// - Returns: The resource to close now, or `nil`.
    package mutating func close() -> Resource? {
        defer { slot = .closed }
        if case .idle(let resource) = slot { return resource }
        return nil
    }

    /// Whether it is closed (or being closed by its borrower).
    package var isClosed: Bool {
        if case .closed = slot { true } else { false }
    }
}
