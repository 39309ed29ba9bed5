import Foundation
import Requests

// MARK: - WireFields

/// One call whose header fields test the order and repeats the library keeps, for a probe that
/// runs it in a process of its own (the order of a dictionary changes from process to process).
///
/// The session sets `X-Alpha: session` and `X-Session: s`; the call appends `X-Zeta: 1`,
/// `X-Alpha: 2`, `X-Mid: 3`, `X-Alpha: 4`, `Cookie: b=2`, `Cookie: a=1` in that order. What the
/// loopback server's `/anything` received comes back as `name: value` lines, in order, for the
/// names the call or session set.
public enum WireFields {
    /// The session's fields.
    public static let sessionFields: HTTPHeaders = ["X-Alpha": "session", "X-Session": "s"]

    /// The call's fields, appended in order.
    public static var callFields: HTTPHeaders {
        var fields = HTTPHeaders()
        for (name, value) in [("X-Zeta", "1"), ("X-Alpha", "2"), ("X-Mid", "3"), ("X-Alpha", "4"), ("Cookie", "b=2"), ("Cookie", "a=1")] {
            fields.append(name: name, value: value)
        }
        return fields
    }

    /// The fields a transport that keeps the caller's order sends, in order: the session's field
    /// the call does not replace, then the call's, `Cookie` joined into one.
    public static let inCallersOrder = ["X-Session: s", "X-Zeta: 1", "X-Alpha: 2", "X-Mid: 3", "X-Alpha: 4", "Cookie: b=2; a=1"]

    /// Sends the call to `base`'s `/anything` over `transport`.
    ///
    /// - Parameters:
    ///   - base: The loopback server's base URL.
    ///   - transport: The engine.
    /// - Returns: The received fields the call or session set, as `name: value` lines in the
    ///   order the server read them.
    /// - Throws: The call's error, or a decoding error for an echo of another shape.
    public static func send(to base: URL, over transport: any Transport) async throws -> [String] {
        let session = Session(transport: transport, headers: sessionFields, cookies: .none)
        let response = try await session.request(base.appendingPathComponent("anything"), headers: callFields).validate()
        struct Echo: Decodable { let headers: [[String]] }
        let names: Set<String> = ["x-alpha", "x-session", "x-zeta", "x-mid", "cookie"]
        return try response.decode(Echo.self).headers.compactMap { pair in
            guard pair.count == 2, names.contains(pair[0].lowercased()) else { return nil }
            return pair[0] + ": " + pair[1]
        }
    }
}
