#if AsyncHTTPClient
import AsyncHTTPClient
import Requests
import NIOCore

// MARK: - PooledClient

/// One AsyncHTTPClient of the transport and the count of the connections it has opened.
struct PooledClient: Sendable {
    /// The client.
    let http: HTTPClient
    /// Its connections, counted as each is made.
    let connections: ConnectionCount

    /// Makes a client that counts its connections.
    ///
    /// - Parameters:
    ///   - group: The event loops it runs on.
    ///   - configuration: The transport's configuration.
    ///   - verifier: The pin check of its connections, for a pinned host.
    init(group: any EventLoopGroup, configuration: AsyncHTTPClientTransport.Configuration, verifying verifier: PinVerifier?) {
        let connections = ConnectionCount()
        self.connections = connections
        http = HTTPClient(eventLoopGroup: group, configuration: configuration.client(verifying: verifier, counting: connections))
    }
}

// MARK: - ConnectionCount

/// How many connections one client has opened: an exchange that failed before its head can tell
/// from it whether its request went out on a connection that was idle in the pool when it began
/// (which the server may have closed meanwhile: sending it again is safe) or on one made for it
/// (whose failure is the server's answer, for the session's retry policy to judge).
final class ConnectionCount: Sendable {
    private let count = Guarded(0)

    /// A connection was opened.
    func opened() {
        count.withLock { $0 += 1 }
    }

    /// The connections opened so far.
    var value: Int {
        count.withLock { $0 }
    }
}
#endif
