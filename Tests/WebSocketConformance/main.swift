// The Autobahn|Testsuite client loop over `Session.webSocket` (trait WebSocket), against its
// fuzzing server on loopback (`../shared/autobahn/run_server.sh`, or `.ci/run`):
//
//     swift run --traits WebSocket WebSocketConformance PORT [AGENT]
//
// It asks for the case count, runs each case by echoing every message back with its type until
// the server closes (a protocol error is the expected end of many cases), then asks the server to
// write its reports. Exit status 0 once the reports are written; the summary is summarize.py's.
import Foundation

#if WebSocket
import Requests
import RequestsAsyncHTTPClient

let arguments = CommandLine.arguments
guard arguments.count >= 2, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: WebSocketConformance PORT [AGENT]\n".utf8))
    exit(2)
}
let agent = arguments.count >= 3 ? arguments[2] : "swift-requests"
let base = "ws://127.0.0.1:\(port)"

let transport = AsyncHTTPClientTransport()
let session = Session(transport: transport)
var options = WebSocketOptions()
options.maximumFrameSize = 16 << 20
options.maximumMessageSize = 16 << 20
options.bufferedMessages = 64
options.closeTimeout = .seconds(2)
options.compression = .perMessageDeflate()

/// The first text message of a socket at `path`.
func firstText(_ path: String) async throws -> String {
    let socket = try await session.webSocket(base + path)
    for try await message in socket.messages {
        if case .text(let text) = message {
            try await socket.close()
            return text
        }
    }
    return ""
}

let started = ContinuousClock.now
let countText = try await firstText("/getCaseCount")
guard let count = Int(countText) else {
    FileHandle.standardError.write(Data("the server's case count was \"\(countText)\"\n".utf8))
    exit(1)
}
for number in 1...count {
    do {
        let socket = try await session.webSocket(base + "/runCase?case=\(number)&agent=\(agent)", configuration: options)
        for try await message in socket.messages {
            try await socket.send(message)
        }
    } catch {
        // A case that ends in a protocol error ends here; the server judges it.
    }
}
let socket = try await session.webSocket(base + "/updateReports?agent=\(agent)")
do {
    for try await _ in socket.messages {}
} catch {}
try await transport.shutdown()
print("WebSocketConformance: \(count) cases in \(ContinuousClock.now - started)")
#else
FileHandle.standardError.write(Data("WebSocketConformance needs the package trait WebSocket: swift run --traits WebSocket WebSocketConformance PORT\n".utf8))
exit(2)
#endif
