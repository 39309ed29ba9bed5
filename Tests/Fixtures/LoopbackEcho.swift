import Foundation

// MARK: - LoopbackEcho

/// What the loopback server's `/anything` sends back: the request as it arrived.
public struct LoopbackEcho: Decodable, Sendable {
    /// The method.
    public let method: String
    /// The path, percent-encoded as sent.
    public let path: String
    /// The query, as sent (without `?`).
    public let query: String
    /// Every header field as `[name, value]`, in the order received.
    public let headers: [[String]]
    /// The body, in Base64.
    public let body: String

    /// The first value of a header, ignoring the name's case.
    ///
    /// - Parameter name: The header's name.
    /// - Returns: Its first value, or `nil` when the request had none.
    public func header(_ name: String) -> String? {
        headers.first { $0.first?.lowercased() == name.lowercased() }?.last
    }

    /// Every value of a header, ignoring the name's case.
    ///
    /// - Parameter name: The header's name.
    /// - Returns: Its values, in the order received.
    public func values(_ name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap(\.last)
    }

    /// The body's bytes.
    public var bodyData: Data { Data(base64Encoded: body) ?? Data() }
}
