import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Retry-After

extension RetryPolicy {
    /// The wait a response asks for in `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an
    /// HTTP date; `nil` when absent or unreadable. A date in the past asks for no wait.
    ///
    /// - Parameters:
    ///   - response: The response.
    ///   - now: The current time, for a date.
    /// - Returns: The wait, or `nil`.
    static func retryAfter(_ response: Response, now: Date = Date()) -> Duration? {
        guard let value = response.headers.value(for: "Retry-After")?
            .trimmingCharacters(in: .whitespaces), !value.isEmpty
        else { return nil }
        if value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return Int(value).map { Duration.seconds($0) } ?? .seconds(Int.max / 1_000_000_000_000)
        }
        guard let date = HTTPDate.parse(value, now: now) else { return nil }
        return .seconds(max(0, date.timeIntervalSince(now)))
    }

    /// Words for a retried kind of transport failure.
    static func describe(_ kind: TransportError.Kind) -> String {
        switch kind {
        case .timedOut: "timed out"
        case .cannotConnect: "cannot connect to host"
        case .connectionLost: "connection lost"
        case .dnsFailed: "DNS lookup failed"
        case .tls: "TLS failed"
        case .cancelled: "cancelled"
        default: "transport failed"
        }
    }
}
