// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "swift-requests",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "ParameterEncoding", targets: ["ParameterEncoding"]),
        .library(name: "Requests", targets: ["Requests"]),
        // Stub and HAR record/replay transports, for the tests of code that uses Requests.
        .library(name: "RequestsTesting", targets: ["RequestsTesting"]),
        .executable(name: "req", targets: ["req"]),
        // The behaviour every Transport owes the pipeline, as checks against the loopback server:
        // for transports in other packages (Transports/AsyncHTTPClient) and for this one's tests.
        .library(name: "TransportContract", targets: ["TransportContract"]),
        .library(name: "LoopbackFixture", targets: ["LoopbackFixture"]),
    ],
    targets: [
        .target(name: "ParameterEncoding"),
        .target(name: "Requests", dependencies: ["ParameterEncoding"]),
        .target(name: "RequestsTesting", dependencies: ["Requests"]),
        .target(name: "TransportContract", dependencies: ["Requests", "LoopbackFixture"]),
        // `req`, an httpie-style command line on the public Requests API.
        .executableTarget(name: "req", dependencies: ["Requests"]),
        .executableTarget(
            name: "Benchmarks",
            dependencies: ["ParameterEncoding", "Requests", "LoopbackFixture"],
            path: "Benchmarks"
        ),
        // The loopback HTTP server (a python3 script) that tests and benchmarks start themselves.
        .target(name: "LoopbackFixture", path: "Tests/Fixtures", exclude: ["loopback_server.py", "hostile_server.py", "tls_server.py", "h2_server.py", "make_certificates.sh"]),
        // Where the tests run: a trait that puts computing suites behind the timing-sensitive ones
        // and threads off the cooperative pool (it imports Testing, so no product links it).
        .target(name: "TestScheduling", path: "Tests/Scheduling"),
        .testTarget(name: "ParameterEncodingTests", dependencies: ["ParameterEncoding", "LoopbackFixture", "TestScheduling"]),
        // Runs URLSessionTransport against TLS servers on loopback, in a mount namespace whose
        // system trust store holds the test CA (the only store FoundationNetworking reads).
        .executableTarget(name: "URLSessionProbe", dependencies: ["Requests"], path: "Tests/URLSessionProbe"),
        .testTarget(
            name: "RequestsTests",
            dependencies: ["Requests", "LoopbackFixture", "TransportContract", "TestScheduling", "RequestsTesting", "URLSessionProbe"]
        ),
        .testTarget(name: "RequestsTestingTests", dependencies: ["RequestsTesting", "Requests", "LoopbackFixture", "TestScheduling"]),
        .testTarget(name: "ReqTests", dependencies: ["req", "LoopbackFixture", "TestScheduling"]),
    ],
    swiftLanguageModes: [.v6]
)
