import Foundation

// MARK: - WebSocketOptions

/// The limits and timers of one WebSocket connection.
///
/// ```swift
/// var options = WebSocketOptions()
/// options.pingInterval = .seconds(20)
/// options.compression = .perMessageDeflate()
/// let socket = try await session.webSocket("wss://feed.example.com/prices", configuration: options)
/// ```
public struct WebSocketOptions: Sendable, Hashable {
    /// The largest frame accepted (never more than ``maximumMessageSize``); a larger one closes
    /// the connection with 1009. Outgoing messages are split into frames of at most this size.
    /// 16 MiB by default: many servers send each message as one frame.
    public var maximumFrameSize: Int = 16 << 20
    /// The largest message accepted, all its frames together; a larger one closes the connection
    /// with 1009. 16 MiB by default.
    public var maximumMessageSize: Int = 16 << 20
    /// How many received messages wait for the reader before the connection stops reading from
    /// the socket (the peer then feels the back-pressure). 16 by default.
    public var bufferedMessages: Int = 16
    /// When set, a keep-alive ping goes out this long after the last one was answered; a pong
    /// that has not come within ``pongTimeout`` fails the connection (1006, and an error that
    /// says no pong came). Off by default.
    public var pingInterval: Duration?
    /// How long a keep-alive ping waits for its pong; `nil` (the default) waits one
    /// ``pingInterval``.
    public var pongTimeout: Duration?
    /// How long a close waits for the peer's answering close before the connection is dropped.
    /// 10 seconds by default.
    public var closeTimeout: Duration = .seconds(10)
    /// The compression to offer; none by default.
    public var compression: WebSocketCompression?

    /// Options with the defaults.
    public init() {}

    /// The frame limit in force: ``maximumFrameSize``, at most ``maximumMessageSize``.
    public var frameLimit: Int { max(1, min(maximumFrameSize, maximumMessageSize)) }
}

// MARK: - WebSocketCompression

/// The compression extension a client offers: `permessage-deflate` (RFC 7692) with its parameters.
public struct WebSocketCompression: Sendable, Hashable {
    /// The largest LZ77 window (8–15 bits) either side may use; 15 when `nil`.
    public var maximumWindowBits: Int?
    /// Whether each message is compressed on its own, without the context of earlier ones (less
    /// memory, lower ratio).
    public var noContextTakeover: Bool
    /// Messages smaller than this go out uncompressed. 256 bytes by default.
    public var minimumSizeToCompress: Int

    /// `permessage-deflate`, with the given parameters.
    ///
    /// - Parameters:
    ///   - maximumWindowBits: The largest window, 8–15; 15 when `nil`.
    ///   - noContextTakeover: Whether messages are compressed each on its own; `false` by default.
    ///   - minimumSizeToCompress: The size below which messages go out uncompressed.
    /// - Returns: The extension's settings.
    public static func perMessageDeflate(
        maximumWindowBits: Int? = nil, noContextTakeover: Bool = false, minimumSizeToCompress: Int = 256
    ) -> WebSocketCompression {
        WebSocketCompression(maximumWindowBits: maximumWindowBits, noContextTakeover: noContextTakeover, minimumSizeToCompress: minimumSizeToCompress)
    }
}
