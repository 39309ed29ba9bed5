#if WebSocket
import Foundation
import LoopbackFixture
import Requests
import RequestsAsyncHTTPClient

/// Python's `websockets` server (`Tests/Fixtures/websocket_server.py`), started once.
let peer = Result { try LoopbackServer(script: "websocket_server.py") }

/// A `ws://` URL of a route of the peer.
func socketURL(_ path: String) throws -> String {
    "ws://127.0.0.1:\(try peer.get().port)\(path)"
}

/// One transport for the suite's sessions.
let engine = AsyncHTTPClientTransport()

/// A session over the WebSocket engine.
func socketSession(_ interceptors: [any Interceptor] = []) -> Session {
    Session(transport: engine, interceptors: interceptors)
}
#endif
