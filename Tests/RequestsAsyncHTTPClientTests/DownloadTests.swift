#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import Requests
import RequestsAsyncHTTPClient
import Testing
import TransportContract

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Session.download` over `AsyncHTTPClientTransport`: the body goes to the file with progress,
/// asks for the bytes on the wire, and a download cut mid-body resumes with `Range`.
@Suite struct DownloadTests {
    @Test func theBodyGoesToTheFileWithProgress() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("data.bin")
            try await withTransport { transport in
                let download = Session(transport: transport, cookies: .none).download(try server().url("/range/3000000"), to: file)
                var seen: [TransferProgress] = []
                for await progress in download.progress { seen.append(progress) }
                let response = try await download.response().validate()
                #expect(response.fileURL == file)
                let data = try Data(contentsOf: file)
                #expect(data.count == 3_000_000)
                #expect(data.enumerated().allSatisfy { $0.element == UInt8(truncatingIfNeeded: $0.offset) })
                #expect(seen.last == TransferProgress(completedBytes: 3_000_000, totalBytes: 3_000_000))
                #expect(seen.map(\.completedBytes) == seen.map(\.completedBytes).sorted())
            }
        }
    }

    /// The transport decodes compressed bodies, so a download asks for `identity`: its byte
    /// counts and `Range` offsets are then the bytes on the wire.
    @Test func aDownloadAsksForTheBytesOnTheWire() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("echo.json")
            try await withTransport { transport in
                let session = Session(transport: transport, cookies: .none)
                _ = try await session.download(try server().url("/anything"), to: file).response().validate()
                let echo = try JSONDecoder().decode(Echo.self, from: Data(contentsOf: file))
                #expect(echo.values("Accept-Encoding") == ["identity"])
            }
        }
    }

    @Test func aDownloadCutMidBodyResumesWithRange() async throws {
        let total = 2_000_000
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("resumed.bin")
            try await withTransport { transport in
                let session = Session(transport: transport, cookies: .none)
                let cut = session.download(try server().url("/range/\(total)?cut=700000"), to: file, resumable: true)
                let error = await #expect(throws: RequestError.self) { try await cut.response() }
                #expect(error?.code == .streamFailed)
                #expect(error?.transportErrorKind == .connectionLost)
                let kept = try Data(contentsOf: directory.appendingPathComponent("resumed.bin.part"))
                #expect(kept.count > 0 && kept.count <= 700_000)

                let resumed = try await session.download(try server().url("/range/\(total)"), to: file, resumable: true).response().validate()
                #expect(resumed.statusCode == 206)
                let data = try Data(contentsOf: file)
                #expect(data.count == total)
                #expect(data.enumerated().allSatisfy { $0.element == UInt8(truncatingIfNeeded: $0.offset) })
            }
        }
    }
}
#endif
