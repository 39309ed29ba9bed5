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

    /// Fields a cache does not store or forward from a stored response (RFC 9110 §7.6.1's
    /// hop-by-hop fields), lowercased.
    static let hopByHop: Set<String> = ["connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade", "trailer", "proxy-authenticate", "proxy-authorization"]

    /// Request fields that make a request conditional or partial: such a request is the
    /// caller's own validation, passed through untouched.
    static let conditionalFields = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"]

    /// The request's directives: its `Cache-Control`, or `Pragma: no-cache` without one (§5.4).
    static func requestControl(_ headers: HTTPHeaders) -> CacheControl {
        var control = CacheControl(headers)
        if headers.value(for: "Cache-Control") == nil,
           headers.values(for: "Pragma").contains(where: { $0.lowercased().contains("no-cache") }) {
            control.noCache = true
        }
        return control
    }

    /// The lowercased field names a response's `Vary` lists; `["*"]` for `Vary: *`.
    static func varyNames(_ headers: HTTPHeaders) -> [String] {
        var names: [String] = []
        for value in headers.values(for: "Vary") {
            for name in value.split(separator: ",") {
                let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
                if !trimmed.isEmpty, !names.contains(trimmed) { names.append(trimmed) }
            }
        }
        return names
    }

    /// A request's values for the fields a response's `Vary` names (§4.1): the field's lines
    /// joined with `, `, whitespace around each trimmed; `nil` for a field the request lacks.
    static func varyValues(_ names: [String], of request: HTTPHeaders) -> [String: String?] {
        var values: [String: String?] = [:]
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
        let control = CacheControl(headers)
        guard !control.noStore, !varyNames(headers).contains("*") else { return false }
        return control.maxAge != nil || headers.value(for: "Expires") != nil || control.isPublic || control.isPrivate
            || Freshness.heuristicallyCacheable.contains(status)
    }

    /// How a request may use a stored response (§4.2, §5.2.1, §5.2.2, RFC 5861), at `now`.
    static func use(of entry: CacheEntry, requestControl request: CacheControl, policy: CachePolicy, now: Date) -> Use {
        let response = CacheControl(entry.headers)
        let freshness = Freshness(status: entry.statusCode, headers: entry.headers, requestTime: entry.requestTime, responseTime: entry.responseTime)
        let age = freshness.age(at: now)
        let remaining = freshness.lifetime - age
        switch policy {
        case .returnCacheDataElseLoad, .returnCacheDataDontLoad:
            return remaining > 0 ? .fresh : .stale
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

    /// Whether a stale entry may answer because the origin failed (RFC 5861 `stale-if-error`, in
    /// the response or the request).
    static func mayServeOnError(_ entry: CacheEntry, requestControl request: CacheControl, now: Date) -> Bool {
        let response = CacheControl(entry.headers)
        let freshness = Freshness(status: entry.statusCode, headers: entry.headers, requestTime: entry.requestTime, responseTime: entry.responseTime)
        let staleness = -freshness.remaining(at: now)
        if staleness <= 0 { return true }
        if response.mustRevalidate { return false }
        let window = max(response.staleIfError ?? -1, request.staleIfError ?? -1)
        return window >= 0 && staleness <= TimeInterval(window)
    }

    /// The current age for the `Age` field of a response the cache answers with (§5.1).
    static func age(of entry: CacheEntry, at now: Date) -> Int {
        let freshness = Freshness(status: entry.statusCode, headers: entry.headers, requestTime: entry.requestTime, responseTime: entry.responseTime)
        let age = freshness.age(at: now)
        return age.isFinite ? Int(min(age, TimeInterval(Int32.max))) : Int(Int32.max)
    }

    /// A response's fields as a cache stores them: without hop-by-hop fields and those the
    /// `Connection` field names (§3.1).
    static func storedFields(_ headers: HTTPHeaders) -> HTTPHeaders {
        var dropped = hopByHop
        for value in headers.values(for: "Connection") {
            for name in value.split(separator: ",") {
                dropped.insert(name.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
        return keeping(headers) { !dropped.contains($0.name.lowercased()) }
    }

    /// A stored entry's fields updated from a 304 (§3.2, §4.3.4): each field the 304 carries
    /// replaces the stored field of that name, except `Content-Length` (the stored body's) and
    /// hop-by-hop fields.
    static func merged(_ stored: HTTPHeaders, with update: HTTPHeaders) -> HTTPHeaders {
        let fresh = storedFields(update)
        var replaced = Set<String>()
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

    /// Whether the method is safe (RFC 9110 §9.2.1): it does not change what the server holds.
    static func isSafe(_ method: HTTPMethod) -> Bool {
        method == .get || method == .head || method == .options || method == .trace
    }
}
