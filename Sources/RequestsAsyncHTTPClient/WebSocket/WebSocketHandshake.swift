#if WebSocket
import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import NIOWebSocket
import Requests
import WSCompression
@_spi(WSInternal) import WSCore

// MARK: - WebSocketHandshake

/// One WebSocket handshake over a connection of its own, on the transport's event loops with its
/// TLS settings and pins: `101` hands the upgraded connection to the call's ``WebSocketUpgrade``;
/// any other answer is returned as a response, for the pipeline to judge.
struct WebSocketHandshake {
    /// What the upgrade gave.
    enum Outcome: Sendable {
        case upgraded(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, HTTPResponseHead, [any WebSocketExtension], SocketWatch)
        case refused(NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>)
    }

    let request: TransportRequest
    let upgrade: WebSocketUpgrade
    let configuration: AsyncHTTPClientTransport.Configuration
    let group: any EventLoopGroup
    let pins: PinVerifier?

    /// The answer of a refused handshake is read up to this size.
    static let refusedBodyLimit = 1 << 20

    func run() async throws -> (ResponseHead, ResponseBody) {
        let url = request.url
        guard var host = url.host, !host.isEmpty else {
            throw TransportError(.other, detail: "the WebSocket URL \(url) has no host")
        }
        // An IPv6 literal is connected to bare and written in brackets in `Host`.
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let secure = url.scheme?.lowercased() == "https"
        let port = url.port ?? (secure ? 443 : 80)
        let (channel, tlsDone) = try await connect(host: host, port: port, secure: secure)
        // From here on the trip's cancel, the task's and every failure close the connection:
        // the TLS handshake and the pin check included.
        let closer = ChannelCloser(channel)
        request.handle.onCancel { closer.close() }
        do {
            return try await withTaskCancellationHandler {
                if let tlsDone {
                    try await tlsDone.futureResult.get()
                    if let pins { try await pins.verify(channel).get() }
                }
                return try await handshake(on: channel, host: host, port: port, secure: secure, closer: closer)
            } onCancel: {
                closer.close()
            }
        } catch {
            closer.close()
            throw Self.classify(error)
        }
    }

    /// Connects; for TLS, also gives the promise the TLS handshake completes.
    private func connect(host: String, port: Int, secure: Bool) async throws -> (any Channel, EventLoopPromise<Void>?) {
        let sslContext = try secure ? NIOSSLContext(configuration: configuration.tls) : nil
        let serverName = Self.isIPAddress(host) ? nil : host
        let loop = group.next()
        let tlsDone = secure ? loop.makePromise(of: Void.self) : nil
        let bootstrap = ClientBootstrap(group: loop)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .connectTimeout(Self.amount(configuration.connectTimeout ?? .seconds(10)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext, let tlsDone {
                        let handler = try NIOSSLClientHandler(context: sslContext, serverHostname: serverName)
                        try channel.pipeline.syncOperations.addHandler(handler)
                        try channel.pipeline.syncOperations.addHandler(HandshakeWatch(tlsDone))
                    }
                }
            }
        do {
            return (try await bootstrap.connect(host: host, port: port).get(), tlsDone)
        } catch {
            tlsDone?.fail(ChannelError.alreadyClosed)
            throw Self.classify(error)
        }
    }

    private func handshake(
        on channel: any Channel, host: String, port: Int, secure: Bool, closer: ChannelCloser
    ) async throws -> (ResponseHead, ResponseBody) {
        let options = upgrade.options
        let factories = options.compression.map { compression in
            [WebSocketExtensionFactory.perMessageDeflate(
                maxWindow: compression.maximumWindowBits, noContextTakeover: compression.noContextTakeover,
                maxDecompressedFrameSize: options.maximumMessageSize, minFrameSizeToCompress: compression.minimumSizeToCompress
            )]
        } ?? []
        let builders = factories.map { $0.build() }
        var headers = NIOHTTP1.HTTPHeaders()
        for field in request.request.headers { headers.add(name: field.name, value: field.value) }
        if !headers.contains(name: "Host") {
            let defaultPort = secure ? 443 : 80
            let name = host.contains(":") ? "[\(host)]" : host
            headers.add(name: "Host", value: port == defaultPort ? name : "\(name):\(port)")
        }
        for builder in builders {
            let offer = builder.clientRequestHeader()
            if !offer.isEmpty { headers.add(name: "Sec-WebSocket-Extensions", value: offer) }
        }
        let url = request.url
        var target = url.path.isEmpty ? "/" : URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        if target.isEmpty { target = "/" }
        if let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery { target += "?" + query }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)

        let upgrader = NIOTypedWebSocketClientUpgrader<Outcome>(maxFrameSize: options.frameLimit) { channel, head in
            channel.eventLoop.makeCompletedFuture {
                // NIO's decoder answers a frame past the limit (1009) or a malformed one (1002)
                // itself, and closes; the watch right behind it keeps which it was.
                // The extensions first: a server's answer they refuse fails before the channel is
                // wrapped.
                let extensions = try builders.buildClientExtensions(from: HTTPFields(head.headers, splitCookie: false))
                let watch = SocketWatch()
                let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
                try channel.pipeline.syncOperations.addHandler(SocketWatchHandler(watch), position: .after(decoder))
                let asyncChannel = try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel)
                return .upgraded(asyncChannel, head, extensions, watch)
            }
        }
        let upgradeConfiguration = NIOTypedHTTPClientUpgradeConfiguration<Outcome>(
            upgradeRequestHead: head, upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                channel.eventLoop.makeCompletedFuture {
                    .refused(try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel))
                }
            }
        )
        let pipeline = {
            var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: upgradeConfiguration)
            pipeline.leftOverBytesStrategy = .forwardBytes
            return pipeline
        }()
        request.handle.requestSent()
        let outcome = try await channel.eventLoop.flatSubmit {
            do {
                return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }.get()
        request.handle.responseStarted()
        switch outcome {
        case .upgraded(let asyncChannel, let head, let extensions, let watch):
            // The channel is the connection's now: the trip's cancel no longer closes it.
            closer.disarm()
            let connection = NIOWebSocketConnection(channel: asyncChannel.channel, options: options, watch: watch)
            await connection.start(asyncChannel, extensions: extensions)
            upgrade.deliver(connection)
            let responseHead = ResponseHead(
                statusCode: Int(head.status.code), headers: AsyncHTTPClientTransport.headers(head.headers), url: url, httpVersion: "HTTP/1.1"
            )
            return (responseHead, ResponseBody(Data()))
        case .refused(let asyncChannel):
            return try await refused(asyncChannel, url: url)
        }
    }

    /// Reads a refused handshake's answer whole (up to ``refusedBodyLimit``) and closes the
    /// connection: a `401`, `503` or `302` for the pipeline's stages.
    private func refused(_ asyncChannel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>, url: URL) async throws -> (ResponseHead, ResponseBody) {
        try await asyncChannel.executeThenClose { inbound, _ in
            var head: HTTPResponseHead?
            var body = Data()
            for try await part in inbound {
                switch part {
                case .head(let received): head = received
                case .body(let buffer):
                    guard body.count + buffer.readableBytes <= Self.refusedBodyLimit else {
                        throw TransportError(.other, detail: "the refused WebSocket handshake's answer passed \(Self.refusedBodyLimit) bytes")
                    }
                    body.append(contentsOf: buffer.readableBytesView)
                case .end: break
                }
                if case .end = part { break }
            }
            guard let head else {
                throw TransportError(.connectionLost, detail: "the connection closed before the WebSocket handshake was answered")
            }
            let responseHead = ResponseHead(
                statusCode: Int(head.status.code), headers: AsyncHTTPClientTransport.headers(head.headers), url: url,
                httpVersion: AsyncHTTPClientTransport.versionText(head.version)
            )
            return (responseHead, ResponseBody(body))
        }
    }

    /// NIO's and NIOSSL's errors as the package's transport errors.
    static func classify(_ error: any Error) -> any Error {
        if error is TransportError || error is CancellationError || error is PinningError { return error }
        if error is NIOSSLError || error is BoringSSLError { return TransportError(.tls, detail: "\(error)", underlyingError: error) }
        if let error = error as? NIOHTTPClientUpgradeError {
            return TransportError(.other, detail: "the server's 101 answer did not complete the WebSocket handshake (\(error))", underlyingError: error)
        }
        if let error = error as? ChannelError {
            switch error {
            case .connectTimeout: return TransportError(.timedOut, detail: "connecting timed out", underlyingError: error)
            case .ioOnClosedChannel, .eof, .alreadyClosed: return TransportError(.connectionLost, detail: "\(error)", underlyingError: error)
            default: break
            }
        }
        if let error = error as? IOError {
            return TransportError(error.errnoCode == ECONNREFUSED ? .cannotConnect : .connectionLost, detail: "\(error)", underlyingError: error)
        }
        if error is NIOConnectionError { return TransportError(.cannotConnect, detail: "\(error)", underlyingError: error) }
        return TransportError(.other, detail: "\(error)", underlyingError: error)
    }

    /// `duration` as NIO's amount: at least zero, at most what an `Int64` of nanoseconds holds.
    static func amount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return .zero }
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return .nanoseconds(.max) }
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    static func isIPAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }
}

/// Completes `done` when the TLS handshake did, or fails it when the connection went first.
final class HandshakeWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private let done: EventLoopPromise<Void>
    private var completed = false

    init(_ done: EventLoopPromise<Void>) { self.done = done }

    private func complete(_ result: Result<Void, any Error>) {
        guard !completed else { return }
        completed = true
        done.completeWith(result)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { complete(.success(())) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        complete(.failure(error))
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        complete(.failure(ChannelError.eof))
        context.fireChannelInactive()
    }
}

/// Closes a channel once, from any thread.
final class ChannelCloser: Sendable {
    private let channel: Guarded<(any Channel)?>
    init(_ channel: any Channel) { self.channel = Guarded(channel) }

    func close() {
        let taken = channel.withLock { held in
            defer { held = nil }
            return held
        }
        taken?.close(promise: nil)
    }

    /// Forgets the channel: a later ``close()`` does nothing.
    func disarm() {
        let taken = channel.withLock { held in
            defer { held = nil }
            return held
        }
        releaseUnlocked(taken)
    }
}
#endif
