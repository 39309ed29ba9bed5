import Foundation

// MARK: - CacheControl

/// The directives of a message's `Cache-Control` fields (RFC 9111 §5.2; `stale-while-revalidate`
/// and `stale-if-error`, RFC 5861), as a cache reads them.
///
/// Every `Cache-Control` field line of the message counts, in order; names are read without
/// regard to case; an argument may be a token or a quoted string. What the RFC asks of a cache
/// that meets something it cannot read is done here:
/// - a `max-age` that is not delta-seconds, or that appears twice with different values, makes
///   the response stale (§4.2.1), so it is revalidated before reuse (`s-maxage` is for shared
///   caches, and this one is private);
/// - delta-seconds beyond 2³¹ are read as 2³¹ (§1.2.2);
/// - an unknown directive is ignored (§5.2.3).
package struct CacheControl: Sendable, Equatable {
    /// `max-age`: the response's freshness lifetime, or for a request the oldest response it
    /// accepts; 0 when the directive was unreadable.
    package var maxAge: Int?
    /// `no-cache`: reuse only after validation. Field names given with it (`no-cache="Set-Cookie"`)
    /// are not told apart: a private cache may treat the qualified form as the whole directive.
    package var noCache = false
    /// `no-store`: do not store the request or the response.
    package var noStore = false
    /// `private` without field names: only a private cache (this one) may store the response.
    package var isPrivate = false
    /// `public`: any cache may store the response, even one it would not store by default.
    package var isPublic = false
    /// `must-revalidate`: once stale, never reused without validation, not even offline.
    package var mustRevalidate = false
    /// `immutable` (RFC 8246): the body will not change while fresh.
    package var immutable = false
    /// `stale-while-revalidate=N` (RFC 5861): may be reused for N seconds past its freshness while
    /// it is revalidated in the background.
    package var staleWhileRevalidate: Int?
    /// `stale-if-error=N` (RFC 5861): may be reused for N seconds past its freshness when
    /// revalidating fails (an error or a 5xx).
    package var staleIfError: Int?
    /// A request's `max-stale`: accepts a stale response, by at most this many seconds;
    /// `Int.max` when given without a value.
    package var maxStale: Int?
    /// A request's `min-fresh`: wants a response fresh for at least this many more seconds.
    package var minFresh: Int?
    /// A request's `only-if-cached`: answer from the cache or with 504, never the network.
    package var onlyIfCached = false

    /// No directives.
    package init() {}

    /// The directives of every `Cache-Control` field in `headers`.
    ///
    /// - Parameter headers: A request's or a response's fields.
    package init(_ headers: HTTPHeaders) {
        for header in headers where HTTPHeaders.namesMatch(header.name, "Cache-Control") {
            read(header.value)
        }
    }

    /// Whether two different `max-age` values were read: the response stays stale (§4.2.1),
    /// however many follow.
    private var maxAgeContradicted = false

    /// Adds the directives of one `Cache-Control` field value, after those read so far.
    ///
    /// - Parameter value: The field's value.
    package mutating func read(_ value: String) {
        Self.forEachDirective(value) { name, argument in
            switch name {
            case "max-age":
                let value = Self.seconds(argument) ?? 0
                if let earlier = maxAge, earlier != value { maxAgeContradicted = true }
                maxAge = maxAgeContradicted ? 0 : value
            case "no-cache": noCache = true
            case "no-store": noStore = true
            case "private": if argument == nil { isPrivate = true }
            case "public": isPublic = true
            case "must-revalidate": mustRevalidate = true
            case "immutable": immutable = true
            case "stale-while-revalidate": staleWhileRevalidate = Self.seconds(argument)
            case "stale-if-error": staleIfError = Self.seconds(argument)
            case "max-stale": maxStale = argument == nil ? Int.max : (Self.seconds(argument) ?? 0)
            case "min-fresh": minFresh = Self.seconds(argument) ?? 0
            case "only-if-cached": onlyIfCached = true
            default: break
            }
        }
    }

    /// Calls `body` with each `name[=argument]` pair of one field value, in order: names
    /// lowercased, quoted arguments unquoted, empty members (`a,,b`) skipped.
    package static func forEachDirective(_ value: String, _ body: (String, String?) -> Void) {
        var value = value
        value.withUTF8 { bytes in
            var index = 0
            func skipSpace() {
                while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
            }
            while index < bytes.count {
                skipSpace()
                let nameStart = index
                var hasUpper = false
                while index < bytes.count, bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: "="),
                      bytes[index] != 0x20, bytes[index] != 0x09 {
                    if bytes[index] >= 0x41 && bytes[index] <= 0x5A { hasUpper = true }
                    index += 1
                }
                let nameBytes = UnsafeBufferPointer(rebasing: bytes[nameStart..<index])
                let name = hasUpper
                    ? String(decoding: nameBytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
                    : String(decoding: nameBytes, as: UTF8.self)
                skipSpace()
                var argument: String?
                if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                    index += 1
                    skipSpace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                        index += 1
                        var text: [UInt8] = []
                        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                            if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count { index += 1 }
                            text.append(bytes[index])
                            index += 1
                        }
                        index += 1
                        argument = String(decoding: text, as: UTF8.self)
                    } else {
                        let start = index
                        while index < bytes.count, bytes[index] != UInt8(ascii: ","), bytes[index] != 0x20, bytes[index] != 0x09 { index += 1 }
                        argument = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    }
                }
                // Whatever follows up to the next comma does not belong to a well-formed member.
                while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
                index += 1
                if !name.isEmpty { body(name, argument) }
            }
        }
    }

    /// delta-seconds (RFC 9111 §1.2.2): digits only, at most 2³¹; `nil` when not digits.
    package static func seconds(_ text: String?) -> Int? {
        guard let text, !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let limit = 1 << 31
        var value = 0
        for byte in text.utf8 {
            value = value * 10 + Int(byte - 0x30)
            if value >= limit { return limit }
        }
        return value
    }
}
