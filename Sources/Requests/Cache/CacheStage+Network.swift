import Foundation

// MARK: - CacheStage + network

extension CacheStage {
    /// One network request for a key: a validation when there is a stored response, else a plain
    /// one whose response is stored when it may be. When it `leads`, it lands the key's flight
    /// when the response is in (a collected body stored; a stream's head, its body filling the
    /// entry as it is read). In the `background` (a `stale-while-revalidate` revalidation) it
    /// only brings the entry up to date, and answers nobody.
    func fetch(
        _ request: OutgoingRequest, key: String, stored: CacheEntry?, control: CacheControl, policy: CachePolicy, next: Next,
        leads: Bool, background: Bool = false
    ) async throws -> Response {
        defer {
            if leads { cache.land(key) }
        }
        if let stored {
            return try await validate(stored, request: request, key: key, control: control, policy: policy, next: next, background: background)
        }
        let requestTime = cache.now()
        var response = try await next(request)
        response.cacheStatus = .miss
        if CacheRules.isStorable(status: response.statusCode, headers: response.headers, requestControl: control) {
            await store(&response, for: request, key: key, requestTime: requestTime, next: next)
        }
        return response
    }

    /// Validates a stored response: a 304 merges into it and the stored body answers; a full
    /// response replaces it; a failure or a 5xx gets the stale one when `stale-if-error` allows.
    private func validate(
        _ stored: CacheEntry, request: OutgoingRequest, key: String, control: CacheControl, policy: CachePolicy, next: Next,
        background: Bool
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
            // A caller who left, or a session shut down, wants no answer at all.
            if error is CancellationError || Task.isCancelled || (error as? RequestError)?.code == .sessionShutDown {
                throw error
            }
            if !background, CacheRules.mayServeOnError(stored, requestControl: control, policy: policy, now: cache.now()),
               let answer = await answer(with: stored, for: request, status: .staleHit, start: start, next: next) {
                return answer
            }
            throw error
        }
        let responseTime = cache.now()
        if response.statusCode == 304 {
            response.body?.cancel()
            var updated = stored
            updated.headers = CacheRules.merged(stored.headers, with: response.headers, arrived: responseTime)
            // A 304 may name other fields in Vary: the entry is the variant of this request now.
            updated.varyValues = CacheRules.variant(of: updated.headers, for: request.headers)
            updated.requestTime = requestTime
            updated.responseTime = responseTime
            await cache.storage.update(updated)
            if background {
                return response
            }
            if let answer = await answer(with: updated, for: request, status: .revalidated, start: start, next: next) {
                return answer
            }
            // The stored body went while the 304 was on its way: ask again, unconditionally.
            return try await fetch(request, key: key, stored: nil, control: control, policy: policy, next: next, leads: false)
        }
        if !background, response.statusCode >= 500,
           CacheRules.mayServeOnError(stored, requestControl: control, policy: policy, now: responseTime),
           let answer = await answer(with: stored, for: request, status: .staleHit, start: start, next: next) {
            response.body?.cancel()
            return answer
        }
        response.cacheStatus = .miss
        if CacheRules.isStorable(status: response.statusCode, headers: response.headers, requestControl: control) {
            await store(&response, for: request, key: key, requestTime: requestTime, next: next)
        }
        return response
    }

    /// A 200 to a HEAD that went to the network, for a URI whose stored GET could have answered
    /// it (RFC 9111 §4.3.5): when the validators it carries (`ETag`, `Last-Modified`) and its
    /// `Content-Length` match the stored response's, its fields update the stored response as a
    /// 304's would; when they differ, the stored response describes another representation, and
    /// goes (the RFC asks that it be treated as stale; a private cache may drop it, which is
    /// safer). A HEAD without a validator changes nothing.
    func freshen(_ entry: CacheEntry, fromHead headers: HTTPHeaders, request: OutgoingRequest, requestTime: Date) async {
        let responseTime = cache.now()
        switch CacheRules.describesSameRepresentation(entry.headers, head: headers) {
        case nil:
            return
        case false?:
            await cache.storage.removeEntries(for: HTTPCache.key(for: request.url))
            return
        case true?:
            break
        }
        var updated = entry
        updated.headers = CacheRules.merged(entry.headers, with: headers, arrived: responseTime)
        updated.varyValues = CacheRules.variant(of: updated.headers, for: request.headers)
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        await cache.storage.update(updated)
    }

    /// Stores a response that may be stored: a collected body at once, a stream's as the caller
    /// reads it (committed only when read whole).
    private func store(_ response: inout Response, for request: OutgoingRequest, key: String, requestTime: Date, next: Next) async {
        // Both times from the cache's clock, which a test may move by hand.
        let entry = CacheEntry(
            key: key, statusCode: response.statusCode, headers: CacheRules.storedFields(response.headers),
            varyValues: CacheRules.variant(of: response.headers, for: request.headers),
            requestTime: requestTime, responseTime: cache.now()
        )
        guard let writer = await cache.storage.makeWriter(for: entry) else { return }
        if let body = response.body {
            // The flight lands now, at the head, so that no one waits on how the caller reads.
            // `Content-Length` counts the bytes on the wire: a body the transport decoded is
            // checked by its end alone.
            let encoding = response.headers.value(for: "Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased()
            let decoded = next.chain.transport.behavior.decodesContentEncoding && encoding != nil && encoding != "identity"
            let length = decoded ? nil : response.headers.value(for: "Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            response.body = ResponseBody(source: CacheFillSource(body: body, writer: writer, expectedLength: length), wrapping: body)
        } else if await writer.write(response.data) {
            await writer.commit()
        } else {
            await writer.abort()
        }
    }

    /// Validates a stale entry in a task of its own, while the stale one answers
    /// (`stale-while-revalidate`): it leads the key's flight, so that it runs once per key and
    /// validations in the foreground wait for it; over the session's transport, outside the call
    /// that started it.
    func revalidateInBackground(_ entry: CacheEntry, request: OutgoingRequest, control: CacheControl, policy: CachePolicy, next: Next) {
        let key = entry.key
        guard cache.join(key) == nil else { return }
        // A call of its own, whose clock's deadline is this call's timeout (else its idle limit).
        let chain = next.chain.detached()
        let stage = self
        Task {
            _ = try? await stage.fetch(request, key: key, stored: entry, control: control, policy: policy,
                                       next: InterceptorNext(chain: chain, index: 0), leads: false, background: true)
            chain.clock.end()
            stage.cache.land(key)
        }
    }
}
