import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackFixture
import Requests
import Testing
import TransportContract

/// Every rule of the cache's conformance checks, over `URLSessionTransport` to the loopback
/// server's scripted answers, and over a `StubTransport` with the same scripts.
@Suite struct CacheConformanceTests {
    /// One transport for all URLSession checks, as an application would keep one.
    static let urlSession = URLSessionTransport(configuration: .ephemeral)

    @Test(arguments: CacheConformance.cases)
    func overURLSessionToTheLoopbackServer(_ check: CacheConformance.Case) async throws {
        let server = try LoopbackServer.shared.get()
        try await CacheConformance(origin: LoopbackOrigin(transport: Self.urlSession, server: server.baseURL)).check(check)
    }

    @Test(arguments: CacheConformance.cases)
    func overStubTransport(_ check: CacheConformance.Case) async throws {
        try await CacheConformance(origin: StubOrigin()).check(check)
    }
}

/// The same rules with every entry on disk, each check in a folder of its own.
@Suite struct DiskCacheConformanceTests {
    @Test(arguments: CacheConformance.cases)
    func overStubTransportWithADiskStore(_ check: CacheConformance.Case) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("requests-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await CacheConformance(origin: StubOrigin(), makeStorage: { try DiskCacheStorage(directory: folder) }).check(check)
    }
}
