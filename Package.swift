// swift-tools-version: 6.1
import PackageDescription

// Engines and integrations that need another package sit behind traits, all off by default: a
// plain `swift build`, `swift test` or `swift run Benchmarks` resolves and builds no dependency.
// `--traits AsyncHTTPClient` (or a consumer's `traits: ["AsyncHTTPClient"]`) adds the
// AsyncHTTPClient transport; its sources compile to nothing without the trait. `--traits OpenAPI`
// adds `SessionClientTransport`, swift-openapi's `ClientTransport` over a `Session`.
let asyncHTTPClient: TargetDependencyCondition? = .when(traits: ["AsyncHTTPClient"])
let openAPI: TargetDependencyCondition? = .when(traits: ["OpenAPI"])
let tracing: TargetDependencyCondition? = .when(traits: ["Tracing"])
let mcp: TargetDependencyCondition? = .when(traits: ["MCP"])
let webSocket: TargetDependencyCondition? = .when(traits: ["WebSocket"])

/// A product of a package used only with the `AsyncHTTPClient` trait.
func withAsyncHTTPClient(_ product: String, _ package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: asyncHTTPClient)
}

/// swift-distributed-tracing and swift-metrics, used only with the `Tracing` trait: a `Session`
/// then opens spans, injects the trace context and records metrics.
let withTracing: [Target.Dependency] = [
    .product(name: "Tracing", package: "swift-distributed-tracing", condition: tracing),
    .product(name: "CoreMetrics", package: "swift-metrics", condition: tracing),
]

/// The swift-openapi runtime and the HTTP types it speaks, used only with the `OpenAPI` trait.
let withOpenAPI: [Target.Dependency] = [
    .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: openAPI),
    .product(name: "HTTPTypes", package: "swift-http-types", condition: openAPI),
]

let package = Package(
    name: "swift-requests",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "ParameterEncoding", targets: ["ParameterEncoding"]),
        .library(name: "Requests", targets: ["Requests"]),
        // Stub and HAR record/replay transports, for the tests of code that uses Requests.
        .library(name: "RequestsTesting", targets: ["RequestsTesting"]),
        .executable(name: "req", targets: ["req"]),
        // The behaviour every Transport owes the pipeline, as checks against a server at an address
        // the caller gives: for every transport's tests, this package's and other packages'. (The
        // loopback server the tests start, LoopbackFixture, is not a product.)
        .library(name: "TransportContract", targets: ["TransportContract"]),
        // `AsyncHTTPClientTransport`: the pipeline over AsyncHTTPClient (trait AsyncHTTPClient).
        .library(name: "RequestsAsyncHTTPClient", targets: ["RequestsAsyncHTTPClient"]),
        // `SessionClientTransport`: generated OpenAPI clients over a Session (trait OpenAPI).
        .library(name: "RequestsOpenAPI", targets: ["RequestsOpenAPI"]),
        // `SessionMCPTransport`: the MCP Swift SDK's clients over a Session (trait MCP).
        .library(name: "RequestsMCP", targets: ["RequestsMCP"]),
    ],
    traits: [
        .trait(
            name: "AsyncHTTPClient",
            description: "AsyncHTTPClientTransport (product RequestsAsyncHTTPClient) over AsyncHTTPClient and SwiftNIO; req uses it for its TLS options"
        ),
        .trait(
            name: "OpenAPI",
            description: "SessionClientTransport (product RequestsOpenAPI): swift-openapi-generator's clients over a Session"
        ),
        .trait(
            name: "Tracing",
            description: "Spans (swift-distributed-tracing) for every call and trip, W3C trace context in the request's fields, and HTTP client metrics (swift-metrics)"
        ),
        .trait(
            name: "WebSocket",
            description: "Session.webSocket over AsyncHTTPClientTransport: the handshake through the pipeline, framing by swift-websocket (implies AsyncHTTPClient)",
            enabledTraits: ["AsyncHTTPClient"]
        ),
        .trait(
            name: "MCP",
            description: "SessionMCPTransport (product RequestsMCP): the Model Context Protocol's streamable HTTP transport for the MCP Swift SDK, over a Session"
        ),
        .default(enabledTraits: []),
    ],
    dependencies: [
        // Resolved only when the AsyncHTTPClient trait is on. The SwiftNIO packages are
        // AsyncHTTPClient's own dependencies, named so that their types can be named.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.36.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.26.0"),
        // Resolved only when the OpenAPI trait is on.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // Resolved only when the Tracing trait is on (AsyncHTTPClient needs tracing 1.3 or later too).
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        // The tracing tests' W3C `traceparent`, written and parsed as swift-otel does (Tracing trait).
        .package(url: "https://github.com/swift-otel/swift-w3c-trace-context", from: "1.0.0"),
        // Resolved only when the MCP trait is on. (The SDK's manifest names SwiftNIO for its own
        // conformance server; the MCP library, all this package uses, builds none of it.)
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        // Resolved only when the WebSocket trait is on: frames, close, ping and permessage-deflate
        // over the connection AsyncHTTPClientTransport's event loops open and upgrade.
        // Pinned to 1.6: the framing is its `@_spi(WSInternal)` handler, which has no stability promise.
        .package(url: "https://github.com/hummingbird-project/swift-websocket", .upToNextMinor(from: "1.6.2")),
    ],
    targets: [
        .target(name: "ParameterEncoding"),
        // With the Tracing trait, the files in Sources/Requests/Telemetry compile (each is wrapped
        // in `#if Tracing`), and the pipeline reports to them.
        .target(name: "Requests", dependencies: ["ParameterEncoding"] + withTracing),
        .target(name: "RequestsTesting", dependencies: ["Requests"]),
        .target(name: "TransportContract", dependencies: ["Requests", "RequestsTesting"]),
        // `req`, an httpie-style command line on the public Requests API.
        // With the AsyncHTTPClient trait it sends over AsyncHTTPClientTransport (--verify, --cert, --pin).
        .executableTarget(
            name: "req",
            dependencies: ["Requests", .target(name: "RequestsAsyncHTTPClient", condition: asyncHTTPClient)]
        ),
        // Every file is wrapped in `#if AsyncHTTPClient`: without the trait this target is empty and
        // nothing in the package imports NIO.
        .target(
            name: "RequestsAsyncHTTPClient",
            dependencies: [
                "Requests",
                withAsyncHTTPClient("AsyncHTTPClient", "async-http-client"),
                withAsyncHTTPClient("NIOCore", "swift-nio"),
                withAsyncHTTPClient("NIOPosix", "swift-nio"),
                withAsyncHTTPClient("NIOHTTP1", "swift-nio"),
                withAsyncHTTPClient("NIOFoundationCompat", "swift-nio"),
                withAsyncHTTPClient("NIOSSL", "swift-nio-ssl"),
                withAsyncHTTPClient("NIOHTTP2", "swift-nio-http2"),
                withAsyncHTTPClient("NIOHTTPCompression", "swift-nio-extras"),
                .product(name: "NIOWebSocket", package: "swift-nio", condition: webSocket),
                .product(name: "NIOTLS", package: "swift-nio", condition: webSocket),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras", condition: webSocket),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: webSocket),
                .product(name: "WSCore", package: "swift-websocket", condition: webSocket),
                .product(name: "WSCompression", package: "swift-websocket", condition: webSocket),
                .product(name: "Logging", package: "swift-log", condition: webSocket),
            ]
        ),
        // Every file is wrapped in `#if OpenAPI`: without the trait this target is empty.
        .target(name: "RequestsOpenAPI", dependencies: ["Requests"] + withOpenAPI),
        // Every file is wrapped in `#if MCP`: without the trait this target is empty.
        .target(
            name: "RequestsMCP",
            dependencies: [
                "Requests",
                .product(name: "MCP", package: "swift-sdk", condition: mcp),
                .product(name: "Logging", package: "swift-log", condition: mcp),
            ]
        ),
        .executableTarget(
            name: "AHCBenchmarks",
            dependencies: [
                "RequestsAsyncHTTPClient",
                "Requests",
                withAsyncHTTPClient("AsyncHTTPClient", "async-http-client"),
                withAsyncHTTPClient("NIOCore", "swift-nio"),
                withAsyncHTTPClient("NIOHTTPCompression", "swift-nio-extras"),
            ]
        ),
        .executableTarget(
            name: "Benchmarks",
            dependencies: ["ParameterEncoding", "Requests", "LoopbackFixture"],
            path: "Benchmarks"
        ),
        // The loopback HTTP server (a python3 script) that tests and benchmarks start themselves.
        .target(name: "LoopbackFixture", path: "Tests/Fixtures", exclude: ["loopback_server.py", "eventsource_routes.py", "sim_routes.py", "mcp_server.py", "websocket_server.py", "hostile_server.py", "tls_server.py", "h2_server.py", "sse_server.py", "make_certificates.sh"]),
        // Where the tests run: a trait that puts computing suites behind the timing-sensitive ones
        // and threads off the cooperative pool (it imports Testing, so no product links it).
        .target(name: "TestScheduling", path: "Tests/Scheduling"),
        .testTarget(name: "ParameterEncodingTests", dependencies: ["ParameterEncoding", "LoopbackFixture", "TestScheduling"]),
        // Runs URLSessionTransport against TLS servers on loopback, in a mount namespace whose
        // system trust store holds the test CA (the only store FoundationNetworking reads).
        // Also sends WireFields' call over either engine, one process a run (`fields`).
        // With the Tracing trait, `traced` sends one call with a tracer and a metrics backend
        // bootstrapped for the whole process, as an application does.
        .executableTarget(
            name: "URLSessionProbe",
            dependencies: [
                "Requests", "RequestsAsyncHTTPClient", "TransportContract",
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: tracing),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: tracing),
            ] + withTracing,
            path: "Tests/URLSessionProbe"
        ),
        // The stress suite (`swift run -c release Stress run`) and the deterministic
        // reproductions of hangs found so far (`Stress regressions`), for release builds.
        .executableTarget(
            name: "Stress",
            dependencies: [
                "Requests", "RequestsTesting", "LoopbackFixture",
                .target(name: "RequestsAsyncHTTPClient", condition: asyncHTTPClient),
                // `--traced`: the calls report to an in-memory tracer and test metrics.
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: tracing),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: tracing),
            ],
            path: "Tests/Stress"
        ),
        .testTarget(
            name: "RequestsTests",
            dependencies: ["Requests", "LoopbackFixture", "TransportContract", "TestScheduling", "RequestsTesting", "URLSessionProbe", "Stress"]
        ),
        // A transport written outside the module, on the public transfer core, against the contract.
        .testTarget(name: "ContractEngineTests", dependencies: ["Requests", "TransportContract", "LoopbackFixture"]),
        .testTarget(name: "RequestsTestingTests", dependencies: ["RequestsTesting", "Requests", "LoopbackFixture", "TestScheduling"]),
        .testTarget(name: "ReqTests", dependencies: ["req", "LoopbackFixture", "TestScheduling"]),
        // The Benchmarks table's formatter (no benchmark runs here).
        .testTarget(name: "BenchmarksTests", dependencies: ["Benchmarks"]),
        .testTarget(
            name: "RequestsAsyncHTTPClientTests",
            dependencies: [
                "RequestsAsyncHTTPClient",
                "Requests",
                "TransportContract",
                "URLSessionProbe",
                "LoopbackFixture",
                withAsyncHTTPClient("AsyncHTTPClient", "async-http-client"),
                withAsyncHTTPClient("NIOCore", "swift-nio"),
                withAsyncHTTPClient("NIOPosix", "swift-nio"),
                withAsyncHTTPClient("NIOSSL", "swift-nio-ssl"),
                withAsyncHTTPClient("NIOHTTP1", "swift-nio"),
            ]
        ),
        // Spans, trace context and metrics of calls over StubTransport, URLSessionTransport and, with
        // the AsyncHTTPClient trait, AsyncHTTPClientTransport (trait Tracing; empty without it).
        .testTarget(
            name: "RequestsTracingTests",
            dependencies: [
                "Requests", "RequestsTesting", "LoopbackFixture", "TestScheduling", "TransportContract", "URLSessionProbe",
                .target(name: "RequestsAsyncHTTPClient", condition: asyncHTTPClient),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: tracing),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: tracing),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context", condition: tracing),
            ] + withTracing
        ),
        // A generated client over SessionClientTransport: the loopback server's API as an OpenAPI
        // document and the client swift-openapi-generator made of it, committed in Generated/
        // (its README says how to make it again).
        .testTarget(
            name: "RequestsOpenAPITests",
            dependencies: [
                "RequestsOpenAPI", "Requests", "RequestsTesting", "LoopbackFixture", "TestScheduling", "TransportContract",
                .target(name: "RequestsAsyncHTTPClient", condition: asyncHTTPClient),
            ] + withOpenAPI,
            exclude: ["Generated/openapi.yaml", "Generated/openapi-generator-config.yaml", "Generated/README.md"]
        ),
        // Session.webSocket against Python's websockets server (Tests/Fixtures/websocket_server.py)
        // over AsyncHTTPClientTransport (trait WebSocket; empty without it).
        .testTarget(
            name: "RequestsWebSocketTests",
            dependencies: [
                "Requests", "RequestsTesting", "LoopbackFixture", "TestScheduling",
                .target(name: "RequestsAsyncHTTPClient", condition: asyncHTTPClient),
                withAsyncHTTPClient("NIOSSL", "swift-nio-ssl"),
            ]
        ),
        // The Autobahn|Testsuite client loop over Session.webSocket (trait WebSocket):
        // `swift run --traits WebSocket WebSocketConformance PORT` against its fuzzing server.
        .executableTarget(
            name: "WebSocketConformance",
            dependencies: ["Requests", .target(name: "RequestsAsyncHTTPClient", condition: asyncHTTPClient)],
            path: "Tests/WebSocketConformance"
        ),
        // The MCP Swift SDK's Client over SessionMCPTransport against the Python reference SDK's
        // server (Tests/Fixtures/mcp_server.py) and over StubTransport (trait MCP; empty without it).
        .testTarget(
            name: "RequestsMCPTests",
            dependencies: [
                "RequestsMCP", "Requests", "RequestsTesting", "LoopbackFixture",
                .target(name: "RequestsAsyncHTTPClient", condition: asyncHTTPClient),
                .product(name: "MCP", package: "swift-sdk", condition: mcp),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
