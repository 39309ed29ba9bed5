import Foundation
@testable import Requests
import RequestsTesting
import TestScheduling
import Testing

/// The disk store: a restart, damaged files, its size limit, and two stores sharing a folder.
/// It computes checksums over megabytes: behind the timing-sensitive suites.
@Suite(.backgroundPriority) struct DiskCacheStorageTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("requests-disk-cache-\(UUID().uuidString)")

    /// A stub whose `/item/<n>` answers a fresh, numbered body, a new version each time.
    private func versionedStub(length: @escaping @Sendable (Int) -> Int = { _ in 2_000 }) -> StubTransport {
        let stub = StubTransport()
        let versions = Guarded<[String: Int]>([:])
        stub.on(.get, "/item/*", respond: .computed { request in
            let path = request.url.path
            let version = versions.withLock { counts -> Int in
                counts[path, default: 0] += 1
                return counts[path, default: 0]
            }
            let item = Int(request.url.lastPathComponent) ?? 0
            return .data(Self.body(item: item, version: version, length: length(item)),
                         headers: ["Cache-Control": "max-age=600", "X-Version": String(version)])
        })
        return stub
    }

    /// A body that names its item and version in every byte's place.
    static func body(item: Int, version: Int, length: Int) -> Data {
        var data = Data(capacity: length)
        let seed = UInt8(truncatingIfNeeded: item &* 31 &+ version &* 7)
        for index in 0..<length {
            data.append(seed &+ UInt8(truncatingIfNeeded: index))
        }
        return data
    }

    private func url(_ item: Int) -> URL {
        URL(string: "http://127.0.0.1:9/item/\(item)")!
    }

    private func session(_ stub: StubTransport, byteLimit: Int = 100 << 20) throws -> Session {
        Session(transport: stub, cache: HTTPCache(storage: try DiskCacheStorage(directory: folder, byteLimit: byteLimit)))
    }

    @Test func anEntrySurvivesARestart() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let stub = versionedStub()
        _ = try await session(stub).request(url(1))
        let restarted = try await session(stub).request(url(1))
        #expect(restarted.cacheStatus == .hit)
        #expect(restarted.headers.value(for: "X-Version") == "1")
        #expect(restarted.data == Self.body(item: 1, version: 1, length: 2_000))
        #expect(stub.requests.count == 1)
    }

    /// The files of the one entry in the folder.
    private func entryFiles() throws -> (head: URL, body: URL) {
        let manager = FileManager.default
        for name in try manager.contentsOfDirectory(atPath: folder.path) where name != "tmp" {
            let sub = folder.appendingPathComponent(name)
            if let head = try manager.contentsOfDirectory(atPath: sub.path).first(where: { $0.hasSuffix(".head") }) {
                let id = head.dropLast(".head".count)
                return (sub.appendingPathComponent(head), sub.appendingPathComponent(id + ".body"))
            }
        }
        throw CocoaError(.fileNoSuchFile)
    }

    @Test(arguments: ["flipped byte", "truncated body", "missing body", "garbage head", "empty head", "head of another length"])
    func aDamagedEntryIsAMissNeverAWrongBody(damage: String) async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let stub = versionedStub(length: { _ in (1 << 20) + 100 })
        let session = try session(stub)
        _ = try await session.request(url(2))
        let files = try entryFiles()
        switch damage {
        case "flipped byte":
            var data = try Data(contentsOf: files.body)
            data[data.count / 2] ^= 0xFF
            try data.write(to: files.body)
        case "truncated body":
            let data = try Data(contentsOf: files.body)
            try data.prefix(data.count - 1).write(to: files.body)
        case "missing body":
            try FileManager.default.removeItem(at: files.body)
        case "garbage head":
            try Data("{\"version\":1,\"key\":".utf8).write(to: files.head)
        case "empty head":
            try Data().write(to: files.head)
        default:
            let text = try String(contentsOf: files.head, encoding: .utf8)
            try text.replacingOccurrences(of: "\"bodyLength\":\((1 << 20) + 100)", with: "\"bodyLength\":\((1 << 20) + 99)").write(to: files.head, atomically: true, encoding: .utf8)
        }
        let again = try await session.request(url(2))
        #expect(again.cacheStatus == .miss)
        #expect(again.data == Self.body(item: 2, version: 2, length: (1 << 20) + 100))
        let stream = try await session.stream(url(2))
        #expect(stream.response.cacheStatus == .hit)
        #expect(try await stream.body.collect() == Self.body(item: 2, version: 2, length: (1 << 20) + 100))
    }

    @Test func theFolderStaysWithinItsLimitLeastRecentlyUsedFirst() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try await sessionWithFourEntriesAtItsLimit()
        // Item 1 is used now, so item 2 is the least recently used when item 5 comes.
        try await Task.sleep(for: .milliseconds(20))
        #expect(try await session.request(url(1)).cacheStatus == .hit)
        _ = try await session.request(url(5))
        let size = DiskCacheStorage.files(in: folder).reduce(0) { $0 + $1.size }
        #expect(size <= 90_000)
        #expect(try await session.request(url(1)).cacheStatus == .hit)
        #expect(try await session.request(url(5)).cacheStatus == .hit)
        #expect(try await session.request(url(2)).cacheStatus == .miss)
    }

    /// Entries whose files carry the same time (written within one tick of a coarse file-system
    /// clock) go in the order they were written, the oldest first, whatever order the folder
    /// lists them in.
    @Test func entriesOfTheSameTimeGoOldestFirst() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try await sessionWithFourEntriesAtItsLimit()
        let tick = Date().addingTimeInterval(-60)
        for file in DiskCacheStorage.files(in: folder) {
            try FileManager.default.setAttributes([.modificationDate: tick], ofItemAtPath: file.folder.appendingPathComponent(file.id + ".head").path)
        }
        _ = try await session.request(url(5))
        #expect(DiskCacheStorage.files(in: folder).reduce(0) { $0 + $1.size } <= 90_000)
        for item in 3...5 {
            #expect(try await session.request(url(item)).cacheStatus == .hit, "item \(item)")
        }
        #expect(try await session.request(url(1)).cacheStatus == .miss)
        #expect(try await session.request(url(2)).cacheStatus == .miss)
    }

    /// A session over a disk store with room for about four entries of 20 kB and their heads,
    /// holding items 1 to 4, stored in that order.
    private func sessionWithFourEntriesAtItsLimit() async throws -> Session {
        let session = try session(versionedStub(length: { _ in 20_000 }), byteLimit: 90_000)
        for item in 1...4 {
            _ = try await session.request(url(item))
        }
        return session
    }

    @Sendable static func sharedLength(_ item: Int) -> Int {
        item == 4 ? (1 << 20) + 4_096 : 20_000 + item
    }

    @Test func twoSessionsSharingAFolderLoseNothingAndServeNoTornBody() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // One body streams from disk (over 1 MiB), the others are read whole.
        let stub = versionedStub(length: Self.sharedLength)
        let sessions = [try session(stub), try session(stub)]
        let items = Array(1...12)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for round in 0..<3 {
                for item in items {
                    for (index, session) in sessions.enumerated() {
                        group.addTask {
                            var options = RequestOptions()
                            // Some requests replace the entry while others read it.
                            if (round + index + item) % 3 == 0 { options.cachePolicy = .reloadIgnoringCacheData }
                            let response = try await session.request(url(item), options: options)
                            let version = Int(response.headers.value(for: "X-Version") ?? "") ?? -1
                            let length = Self.sharedLength(item)
                            #expect(response.data == Self.body(item: item, version: version, length: length),
                                    "item \(item) version \(version): a body that is not that version's")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        for item in items {
            for session in sessions {
                let response = try await session.request(url(item))
                #expect(response.cacheStatus == .hit, "item \(item) was lost")
                let version = Int(response.headers.value(for: "X-Version") ?? "") ?? -1
                let length = Self.sharedLength(item)
                #expect(response.data == Self.body(item: item, version: version, length: length))
            }
        }
    }
}
