import Foundation
import LoopbackFixture
import Testing

import Requests

/// The SHA-256 behind certificate pins and digest authentication, against FIPS 180-4's vectors and `openssl dgst` around
/// the padding's block edges.
@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        // The 448-bit message: its padding needs a second block.
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func hashesTheStandardVectors(message: String, digest: String) {
        #expect(hex(SHA256.hash(Array(message.utf8))) == digest)
    }

    @Test func hashesAMillionAs() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(hex(SHA256.hash(message)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Lengths on each side of where the padding's length field stops fitting the last block
    /// (56 bytes) and of whole blocks (64, 128), where an off-by-one in the padding would show.
    @Test(arguments: [1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000])
    func agreesWithOpenSSLAroundBlockEdges(length: Int) async throws {
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let output = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            arguments: ["openssl", "dgst", "-sha256", "-binary"],
            input: .pipe(Data(message))
        )
        #expect(output.status == 0)
        #expect(SHA256.hash(message) == [UInt8](output.stdout))
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
