import Foundation

// MARK: - CachePolicy

/// How one request uses the session's ``HTTPCache``: set it as ``RequestOptions/cachePolicy``
/// on a session or a call.
///
/// ```swift
/// var options = RequestOptions()
/// options.cachePolicy = .returnCacheDataElseLoad
/// let response = try await session.request(url, options: options)
/// ```
///
/// A request's own `Cache-Control` directives (`no-cache`, `no-store`, `max-age`, `max-stale`,
/// `min-fresh`, `only-if-cached`) apply under ``useProtocol``, ``reloadIgnoringCacheData`` and
/// ``revalidate``; under the two policies that accept any age, its `no-cache` and
/// `only-if-cached` do, and a response's `no-cache` and `must-revalidate` are still honoured.
public enum CachePolicy: Sendable, Hashable {
    /// RFC 9111: a fresh stored response answers, a stale one is validated first.
    case useProtocol
    /// The network answers, never a stored response; what it returns is stored as usual.
    case reloadIgnoringCacheData
    /// A stored response is validated with the origin before it answers, however fresh.
    case revalidate
    /// A stored response answers however stale it is (one that must be validated first is);
    /// only a request with none goes to the network: offline first.
    case returnCacheDataElseLoad
    /// A stored response answers however stale it is; without one (or with one that must be
    /// validated first), the answer is a 504 made here and nothing goes to the network
    /// (`only-if-cached`): offline only.
    case returnCacheDataDontLoad
    /// The cache is neither read nor written (an unsafe method still invalidates what it changed).
    case disabled
}

// MARK: - CacheStatus

/// Where a response came from, when the session has an ``HTTPCache``: ``Response/cacheStatus``.
public enum CacheStatus: String, Sendable, Hashable, CustomStringConvertible {
    /// A stored response answered, and nothing went to the network.
    case hit
    /// A stored stale response answered: one the request accepted stale (`max-stale`, or the
    /// policy), one served while it is revalidated in the background (`stale-while-revalidate`),
    /// or one served because the origin failed (`stale-if-error`).
    case staleHit
    /// The origin confirmed a stored response with a 304, and the stored body answered.
    case revalidated
    /// The network answered (and the response was stored when it may be).
    case miss

    /// `hit`, `stale hit`, `revalidated` or `miss`.
    public var description: String {
        switch self {
        case .hit: "hit"
        case .staleHit: "stale hit"
        case .revalidated: "revalidated"
        case .miss: "miss"
        }
    }
}

// MARK: - RequestOptions + cache

extension RequestOptions {
    /// How the request uses the session's ``HTTPCache``; ``CachePolicy/useProtocol`` unless set.
    public var cachePolicy: CachePolicy {
        get { self[CachePolicyOption.self] }
        set { self[CachePolicyOption.self] = newValue }
    }
}

enum CachePolicyOption: RequestOptionKey {
    static let defaultValue = CachePolicy.useProtocol
}

// MARK: - StoredResponseState

/// What a cache held for a request before a trip that validates it, for recorders (HAR's
/// `cache.beforeRequest`): set by the cache on the request it sends.
package struct StoredResponseState: Sendable, Equatable {
    /// When the stored response stops being fresh.
    package let expires: Date
    /// When the stored response arrived or was last validated.
    package let lastAccess: Date
    /// Its `ETag`, or empty.
    package let eTag: String

    package init(_ entry: CacheEntry) {
        let freshness = entry.freshness
        expires = entry.responseTime.addingTimeInterval(freshness.lifetime - freshness.initialAge)
        lastAccess = entry.responseTime
        eTag = entry.headers.value(for: "ETag") ?? ""
    }
}

package enum StoredResponseStateOption: RequestOptionKey {
    package static let defaultValue: StoredResponseState? = nil
}
