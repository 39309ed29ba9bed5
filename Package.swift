// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "swift-requests",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "ParameterEncoding", targets: ["ParameterEncoding"]),
        .library(name: "Requests", targets: ["Requests"]),
    ],
    targets: [
        .target(name: "ParameterEncoding"),
        .target(name: "Requests", dependencies: ["ParameterEncoding"]),
        .executableTarget(
            name: "Benchmarks",
            dependencies: ["ParameterEncoding", "Requests"],
            path: "Benchmarks"
        ),
        .testTarget(name: "ParameterEncodingTests", dependencies: ["ParameterEncoding"]),
        .testTarget(name: "RequestsTests", dependencies: ["Requests"]),
    ],
    swiftLanguageModes: [.v6]
)
