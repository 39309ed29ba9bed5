import Foundation

// MARK: - HTTPCache

/// A private HTTP cache as RFC 9111 describes it, for a ``Session`` over any transport.
///
/// ```swift
/// let cache = HTTPCache(storage: try DiskCacheStorage(directory: cachesFolder))
/// let session = Session(cache: cache)
/// let response = try await session.request("https://api.example.com/items")
/// print(response.cacheStatus)   // .miss, then .hit while fresh, .revalidated after a 304
/// ```
///
/// The cache is the innermost stage of the pipeline, after redirects and cookies, so it keys on
/// what the engine would send. It stores `GET` responses that may be stored (a status cacheable
/// by default or with explicit freshness, no `no-store`), answers `GET` and `HEAD` from them while
/// fresh, validates stale ones with `If-None-Match` and `If-Modified-Since`, keeps one variant per
/// `Vary`, honours the request's `Cache-Control` directives, and forgets a URI after an unsafe
/// method changed it. Each call's ``RequestOptions/cachePolicy`` can change how it is used.
///
/// One cache may serve several sessions; concurrent requests for the same URI that miss wait for
/// one network request to fill the entry instead of each going out.
public final class HTTPCache: Sendable {
    /// Where responses are kept.
    public let storage: any CacheStorage
    /// The present, for freshness; the system clock unless given.
    let now: @Sendable () -> Date
    /// The network requests filling or validating an entry, by key, each with the ``Flight``
    /// later requests for the key wait on (made only when one comes to wait). Invariant: a key is
    /// in the table from its leader's start until the leader lands, one leader at a time, and
    /// landing opens the flight, so no waiter is left behind.
    private let flights = Guarded<[String: Flight?]>([:])

    /// Creates a cache.
    ///
    /// - Parameters:
    ///   - storage: Where responses are kept; 16 MiB in memory by default.
    ///   - now: The present, for freshness and ages; the system clock by default. Tests pass a
    ///     clock they move.
    public init(storage: any CacheStorage = MemoryCacheStorage(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.storage = storage
        self.now = now
    }

    /// Forgets every stored response.
    public func removeAll() async {
        await storage.removeAll()
    }

    /// Forgets the responses stored for a URL (every variant).
    ///
    /// - Parameter url: The URL the responses answered.
    public func removeResponses(for url: URL) async {
        await storage.removeEntries(for: Self.key(for: url))
    }

    /// The primary key of a request to `url`: its text without a fragment.
    static func key(for url: URL) -> String {
        let text = url.absoluteString
        guard url.fragment != nil, let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) else { return text }
        return String(text[..<hash])
    }

    // MARK: Flights

    /// Joins the network request for `key`: `nil` when there was none, and the caller now leads
    /// one (and must ``land(_:)`` it); otherwise the flight to wait on.
    func join(_ key: String) -> Flight? {
        flights.withLock { flights in
            guard let slot = flights[key] else {
                flights[key] = .some(nil)
                return nil
            }
            if let flight = slot { return flight }
            let flight = Flight()
            flights[key] = flight
            return flight
        }
    }

    /// Ends the network request the caller leads for `key`: its waiters wake.
    func land(_ key: String) {
        let flight = flights.withLock { $0.removeValue(forKey: key) }
        flight??.open()
    }
}

// MARK: - Flight

/// One network request that others wait for. Invariant: each waiter's continuation is resumed
/// exactly once, by ``open()``, by its task's cancellation or by the call's clock, whichever
/// comes first; a waiter whose wait ended before it began (`ended`) does not wait, and an end
/// that comes after a wait is over (not in `active`) is ignored.
final class Flight: Sendable {
    private struct State {
        var open = false
        var next = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var ended: Set<Int> = []
        var active: Set<Int> = []
    }

    private let state = Guarded(State())

    /// Waits until the flight lands, the waiting task is cancelled, or the call's clock ends the
    /// wait (its idle limit, or its deadline).
    ///
    /// - Parameter clock: The waiting call's clock; `nil` for no limit.
    /// - Throws: ``TimeoutExceeded`` when the call's deadline passed.
    func wait(on clock: CallClock? = nil) async throws {
        let id = state.withLock { state -> Int in
            state.next += 1
            state.active.insert(state.next)
            return state.next
        }
        do {
            try clock?.waiting(for: .cache, on: .wait { [weak self] in self?.end(id) })
        } catch {
            state.withLock { _ = $0.active.remove(id) }
            throw error
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.open || state.ended.remove(id) != nil || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            end(id)
        }
        clock?.stopped()
        state.withLock { state in
            state.ended.remove(id)
            state.active.remove(id)
        }
        if let verdict = clock?.verdict, verdict.limit == .deadline { throw verdict }
    }

    /// Ends one waiter's wait, or marks it ended before it began.
    private func end(_ id: Int) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let continuation = state.waiters.removeValue(forKey: id) else {
                if state.active.contains(id) { state.ended.insert(id) }
                return nil
            }
            return continuation
        }
        continuation?.resume()
    }

    /// Lands the flight: every waiter wakes.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}
