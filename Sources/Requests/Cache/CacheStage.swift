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
            return try await passing(request, next: next)
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

    /// A request the cache does not answer; after an unsafe method succeeded, the responses it
    /// may have changed are forgotten (RFC 9111 §4.4).
    private func passing(_ request: OutgoingRequest, next: Next) async throws -> Response {
        let url = request.url
        let method = request.method
        let response = try await next(request)
        if !CacheRules.isSafe(method), (200..<400).contains(response.statusCode) {
            await invalidate(url, headers: response.headers)
        }
        return response
    }

    /// Forgets the target URI, and the `Location` and `Content-Location` URIs of the same origin.
    private func invalidate(_ url: URL, headers: HTTPHeaders) async {
        await cache.storage.removeEntries(for: HTTPCache.key(for: url))
        for name in ["Location", "Content-Location"] {
            guard let value = headers.value(for: name),
                  let other = URL(string: value, relativeTo: url)?.absoluteURL,
                  other.scheme?.lowercased() == url.scheme?.lowercased(),
                  other.host?.lowercased() == url.host?.lowercased(),
                  other.port == url.port else { continue }
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
                            revalidateInBackground(entry, request: request, control: control, next: next)
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
                // A HEAD that the stored GET cannot answer goes on as it is; nothing is stored.
                var response = try await next(request)
                response.cacheStatus = .miss
                return response
            }
            guard !waited else {
                return try await fetch(request, key: key, stored: stored, control: control, next: next, leads: false)
            }
            if let flight = cache.join(key) {
                await flight.wait()
                try Task.checkCancellation()
                waited = true
                continue
            }
            return try await fetch(request, key: key, stored: stored, control: control, next: next, leads: true)
        }
    }

    /// One network request for a key: a validation when there is a stored response, else a plain
    /// one whose response is stored when it may be. When it `leads`, it lands the key's flight
    /// when the response is in (a collected body stored; a stream's head, its body filling the
    /// entry as it is read).
    func fetch(
        _ request: OutgoingRequest, key: String, stored: CacheEntry?, control: CacheControl, next: Next, leads: Bool
    ) async throws -> Response {
        defer {
            if leads { cache.land(key) }
        }
        if let stored {
            return try await validate(stored, request: request, key: key, control: control, next: next)
        }
        let requestTime = cache.now()
        var response = try await next(request)
        response.cacheStatus = .miss
        if CacheRules.isStorable(status: response.statusCode, headers: response.headers, requestControl: control) {
            await store(&response, for: request, key: key, requestTime: requestTime)
        }
        return response
    }

    /// Validates a stored response: a 304 merges into it and the stored body answers; a full
    /// response replaces it; a failure or a 5xx gets the stale one when `stale-if-error` allows.
    private func validate(
        _ stored: CacheEntry, request: OutgoingRequest, key: String, control: CacheControl, next: Next
    ) async throws -> Response {
        let start = ContinuousClock.now
        var sent = request
        sent.options[StoredResponseStateOption.self] = StoredResponseState(stored)
        if let tag = stored.headers.value(for: "ETag") {
            sent.headers.update(name: "If-None-Match", value: tag)
        }
        if let modified = stored.headers.value(for: "Last-Modified") {
            sent.headers.update(name: "If-Modified-Since", value: modified)
        }
        let requestTime = cache.now()
        var response: Response
        do {
            response = try await next(sent)
        } catch {
            if CacheRules.mayServeOnError(stored, requestControl: control, now: cache.now()),
               let answer = await answer(with: stored, for: request, status: .staleHit, start: start, next: next) {
                return answer
            }
            throw error
        }
        let responseTime = cache.now()
        if response.statusCode == 304 {
            response.body?.cancel()
            var updated = stored
            updated.headers = CacheRules.merged(stored.headers, with: response.headers)
            updated.requestTime = requestTime
            updated.responseTime = responseTime
            await cache.storage.update(updated)
            if let answer = await answer(with: updated, for: request, status: .revalidated, start: start, next: next) {
                return answer
            }
            // The stored body went while the 304 was on its way: ask again, unconditionally.
            return try await fetch(request, key: key, stored: nil, control: control, next: next, leads: false)
        }
        if response.statusCode >= 500, CacheRules.mayServeOnError(stored, requestControl: control, now: responseTime),
           let answer = await answer(with: stored, for: request, status: .staleHit, start: start, next: next) {
            response.body?.cancel()
            return answer
        }
        response.cacheStatus = .miss
        if CacheRules.isStorable(status: response.statusCode, headers: response.headers, requestControl: control) {
            await store(&response, for: request, key: key, requestTime: requestTime)
        }
        return response
    }

    /// Stores a response that may be stored: a collected body at once, a stream's as the caller
    /// reads it (committed only when read whole).
    private func store(_ response: inout Response, for request: OutgoingRequest, key: String, requestTime: Date) async {
        let entry = CacheEntry(
            key: key, statusCode: response.statusCode, headers: CacheRules.storedFields(response.headers),
            varyValues: CacheRules.varyValues(CacheRules.varyNames(response.headers), of: request.headers),
            requestTime: requestTime, responseTime: cache.now()
        )
        guard let writer = await cache.storage.makeWriter(for: entry) else { return }
        if let body = response.body {
            // The flight lands now, at the head, so that no one waits on how the caller reads.
            let length = response.headers.value(for: "Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            response.body = ResponseBody(source: CacheFillSource(body: body, writer: writer, expectedLength: length), wrapping: body)
        } else if await writer.write(response.data) {
            await writer.commit()
        } else {
            await writer.abort()
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

    /// Validates a stale entry in a task of its own, while the stale one answers
    /// (`stale-while-revalidate`): one at a time per key, over the session's transport, outside
    /// the call that started it.
    private func revalidateInBackground(_ entry: CacheEntry, request: OutgoingRequest, control: CacheControl, next: Next) {
        let key = entry.key
        guard cache.claimBackground(key) else { return }
        let chain = next.chain.detached()
        let limit = next.chain.timeout ?? next.chain.idleTimeout ?? .seconds(60)
        let stage = self
        Task {
            defer { stage.cache.releaseBackground(key) }
            _ = try? await Race.run(deadline: limit) {
                try await stage.fetch(request, key: key, stored: entry, control: control, next: InterceptorNext(chain: chain, index: 0), leads: false)
            }
        }
    }
}
