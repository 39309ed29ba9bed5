import Foundation

// MARK: - CacheRules

/// The rules of RFC 9111 that decide without I/O: what may be stored, which stored response a
/// request may use, whether it must be validated first, and how a 304 updates it.
enum CacheRules {
    /// What to do with a stored response for a request.
    enum Use: Equatable {
        /// Answer with it: it is fresh enough for the request.
        case fresh
        /// Answer with it although stale: the request or the policy accepts it.
        case stale
        /// Answer with it and revalidate it in the background (`stale-while-revalidate`).
        case staleWhileRevalidate
        /// Validate it with the origin first.
        case validate
    }

    /// Fields a cache does not store from a response, lowercased: RFC 9110 §7.6.1's hop-by-hop
    /// fields, the proxy authentication fields RFC 9111 §3.1 lists (`Proxy-Authenticate`,
    /// `Proxy-Authentication-Info`, `Proxy-Authorization`), and `Set-Cookie`, which the session's cookie stage applied when the response
    /// arrived (stored, every answer from the cache would set the cookies again, undoing a
    /// logout; on disk it would keep them in plain text).
    static let notStored: Set<String> = ["connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade", "trailer", "proxy-authenticate", "proxy-authentication-info", "proxy-authorization", "set-cookie"]

    /// What the cache reads of a request's fields, in one pass: its directives (its
    /// `Cache-Control`, or `Pragma: no-cache` without one, §5.4), and whether it is conditional or
    /// partial (`If-None-Match`, `If-Modified-Since`, `If-Match`, `If-Unmodified-Since`,
    /// `If-Range`, `Range`): such a request is the caller's own validation, passed through.
    static func inspect(_ headers: HTTPHeaders) -> (control: CacheControl, isConditional: Bool) {
        var control = CacheControl()
        var hasCacheControl = false
        var pragmaNoCache = false
        var conditional = false
        for header in headers {
            let name = header.name
            // The length and first letter first: most fields are none of these, and are passed
            // over at once.
            guard let first = name.utf8.first.map({ $0 | 0x20 }),
                  first == UInt8(ascii: "c") || first == UInt8(ascii: "i") || first == UInt8(ascii: "p") || first == UInt8(ascii: "r")
            else { continue }
            switch name.utf8.count {
            case 13:
                if HTTPHeaders.namesMatch(name, "Cache-Control") {
                    hasCacheControl = true
                    control.read(header.value)
                } else if HTTPHeaders.namesMatch(name, "If-None-Match") {
                    conditional = true
                }
            case 6:
                if HTTPHeaders.namesMatch(name, "Pragma"), header.value.lowercased().contains("no-cache") { pragmaNoCache = true }
            case 17: if HTTPHeaders.namesMatch(name, "If-Modified-Since") { conditional = true }
            case 8: if HTTPHeaders.namesMatch(name, "If-Match") || HTTPHeaders.namesMatch(name, "If-Range") { conditional = true }
            case 19: if HTTPHeaders.namesMatch(name, "If-Unmodified-Since") { conditional = true }
            case 5: if HTTPHeaders.namesMatch(name, "Range") { conditional = true }
            default: break
            }
        }
        if !hasCacheControl, pragmaNoCache { control.noCache = true }
        return (control, conditional)
    }

    /// The lowercased field names a response's `Vary` lists; `["*"]` for `Vary: *`.
    static func varyNames(_ headers: HTTPHeaders) -> [String] {
        var names: [String] = []
        for value in headers.values(for: "Vary") {
            for name in HTTPHeaders.listMembers(value) where !names.contains(name) {
                names.append(name)
            }
        }
        return names
    }

    /// The variant a response to a request is stored as: the request's values of the fields the
    /// response's `Vary` names, and its credentials (``varyValues(_:of:)``).
    static func variant(of response: HTTPHeaders, for request: HTTPHeaders) -> [String: String?] {
        varyValues(varyNames(response), of: request)
    }

    /// A request's values for the fields a response's `Vary` names (§4.1): the field's lines
    /// joined with `, `, whitespace around each trimmed; `nil` for a field the request lacks. The
    /// request's credentials are always part of it (``identityKey``).
    static func varyValues(_ names: [String], of request: HTTPHeaders) -> [String: String?] {
        var values: [String: String?] = [:]
        if let identity = identity(of: request) {
            values[identityKey] = identity
        }
        for name in names where name != "*" {
            let lines = request.values(for: name)
            values[name] = lines.isEmpty ? nil : lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
        }
        return values
    }

    /// Whether a stored entry answers a request: its `Vary` fields have the same values (§4.1);
    /// `Vary: *` matches nothing.
    static func matches(_ entry: CacheEntry, _ request: HTTPHeaders) -> Bool {
        let names = varyNames(entry.headers)
        if names.contains("*") { return false }
        return varyValues(names, of: request) == entry.varyValues
    }

    /// Whether a response to a `GET` may be stored (§3): a final status that is not partial and
    /// not 304, no `no-store` on either side, no `Vary: *`, and explicit freshness or a status
    /// cacheable by default (or `public`, `private`).
    static func isStorable(status: Int, headers: HTTPHeaders, requestControl: CacheControl) -> Bool {
        guard status >= 200, status != 206, status != 304, !requestControl.noStore else { return false }
        // One pass over the fields: most responses have none of these three.
        var control = CacheControl()
        var expires = false
        for header in headers {
            switch header.name.utf8.count {
            case 13 where HTTPHeaders.namesMatch(header.name, "Cache-Control"): control.read(header.value)
            case 7 where HTTPHeaders.namesMatch(header.name, "Expires"): expires = true
            case 4 where HTTPHeaders.namesMatch(header.name, "Vary"):
                if HTTPHeaders.listMembers(header.value).contains("*") { return false }
            default: break
            }
        }
        guard !control.noStore else { return false }
        return control.maxAge != nil || expires || control.isPublic || control.isPrivate
            || Freshness.heuristicallyCacheable.contains(status)
    }

    /// How a request may use a stored response (§4.2, §5.2.1, §5.2.2, RFC 5861), at `now`.
    static func use(of entry: CacheEntry, requestControl request: CacheControl, policy: CachePolicy, now: Date) -> Use {
        let freshness = entry.freshness
        let response = freshness.control
        let age = freshness.age(at: now)
        let remaining = freshness.lifetime - age
        switch policy {
        case .returnCacheDataElseLoad, .returnCacheDataDontLoad:
            // The caller accepts any age; no-cache on either side still asks for validation
            // (§5.2.1.4, §5.2.2.4), and must-revalidate forbids a stale use (§5.2.2.2): validate,
            // or 504 when the network may not be used.
            if request.noCache || response.noCache { return .validate }
            if remaining > 0 { return .fresh }
            return response.mustRevalidate ? .validate : .stale
        case .revalidate:
            return .validate
        case .useProtocol, .reloadIgnoringCacheData, .disabled:
            break
        }
        if request.noCache || response.noCache { return .validate }
        if let maxAge = request.maxAge, age > TimeInterval(maxAge) { return .validate }
        if let minFresh = request.minFresh, remaining < TimeInterval(minFresh) { return .validate }
        if remaining > 0 { return .fresh }
        // Stale from here on; must-revalidate forbids every use without validation (§5.2.2.2).
        if response.mustRevalidate { return .validate }
        let staleness = -remaining
        if let maxStale = request.maxStale, maxStale == Int.max || staleness <= TimeInterval(maxStale) { return .stale }
        if let window = response.staleWhileRevalidate, staleness <= TimeInterval(window) { return .staleWhileRevalidate }
        return .validate
    }

    /// Whether a stale entry may answer because validating it failed (RFC 5861 `stale-if-error`,
    /// in the response or the request): only within the window, and never when the entry was
    /// validated because validation is required (`no-cache` on either side, `must-revalidate`,
    /// the ``CachePolicy/revalidate`` policy).
    static func mayServeOnError(_ entry: CacheEntry, requestControl request: CacheControl, policy: CachePolicy, now: Date) -> Bool {
        let freshness = entry.freshness
        let response = freshness.control
        guard policy != .revalidate, !request.noCache, !response.noCache, !response.mustRevalidate else { return false }
        let staleness = -freshness.remaining(at: now)
        let window = max(response.staleIfError ?? -1, request.staleIfError ?? -1)
        return window >= 0 && staleness <= TimeInterval(window)
    }

    /// The current age for the `Age` field of a response the cache answers with (§5.1).
    static func age(of entry: CacheEntry, at now: Date) -> Int {
        let freshness = entry.freshness
        let age = freshness.age(at: now)
        return age.isFinite ? Int(min(age, TimeInterval(Int32.max))) : Int(Int32.max)
    }

    /// A response's fields as a cache stores them: without hop-by-hop fields, those the
    /// `Connection` field names (§3.1), and `Set-Cookie`.
    static func storedFields(_ headers: HTTPHeaders) -> HTTPHeaders {
        var dropped = notStored
        for value in headers.values(for: "Connection") {
            dropped.formUnion(HTTPHeaders.listMembers(value))
        }
        return keeping(headers) { !dropped.contains($0.name.lowercased()) }
    }

    /// Whether a HEAD response's fields describe the stored response's representation (§4.3.5):
    /// each validator the HEAD carries (`ETag`, `Last-Modified`) equals the stored one, and so
    /// does its `Content-Length` when it has one; `nil` when the HEAD carries no validator and so
    /// cannot tell.
    static func describesSameRepresentation(_ stored: HTTPHeaders, head: HTTPHeaders) -> Bool? {
        let validators = ["ETag", "Last-Modified"].filter { head.value(for: $0) != nil }
        guard !validators.isEmpty else { return nil }
        for name in validators + ["Content-Length"] {
            guard let value = head.value(for: name) else { continue }
            guard stored.value(for: name) == value else { return false }
        }
        return true
    }

    /// A stored entry's fields updated from a 304 (§3.2, §4.3.4): each field the 304 carries
    /// replaces the stored field of that name, except `Content-Length` (the stored body's) and
    /// hop-by-hop fields. The stored `Age` and `Date` described the old response's trip: the
    /// 304's replace them, and without them the age starts afresh (`Age` dropped, `Date` the
    /// 304's arrival), so that a freshened response is as young as the 304 says.
    static func merged(_ stored: HTTPHeaders, with update: HTTPHeaders, arrived: Date) -> HTTPHeaders {
        var fresh = storedFields(update)
        if fresh.value(for: "Date") == nil {
            fresh.append(name: "Date", value: HTTPDate.format(arrived))
        }
        var replaced: Set<String> = ["age"]
        for header in fresh where header.name.lowercased() != "content-length" {
            replaced.insert(header.name.lowercased())
        }
        var result = keeping(stored) { !replaced.contains($0.name.lowercased()) }
        for header in fresh where replaced.contains(header.name.lowercased()) {
            result.append(name: header.name, value: header.value)
        }
        return result
    }

    /// The fields that pass `test`, in order, repeats kept.
    static func keeping(_ headers: HTTPHeaders, _ test: (HTTPHeader) -> Bool) -> HTTPHeaders {
        var result = HTTPHeaders()
        for header in headers where test(header) {
            result.append(name: header.name, value: header.value)
        }
        return result
    }

    /// Whether two URLs share an ``Origin`` (scheme, host, and port with the scheme's default).
    static func sameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        Origin(lhs)?.contains(rhs) ?? false
    }

    /// The reserved ``CacheEntry/varyValues`` key under which the request's credentials go, as a
    /// checksum: the cache may be shared by sessions, so responses to different `Authorization`
    /// values are different variants, whatever `Vary` says.
    static let identityKey = ":authorization"

    /// The checksum of the request's `Authorization` lines, or `nil` without any.
    static func identity(of request: HTTPHeaders) -> String? {
        let lines = request.values(for: "Authorization")
        guard !lines.isEmpty else { return nil }
        var checksum = Checksum()
        for line in lines {
            checksum.add(Data(line.utf8))
            checksum.add(Data([0]))
        }
        return String(checksum.value, radix: 16)
    }

    /// Whether the method is safe (RFC 9110 §9.2.1): it does not change what the server holds.
    static func isSafe(_ method: HTTPMethod) -> Bool {
        method == .get || method == .head || method == .options || method == .trace
    }
}
