import Foundation

// MARK: - CacheEntry

/// What a cache keeps of one stored response besides its body: the head, the request fields its
/// `Vary` names, and when it was asked for and received.
///
/// A ``CacheStorage`` keeps entries under their ``key`` (the target URI); several entries under
/// one key are the variants `Vary` selects between (RFC 9111 §4.1).
public struct CacheEntry: Sendable, Equatable {
    /// The primary cache key: the request's target URI, without a fragment.
    public var key: String
    /// The storage's name for this entry, unique under its key; set by the storage when the
    /// entry is written.
    public var id: String
    /// The status code.
    public var statusCode: Int
    /// The response's fields as stored: hop-by-hop fields left out, merged with each 304 since.
    public var headers: HTTPHeaders
    /// The request's values of the fields the response's `Vary` names, lowercased names mapped to
    /// the field's values joined with `, ` (`nil` where the request had no such field).
    public var varyValues: [String: String?]
    /// When the request that brought the response was sent (RFC 9111 §4.2.3's request_time).
    public var requestTime: Date
    /// When the response arrived (response_time).
    public var responseTime: Date
    /// The body's length in bytes.
    public var bodyLength: Int

    /// Describes a stored response.
    ///
    /// - Parameters:
    ///   - key: The target URI.
    ///   - id: The storage's name for it; empty until the storage writes it.
    ///   - statusCode: The status code.
    ///   - headers: The response's fields.
    ///   - varyValues: The request's values of the fields `Vary` names.
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response arrived.
    ///   - bodyLength: The body's length in bytes.
    public init(
        key: String, id: String = "", statusCode: Int, headers: HTTPHeaders, varyValues: [String: String?] = [:],
        requestTime: Date, responseTime: Date, bodyLength: Int = 0
    ) {
        self.key = key
        self.id = id
        self.statusCode = statusCode
        self.headers = headers
        self.varyValues = varyValues
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.bodyLength = bodyLength
    }

    /// Whether another entry answers the same requests: the same key and the same values for
    /// the fields `Vary` names, so that storing one replaces the other.
    ///
    /// - Parameter other: Another entry.
    /// - Returns: `true` for the same variant.
    public func isSameVariant(as other: CacheEntry) -> Bool {
        key == other.key && varyValues == other.varyValues
    }
}

extension CacheEntry {
    /// How fresh the stored response is (RFC 9111 §4.2), from its fields and the times it was
    /// asked for and received.
    var freshness: Freshness {
        Freshness(status: statusCode, headers: headers, requestTime: requestTime, responseTime: responseTime)
    }
}
