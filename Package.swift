// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "byteclub",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "byteclub", targets: ["byteclub"]),
        .executable(name: "transfer-bench", targets: ["transfer-bench"]),
        .library(name: "Transfer", targets: ["Transfer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // libcurl through pkg-config, with small C shims for its variadic functions.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // URLSession-style networking on libcurl multi + Dispatch. No app knowledge.
        .target(
            name: "Transfer",
            dependencies: ["CCurl"]
        ),
        // A small, scriptable HTTP/1.1 server on loopback for tests and benchmarks.
        .target(
            name: "LoopbackHTTP",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "byteclub",
            dependencies: [
                "Transfer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "transfer-bench",
            dependencies: [
                "Transfer",
                "LoopbackHTTP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "LoopbackHTTPTests",
            dependencies: ["LoopbackHTTP"]
        ),
        .testTarget(
            name: "TransferTests",
            dependencies: ["Transfer", "LoopbackHTTP"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
