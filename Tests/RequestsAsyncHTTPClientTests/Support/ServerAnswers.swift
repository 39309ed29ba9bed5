#if AsyncHTTPClient
import Foundation

// The answers of the TLS servers' endpoints (`Fixtures/tls_server.py`, `Fixtures/h2_server.py`),
// and the bodies the tests send them.

// MARK: - TLSEcho

/// The answer of the TLS servers' `/echo` (the loopback server's is `Echo`).
struct TLSEcho<Body: Decodable>: Decodable {
    let method: String
    let path: String
    let query: String
    /// `2` or `1.1`; only `h2_server.py` says.
    let httpVersion: String?
    let contentType: String?
    let body: Body?
}

// MARK: - OpenConnections

/// The answer of the servers' `/connections`.
struct OpenConnections: Decodable {
    /// The open connections, the asking one's included: their client ports (`tls_server.py`) or
    /// their numbers (`h2_server.py`).
    let open: [Int]
}

// MARK: - ClientSubject

/// The answer of `tls_server.py`'s `/echo-client`.
struct ClientSubject: Decodable {
    /// The client certificate's subject CN, or `nil` when none was presented.
    let subject: String?
}

// MARK: - Bodies

/// A JSON object sent and echoed.
struct Person: Codable, Equatable, Sendable {
    let name: String
    let tags: [String]
}

/// A body that is never there.
struct Empty: Decodable {}

/// A JSON body `{"index": n}`.
struct IndexBody: Decodable {
    let index: Int
}
#endif
