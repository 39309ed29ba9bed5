import Foundation

// MARK: - cache

/// The HTTP cache fed stored files and response heads it did not write:
/// - a disk store whose head and body files hold the input's bytes (or a well-formed head over
///   them, with a right or wrong length and checksum) returns either nothing or exactly the body
///   on disk whose length and checksum its head names: never a wrong body, never a trap;
/// - a response head of random fields goes through every rule (storability, freshness, the use
///   of a stored entry under every policy, the `Age` answered, a 304's merge) without a trap, an
///   `Age` is never negative, and a merge keeps the stored `Content-Length`.
func fuzzCache(_ input: FuzzInput) {
    var input = input
    let headBytes = input.chunk(limit: 400)
    let bodyBytes = input.chunk(limit: 300)
    let mode = input.byte()
    var headers = HTTPHeaders()
    let names = ["Cache-Control", "Expires", "Date", "Age", "Last-Modified", "Vary", "ETag", "Content-Length", "Pragma", "Connection"]
    while !input.isAtEnd, headers.count < 8 {
        headers.append(name: names[Int(input.byte()) % names.count], value: input.string(limit: 40))
    }
    checkStoredFiles(head: headBytes, body: bodyBytes, mode: mode, headers: headers)
    checkRules(headers, status: [200, 203, 204, 206, 301, 304, 404, 500][Int(mode) % 8], mode: mode)
}

/// One folder for the whole run: every input replaces its files.
private let fuzzFolder = FileManager.default.temporaryDirectory.appendingPathComponent("requests-fuzz-cache-\(getpid())")

private func checkStoredFiles(head: [UInt8], body: [UInt8], mode: UInt8, headers: HTTPHeaders) {
    let key = "https://fuzz.example/item"
    guard let storage = try? DiskCacheStorage(directory: fuzzFolder, byteLimit: 1 << 20) else { fail("the fuzz folder cannot be made") }
    let folder = storage.folder(for: key)
    try? FileManager.default.removeItem(at: folder)
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let id = "entry"
    var headData = Data(head)
    var checksum = Checksum()
    checksum.add(Data(body))
    if mode & 1 == 1 {
        // A well-formed head over the input's body: right, or off by one, in length and checksum.
        let entry = CacheEntry(key: key, statusCode: 200, headers: headers, requestTime: Date(timeIntervalSince1970: 1_800_000_000),
                               responseTime: Date(timeIntervalSince1970: 1_800_000_001), bodyLength: body.count + (mode & 2 == 2 ? 1 : 0))
        let record = DiskEntryRecord(entry: entry, checksum: checksum.value &+ (mode & 4 == 4 ? 1 : 0))
        guard let encoded = try? JSONEncoder().encode(record) else { fail("a record cannot be encoded") }
        headData = encoded
    }
    guard (try? headData.write(to: folder.appendingPathComponent(id + DiskCacheStorage.headSuffix))) != nil,
          (try? Data(body).write(to: folder.appendingPathComponent(id + DiskCacheStorage.bodySuffix))) != nil
    else { fail("the fuzz files cannot be written") }
    let decodedHead = try? JSONDecoder().decode(DiskEntryRecord.self, from: headData)
    let result = blocking { () -> (entries: [CacheEntry], data: Data?) in
        let entries = await storage.entries(for: key)
        guard let first = entries.first else { return (entries, nil) }
        return (entries, await storage.data(of: first))
    }
    guard result.entries.count <= 1 else { fail("one head on disk gave \(result.entries.count) entries") }
    if let data = result.data {
        guard let record = decodedHead else { fail("a body came back for a head that does not decode") }
        guard data == Data(body) else { fail("a body that is not the one on disk came back") }
        guard data.count == record.entry.bodyLength, checksum.value == record.checksum else {
            fail("a body came back whose length or checksum is not its head's")
        }
    }
}

private func checkRules(_ headers: HTTPHeaders, status: Int, mode: UInt8) {
    let now = Date(timeIntervalSince1970: 1_800_000_100)
    let entry = CacheEntry(key: "k", statusCode: status, headers: CacheRules.storedFields(headers),
                           varyValues: CacheRules.variant(of: headers, for: headers),
                           requestTime: Date(timeIntervalSince1970: 1_800_000_000), responseTime: Date(timeIntervalSince1970: 1_800_000_001),
                           bodyLength: 3)
    let (control, _) = CacheRules.inspect(headers)
    _ = CacheRules.isStorable(status: status, headers: headers, requestControl: control)
    _ = CacheRules.matches(entry, headers)
    let policies: [CachePolicy] = [.useProtocol, .reloadIgnoringCacheData, .revalidate, .returnCacheDataElseLoad, .returnCacheDataDontLoad, .disabled]
    let policy = policies[Int(mode) % policies.count]
    _ = CacheRules.use(of: entry, requestControl: control, policy: policy, now: now)
    _ = CacheRules.mayServeOnError(entry, requestControl: control, policy: policy, now: now)
    guard CacheRules.age(of: entry, at: now) >= 0 else { fail("a negative Age") }
    var stored = entry.headers
    stored.update(name: "Content-Length", value: "3")
    let merged = CacheRules.merged(stored, with: headers, arrived: now)
    guard merged.values(for: "Content-Length") == ["3"] else { fail("a 304's merge changed the stored Content-Length") }
    _ = StoredResponseState(entry)
}

/// Runs async work to its end from the fuzzer's thread.
///
/// The waiting thread goes on only once the task has let go of everything it held: the
/// semaphore is signalled when the task's closure (and the `Done` it captures) is released, not
/// from inside its body. Signalled from the body, the fuzzer's leak check could run while the
/// task still tore down what the work returned, and reported that as a leak (once in a CI run).
private func blocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let box = FuzzResultBox<T>()
    let semaphore = DispatchSemaphore(value: 0)
    // Only the task's closure holds the `Done`.
    Task { [done = Done(semaphore)] in
        box.value = await work()
        withExtendedLifetime(done) {}
    }
    semaphore.wait()
    guard let value = box.value else { fail("async work ended without a value") }
    return value
}

/// Signals its semaphore when released.
private final class Done: Sendable {
    let semaphore: DispatchSemaphore
    init(_ semaphore: DispatchSemaphore) { self.semaphore = semaphore }
    deinit { semaphore.signal() }
}

/// Hands a value from the task to the waiting thread; the semaphore orders the two.
private final class FuzzResultBox<T>: @unchecked Sendable {
    var value: T?
}
