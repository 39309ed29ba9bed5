import Foundation

// MARK: - CacheStage

/// The pipeline's innermost stage when the session has an ``HTTPCache``: answers from stored
/// responses, validates stale ones, stores what may be stored and invalidates what an unsafe
/// method changed.
///
/// It runs after redirects and cookies, so it sees each hop as the engine would send it; a
/// response it answers with never reaches the transport, and the monitors hear of it through
/// ``EventMonitor/requestWasAnsweredFromCache(_:attempt:)``.
struct CacheStage: Interceptor {
    let cache: HTTPCache

    func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response {
        let method = request.method
        guard method == .get || method == .head else {
            // A request the cache does not answer; after an unsafe method succeeded, the
            // responses it may have changed are forgotten (RFC 9111 §4.4). Inline: an async
            // function of its own costs a request that cannot be cached a measurable share.
            let url = request.url
            let response = try await next(request)
            if !CacheRules.isSafe(method), (200..<400).contains(response.statusCode) {
                await invalidate(url, headers: response.headers)
            }
            return response
        }
        let policy = request.options.cachePolicy
        guard policy != .disabled else {
            return try await next(request)
        }
        let (control, isConditional) = CacheRules.inspect(request.headers)
        guard !isConditional else {
            // The caller's own conditional or partial request is theirs to handle.
            return try await next(request)
        }
        return try await lookUp(request, control: control, policy: policy, next: next)
    }

    /// Forgets the target URI, and the `Location` and `Content-Location` URIs of the same origin.
    private func invalidate(_ url: URL, headers: HTTPHeaders) async {
        await cache.storage.removeEntries(for: HTTPCache.key(for: url))
        for name in ["Location", "Content-Location"] {
            guard let value = headers.value(for: name),
                  let other = URL(string: value, relativeTo: url)?.absoluteURL,
                  CacheRules.sameOrigin(other, url) else { continue }
            await cache.storage.removeEntries(for: HTTPCache.key(for: other))
        }
    }

    /// Answers from the cache when a stored response may be used; otherwise goes to the network,
    /// one request per key at a time for misses and validations (later ones wait for it, then
    /// look again).
    private func lookUp(_ request: OutgoingRequest, control: CacheControl, policy: CachePolicy, next: Next) async throws -> Response {
        let key = HTTPCache.key(for: request.url)
        var waited = false
        while true {
            let start = ContinuousClock.now
            var stored: CacheEntry?
            if policy != .reloadIgnoringCacheData {
                stored = await cache.storage.entries(for: key).first { CacheRules.matches($0, request.headers) }
            }
            if let entry = stored {
                let use = CacheRules.use(of: entry, requestControl: control, policy: policy, now: cache.now())
                if use != .validate {
                    if let response = await answer(with: entry, for: request, status: use == .fresh ? .hit : .staleHit, start: start, next: next) {
                        if use == .staleWhileRevalidate {
                            revalidateInBackground(entry, request: request, control: control, policy: policy, next: next)
                        }
                        return response
                    }
                    // The body is gone (evicted, or damaged on disk): as if nothing were stored.
                    stored = nil
                }
            }
            if control.onlyIfCached || policy == .returnCacheDataDontLoad {
                return gatewayTimeout(for: request, start: start)
            }
            if request.method == .head {
                // A HEAD that the stored GET cannot answer goes on as it is; nothing is stored,
                // but its 200 freshens the stored GET or retires it (§4.3.5).
                let requestTime = cache.now()
                var response = try await next(request)
                response.cacheStatus = .miss
                if response.statusCode == 200, let entry = stored {
                    await freshen(entry, fromHead: response.headers, request: request, requestTime: requestTime)
                }
                return response
            }
            // A request whose response no one else may use goes alone: a reload, a no-store.
            guard !waited, policy != .reloadIgnoringCacheData, !control.noStore else {
                return try await fetch(request, key: key, stored: stored, control: control, policy: policy, next: next, leads: false)
            }
            if let flight = cache.join(key) {
                // The wait is bounded as a wait on the transport would be: past the idle limit,
                // this request goes on its own; past the deadline, it fails.
                try await flight.wait(on: next.chain.clock)
                try Task.checkCancellation()
                waited = true
                continue
            }
            return try await fetch(request, key: key, stored: stored, control: control, policy: policy, next: next, leads: true)
        }
    }

    /// A response made from a stored entry, with its current `Age`; `nil` when its body is gone.
    func answer(with entry: CacheEntry, for request: OutgoingRequest, status: CacheStatus, start: ContinuousClock.Instant, next: Next) async -> Response? {
        var headers = entry.headers
        headers.update(name: "Age", value: String(CacheRules.age(of: entry, at: cache.now())))
        let head = ResponseHead(statusCode: entry.statusCode, headers: headers, url: request.url)
        var response: Response
        if request.method == .head {
            response = Response(request: request, head: head, data: Data(), start: start, duration: .now - start)
        } else if next.chain.mode == .collect {
            guard let data = await cache.storage.data(of: entry) else { return nil }
            response = Response(request: request, head: head, data: data, start: start, duration: .now - start)
        } else {
            guard let body = await cache.storage.body(of: entry) else { return nil }
            response = Response(request: request, head: head, data: Data(), start: start, duration: .now - start)
            response.body = body
        }
        response.cacheStatus = status
        next.chain.reportCacheAnswer(response)
        return response
    }

    /// The answer to `only-if-cached` when nothing stored may be used (RFC 9111 §5.2.1.7).
    private func gatewayTimeout(for request: OutgoingRequest, start: ContinuousClock.Instant) -> Response {
        let head = ResponseHead(statusCode: 504, headers: ["Content-Type": "text/plain; charset=utf-8"], url: request.url)
        var response = Response(request: request, head: head, data: Data("no stored response may answer this only-if-cached request".utf8), start: start, duration: .now - start)
        response.cacheStatus = .miss
        return response
    }
}
