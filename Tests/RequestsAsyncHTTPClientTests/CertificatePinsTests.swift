#if AsyncHTTPClient
import Foundation
import RequestsAsyncHTTPClient
import Testing

/// `CertificatePins` on its own: which pins it takes, and which host or pattern applies to a host.
@Suite struct CertificatePinsTests {
    /// A well-formed pin: the base64 of 32 bytes.
    static let pinA = Data(repeating: 0xAB, count: 32).base64EncodedString()
    static let pinB = Data(repeating: 0xCD, count: 32).base64EncodedString()

    @Test(arguments: [
        "not base64!",
        // A SHA-1 digest's length, and 31 bytes: base64, but not of a SHA-256 digest.
        Data(repeating: 1, count: 20).base64EncodedString(),
        Data(repeating: 1, count: 31).base64EncodedString(),
        "",
    ])
    func refusesAPinThatIsNotTheBase64OfASHA256Digest(pin: String) throws {
        let error = try #require(throws: PinningError.self) {
            try CertificatePins(["api.example.com": [Self.pinA, pin]])
        }
        #expect(error.description.contains("api.example.com"))
        #expect(error.description.contains("\"\(pin)\""))
    }

    @Test func refusesAHostWithNoPins() throws {
        let error = try #require(throws: PinningError.self) {
            try CertificatePins(["api.example.com": [Self.pinA], "cdn.example.com": []])
        }
        #expect(error.description == "the host cdn.example.com has no pins: give at least one, or leave the host out")
    }

    @Test func namesAreLowercasedAndTheirPinsMerged() throws {
        let pins = try CertificatePins(["API.Example.com": [Self.pinA], "api.example.com": [Self.pinB]])
        #expect(pins.pinsByHost == ["api.example.com": [Self.pinA, Self.pinB]])
    }

    @Test func noPinsIsEmptyAndPinsNoHost() throws {
        #expect(CertificatePins().isEmpty)
        #expect(CertificatePins().pattern(for: "api.example.com") == nil)
        #expect(try CertificatePins([:]).isEmpty)
        #expect(try !CertificatePins(["a.example": [Self.pinA]]).isEmpty)
    }

    @Test(arguments: [
        // An exact name, in any case.
        ("api.example.com", "api.example.com"),
        ("API.EXAMPLE.COM", "api.example.com"),
        // A pattern covers every name below its domain, at any depth; the longest one wins.
        ("img.cdn.example.com", "*.cdn.example.com"),
        ("a.b.cdn.example.com", "*.cdn.example.com"),
        ("www.example.com", "*.example.com"),
        // An exact name wins over a pattern that also covers it.
        ("exact.cdn.example.com", "exact.cdn.example.com"),
    ])
    func findsThePatternThatPinsAHost(host: String, expected: String) throws {
        #expect(try pins().pattern(for: host) == expected)
    }

    @Test(arguments: [
        // A pattern does not cover its own domain; other domains are not pinned.
        "example.com", "cdn.example.org", "example.com.evil.test", "localhost", "127.0.0.1",
    ])
    func leavesOtherHostsUnpinned(host: String) throws {
        #expect(try pins().pattern(for: host) == nil)
    }

    private func pins() throws -> CertificatePins {
        try CertificatePins([
            "api.example.com": [Self.pinA],
            "*.example.com": [Self.pinA],
            "*.cdn.example.com": [Self.pinB],
            "exact.cdn.example.com": [Self.pinA],
        ])
    }
}
#endif
