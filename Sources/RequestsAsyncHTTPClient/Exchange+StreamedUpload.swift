#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Requests

// MARK: - Streamed uploads

extension Exchange {
    /// Sends a request whose body streams from a file or a sequence through AsyncHTTPClient's
    /// `execute`, in a task that a cancel of the transfer cancels, and hands the head and the
    /// chunks to the reader as the delegate's callbacks do.
    ///
    /// The engine's async API finishes a response that ends before the body has all gone out,
    /// and resumes a paused body write when the request fails; its delegate API does neither.
    func startStreamedUpload() {
        stream.attach(Engine.runner(Task { await self.runStreamedUpload() }))
    }

    private func runStreamedUpload() async {
        let pulls = UploadPulls()
        // However the exchange ends, a body sequence still waiting for its next chunk is stopped.
        defer { pulls.stop() }
        let response: HTTPClientResponse
        do {
            response = try await executeStreamed(pulls)
        } catch {
            stream.finish(AsyncHTTPClientTransport.classify(error, stopped: isStopped || Task.isCancelled))
            return
        }
        progress.finish()
        deliver(HTTPResponseHead(version: response.version, status: response.status, headers: response.headers))
        do {
            for try await buffer in response.body where buffer.readableBytes > 0 {
                // The transfer's own pause: this task waits while `lookahead` chunks wait for the
                // reader, and goes on when it catches up or the transfer is over.
                if stream.receive(Data(buffer: buffer, byteTransferStrategy: .noCopy)) {
                    await withCheckedContinuation { (demand: CheckedContinuation<Void, Never>) in
                        stream.paused { demand.resume() }
                    }
                }
                if stream.isCancelled { return }
            }
            stream.finish(nil)
        } catch {
            stream.finish(AsyncHTTPClientTransport.classify(error, stopped: isStopped || Task.isCancelled))
        }
    }

    /// Sends the request, and again when it failed before its head on a connection that was
    /// idle in the pool (``mayResend(after:)``).
    private func executeStreamed(_ pulls: UploadPulls) async throws -> HTTPClientResponse {
        // The session owns every timeout: the engine's deadline is a week away.
        let deadline = NIODeadline.now() + .hours(24 * 7)
        while true {
            do {
                return try await client.http.execute(try request.streamedEngineRequest(acceptEncoding: acceptEncoding, sent: progress, pulls: pulls), deadline: deadline)
            } catch where mayResend(after: error) {
                resent.withLock { $0 += 1 }
                progress.restart()
            }
        }
    }
}
#endif
