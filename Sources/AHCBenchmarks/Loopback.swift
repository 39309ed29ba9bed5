#if AsyncHTTPClient
import Foundation

#if canImport(Glibc)
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#else
private let streamSocket = SOCK_STREAM
#endif

// MARK: - Loopback

/// TCP ports on 127.0.0.1: one that is free, and whether a server accepts on one.
enum Loopback {
    /// A port no socket is bound to: the kernel picks one for a socket bound to port 0.
    ///
    /// - Throws: ``BenchmarkError`` when no socket could be bound.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, streamSocket, 0)
        guard descriptor >= 0 else { throw BenchmarkError("socket() failed: errno \(errno)") }
        defer { close(descriptor) }
        var address = loopbackAddress(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else { throw BenchmarkError("could not bind a socket to 127.0.0.1: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Tries to connect every 20 ms for up to 5 seconds.
    ///
    /// - Parameters:
    ///   - port: The port on 127.0.0.1.
    ///   - alive: Whether the server is still running; once it is not, there is no point waiting.
    /// - Returns: Whether a connection was accepted.
    static func waitUntilAccepting(port: Int, while alive: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, alive() {
            if accepts(port: port) { return true }
            usleep(20_000)
        }
        return false
    }

    private static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, streamSocket, 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let address = loopbackAddress(port: port)
        return withUnsafePointer(to: address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func loopbackAddress(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
#endif
