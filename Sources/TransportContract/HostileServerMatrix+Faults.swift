import Foundation
import Requests

// MARK: - Fault

extension HostileServerMatrix {
    /// One fault of `hostile_server.py` and how a call that meets it may end.
    public struct Fault: Sendable, CustomStringConvertible {
        /// The server's path for the fault, such as `/reset-in-body`.
        public let path: String
        /// How ``Call/request`` may end.
        public let request: Ending
        /// How ``Call/stream`` may end, at the head or while the body is read.
        public let stream: Ending

        /// Describes a fault.
        ///
        /// - Parameters:
        ///   - path: The server's path for the fault.
        ///   - request: How a whole-body request may end.
        ///   - stream: How a stream may end; the same as `request` unless given.
        public init(_ path: String, request: Ending, stream: Ending? = nil) {
            self.path = path
            self.request = request
            self.stream = stream ?? request
        }

        /// The path, which names the fault in test output.
        public var description: String { path }

        /// How `call` may end.
        ///
        /// - Parameter call: The call.
        /// - Returns: ``request`` or ``stream``.
        public func ending(for call: Call) -> Ending {
            switch call {
            case .request: request
            case .stream: stream
            }
        }
    }

    // MARK: Ending

    /// The outcomes a call may end with: a legal response's body, or a ``RequestError`` with one
    /// of some codes and the transport-neutral kind of failure, whose description says what the
    /// session's own words say.
    public struct Ending: Sendable, CustomStringConvertible {
        /// The body of the legal response the call may return, or `nil` when it must fail.
        public let response: String?
        /// The codes the call may fail with; empty when it must return ``response``.
        public let codes: [RequestError.Code]
        /// The error's ``RequestError/transportErrorKind``, the same for every engine.
        public let kind: TransportError.Kind?
        /// Words every transport's error must contain: the session's, for its own timeouts.
        public let words: String?

        /// A legal, if unusual, response with this body.
        ///
        /// - Parameter body: The body the call returns.
        /// - Returns: The ending.
        public static func response(_ body: String) -> Ending {
            Ending(response: body, codes: [], kind: nil, words: nil)
        }

        /// A failure with `code` and `kind`.
        ///
        /// - Parameters:
        ///   - code: The error's code.
        ///   - kind: The error's transport-neutral kind.
        ///   - words: What the error's description must contain on every transport.
        /// - Returns: The ending.
        public static func failure(_ code: RequestError.Code, _ kind: TransportError.Kind, saying words: String? = nil) -> Ending {
            Ending(response: nil, codes: [code], kind: kind, words: words)
        }

        /// The session's timeout: ``RequestError/Code/timedOut`` in its words.
        ///
        /// - Parameter words: The session's words for the wait that ran out.
        /// - Returns: The ending.
        public static func timedOut(saying words: String) -> Ending {
            failure(.timedOut, .timedOut, saying: words)
        }

        /// Either a response with `body` or a failure with `code` and `kind`: for what HTTP
        /// allows but an engine may refuse, such as a header line of a megabyte.
        ///
        /// - Parameters:
        ///   - body: The body of the response, when the engine takes it.
        ///   - code: The error's code, when it refuses it.
        ///   - kind: The error's transport-neutral kind.
        /// - Returns: The ending.
        public static func responseOrFailure(_ body: String, _ code: RequestError.Code, _ kind: TransportError.Kind) -> Ending {
            Ending(response: body, codes: [code], kind: kind, words: nil)
        }

        /// The outcomes in words, for messages.
        public var description: String {
            var options = codes.map { code in kind.map { "\(code) (\($0))" } ?? "\(code)" }
            if let response { options.insert("the response \"\(response)\"", at: 0) }
            return options.joined(separator: " or ")
        }
    }

    // MARK: The faults

    /// The session's words for a call that had no complete response within ``timeout``.
    public static let lateWords = "no complete response within 3 seconds"
    /// The session's words for a final head that did not come within ``timeout`` (the idle limit).
    public static let headlessWords = "no response head within 3 seconds"
    /// The session's words for a body that sent nothing for ``timeout`` (the idle limit).
    public static let silentWords = "the body sent nothing for 3 seconds"

    /// Every fault of the matrix but the header flood, which ``checkHeaderFlood()`` runs alone.
    ///
    /// Failures before the head are ``RequestError/Code/transportFailed`` for both calls; after
    /// it, a stream's body fails with ``RequestError/Code/streamFailed`` (a whole-body request
    /// still says `transportFailed`). A connection that breaks is
    /// ``TransportError/Kind/connectionLost``, bytes that are not HTTP ``TransportError/Kind/other``
    /// (a retry policy retries the first and not the second); stalls end at the request's deadline
    /// or the stream's idle limit, in the session's words.
    public static let faults: [Fault] = [
        Fault("/reset-in-head", request: .failure(.transportFailed, .connectionLost)),
        Fault("/reset-in-body", request: .failure(.transportFailed, .connectionLost), stream: .failure(.streamFailed, .connectionLost)),
        Fault("/close-in-body", request: .failure(.transportFailed, .connectionLost), stream: .failure(.streamFailed, .connectionLost)),
        Fault("/truncated-chunked", request: .failure(.transportFailed, .connectionLost), stream: .failure(.streamFailed, .connectionLost)),
        Fault("/bad-chunk-size", request: .failure(.transportFailed, .other), stream: .failure(.streamFailed, .other)),
        Fault("/huge-chunk-size", request: .failure(.transportFailed, .other), stream: .failure(.streamFailed, .other)),
        Fault("/stall-after-head", request: .timedOut(saying: lateWords), stream: .timedOut(saying: silentWords)),
        Fault("/stall-in-body", request: .timedOut(saying: lateWords), stream: .timedOut(saying: silentWords)),
        // HTTP sets no limit on a header's length; an engine may take a megabyte or refuse it.
        Fault("/long-header", request: .responseOrFailure("ok", .transportFailed, .other)),
        Fault("/informational", request: .timedOut(saying: lateWords), stream: .timedOut(saying: headlessWords)),
        Fault("/informational-drip", request: .timedOut(saying: lateWords), stream: .timedOut(saying: headlessWords)),
        Fault("/not-http", request: .failure(.transportFailed, .other)),
        Fault("/bad-status", request: .failure(.transportFailed, .other)),
        Fault("/no-response", request: .failure(.transportFailed, .connectionLost)),
        // Legal, if unusual: the declared length wins and the excess goes with the connection.
        Fault("/short-length", request: .response("hello")),
        Fault("/keep-alive-close", request: .response("closing")),
        Fault("/informational-then-ok", request: .response("ok")),
    ]
}
