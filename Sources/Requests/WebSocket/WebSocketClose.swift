import Foundation

// MARK: - WebSocketCloseCode

/// A WebSocket close status code (RFC 6455 §7.4).
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code's number.
    public let rawValue: UInt16

    /// Creates a code from its number.
    ///
    /// - Parameter rawValue: The number, such as `1000` or an application's `4000`–`4999`.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: an endpoint goes away (a task cancelled, a server going down).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: a protocol error.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a kind of data the endpoint cannot accept.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: a close frame without a code (never sent).
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// 1006: the connection ended without a close frame (never sent).
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    /// 1007: a text message that is not UTF-8.
    public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message that violates the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a frame or message larger than the endpoint accepts.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1010: the client expected an extension the server did not agree to.
    public static let mandatoryExtension = WebSocketCloseCode(rawValue: 1010)
    /// 1011: the server met a condition it did not expect.
    public static let internalServerError = WebSocketCloseCode(rawValue: 1011)

    /// Whether an endpoint may send the code in a close frame (RFC 6455 §7.4): 1000–1003,
    /// 1007–1014 and 3000–4999; 1005, 1006 and 1015 only report what happened, and the rest are
    /// reserved.
    public var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// The number and, for a code RFC 6455 names, its name: `1000 (normal closure)`.
    public var description: String {
        let names: [UInt16: String] = [
            1000: "normal closure", 1001: "going away", 1002: "protocol error", 1003: "unsupported data",
            1005: "no status", 1006: "abnormal closure", 1007: "invalid payload", 1008: "policy violation",
            1009: "message too big", 1010: "mandatory extension", 1011: "internal error",
        ]
        return names[rawValue].map { "\(rawValue) (\($0))" } ?? "\(rawValue)"
    }
}

// MARK: - WebSocketClosure

/// How a WebSocket connection ended: the close code and reason, and which side sent them first.
public struct WebSocketClosure: Sendable, Hashable, CustomStringConvertible {
    /// The code of the close: the peer's answer or the peer's own close; ``WebSocketCloseCode/abnormalClosure``
    /// when the connection ended without a close frame.
    public var code: WebSocketCloseCode
    /// The reason the close frame gave; empty when none.
    public var reason: String
    /// Whether the peer closed first (`false`: this side did, or the connection dropped).
    public var byPeer: Bool

    /// Creates a closure.
    ///
    /// - Parameters:
    ///   - code: The close code.
    ///   - reason: The close reason.
    ///   - byPeer: Whether the peer closed first.
    public init(code: WebSocketCloseCode, reason: String = "", byPeer: Bool) {
        self.code = code
        self.reason = reason
        self.byPeer = byPeer
    }

    /// `closed by the peer with 1000 (normal closure): "bye"`.
    public var description: String {
        let who = byPeer ? "closed by the peer" : "closed"
        return reason.isEmpty ? "\(who) with \(code)" : "\(who) with \(code): \"\(reason)\""
    }
}

// MARK: - WebSocketError

/// A WebSocket that failed: the connection dropped without a close, a rule of the protocol was
/// broken (by the peer, or past one of ``WebSocketOptions``' limits), or a timeout passed.
public struct WebSocketError: Error, Sendable, CustomStringConvertible {
    /// How the connection ended.
    public let closure: WebSocketClosure
    /// What went wrong, in words.
    public let detail: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - closure: How the connection ended.
    ///   - detail: What went wrong.
    public init(_ closure: WebSocketClosure, detail: String) {
        self.closure = closure
        self.detail = detail
    }

    /// `WebSocket closed with 1009 (message too big): a message passed 1048576 bytes`.
    public var description: String {
        "WebSocket \(closure): \(detail)"
    }
}
