// swift-tools-version: 6.0
import Foundation
import PackageDescription

// The root package, by path. SwiftPM names a path dependency after its folder, which is whatever
// the repository was cloned into, so the name is read off the path rather than written down.
let rootPath = "../.."
let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .appendingPathComponent(rootPath)
    .standardizedFileURL
    .lastPathComponent

let package = Package(
    name: "swift-requests-async-http-client",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "RequestsAsyncHTTPClient", targets: ["RequestsAsyncHTTPClient"]),
    ],
    dependencies: [
        .package(path: rootPath),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Already AsyncHTTPClient's own dependencies; named so that their types can be named.
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.36.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.26.0"),
    ],
    targets: [
        .target(
            name: "RequestsAsyncHTTPClient",
            dependencies: [
                .product(name: "Requests", package: root),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ]
        ),
        .executableTarget(
            name: "AHCBenchmarks",
            dependencies: [
                "RequestsAsyncHTTPClient",
                .product(name: "Requests", package: root),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ]
        ),
        .testTarget(
            name: "RequestsAsyncHTTPClientTests",
            dependencies: [
                "RequestsAsyncHTTPClient",
                .product(name: "Requests", package: root),
                .product(name: "TransportContract", package: root),
                .product(name: "LoopbackFixture", package: root),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
