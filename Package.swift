// swift-tools-version:6.0
import PackageDescription
import Foundation

// Layers, bottom to top (see docs/ARCHITECTURE.md):
//   CRealtimeOpenSSL, CRealtimeZlib    system libraries (Linux links them; Apple uses its own stacks)
//   RealtimeTransport                  the transport seam: protocols and value types, no dependencies
//   HTTP1Codec, WebSocketCodec         sans-I/O wire codecs
//   EngineIOProtocol, SocketIOProtocol sans-I/O protocol codecs and state machines
//   SSEProtocol                        sans-I/O Server-Sent Events parser
//   ProxyCodec                         sans-I/O HTTP CONNECT and SOCKS5 handshakes
//   RealtimeSync                       the package's one lock type (pthread_mutex_t)
//   RealtimeIO                         event loop, sockets, DNS, TLS
//   RealtimeHTTP                       HTTP/1.1 client, WebSocket client, URLSession backend
//   SocketIO, SocketIOConcurrency, EventSource   the public products

let linuxOnly = TargetDependencyCondition.when(platforms: [.linux, .android])
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6), .enableUpcomingFeature("InternalImportsByDefault")]

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path

func testTarget(_ name: String, _ deps: [Target.Dependency]) -> Target {
    .testTarget(name: name, dependencies: deps + ["TestSupport", "RealtimeSync"], swiftSettings: strict)
}

var targets: [Target] = [
    // MARK: System libraries
    .systemLibrary(name: "CRealtimeOpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(name: "CRealtimeZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

    // MARK: Sans-I/O codecs and state machines
    // MARK: The transport seam (protocols and value types; depends on nothing)
    .target(name: "RealtimeTransport", swiftSettings: strict),

    .target(name: "HTTP1Codec", dependencies: ["RealtimeTransport", .target(name: "CRealtimeZlib")], swiftSettings: strict),
    .target(name: "WebSocketCodec", dependencies: [.target(name: "CRealtimeZlib")], swiftSettings: strict),
    .target(name: "EngineIOProtocol", swiftSettings: strict),
    .target(name: "SocketIOProtocol", dependencies: ["EngineIOProtocol"], swiftSettings: strict),
    .target(name: "SSEProtocol", swiftSettings: strict),
    .target(name: "ProxyCodec", dependencies: ["RealtimeTransport", "HTTP1Codec"], swiftSettings: strict),

    // MARK: Synchronization (one lock type, visible to ThreadSanitizer)
    .target(name: "RealtimeSync", swiftSettings: strict),

    // MARK: I/O
    .target(name: "RealtimeIO",
            dependencies: ["RealtimeTransport", "RealtimeSync", "ProxyCodec",
                           .target(name: "CRealtimeOpenSSL", condition: linuxOnly)],
            swiftSettings: strict),
    .target(name: "RealtimeHTTP",
            dependencies: ["RealtimeTransport", "RealtimeSync", "RealtimeIO", "HTTP1Codec", "WebSocketCodec", "ProxyCodec"],
            swiftSettings: strict),

    // MARK: Public products
    .target(name: "SocketIO",
            dependencies: ["EngineIOProtocol", "SocketIOProtocol", "RealtimeHTTP", "ProxyCodec"],
            swiftSettings: strict),
    .target(name: "SocketIOConcurrency", dependencies: ["SocketIO", "EngineIOProtocol", "RealtimeSync"], swiftSettings: strict),
    .target(name: "EventSource", dependencies: ["SSEProtocol", "RealtimeSync", "RealtimeHTTP", "ProxyCodec"], swiftSettings: strict),

    // MARK: Executables
    .executableTarget(name: "RealtimeDemo", dependencies: ["SocketIOConcurrency", "EventSource", "RealtimeSync"],
                      swiftSettings: strict),

    // MARK: Test support (server processes, certificates, free ports)
    .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strict),
]

targets += [
    testTarget("RealtimeSyncTests", []),
    testTarget("HTTP1CodecTests", ["HTTP1Codec", "CRealtimeZlib"]),
    testTarget("WebSocketCodecTests", ["WebSocketCodec"]),
    testTarget("EngineIOProtocolTests", ["EngineIOProtocol"]),
    testTarget("SocketIOProtocolTests", ["SocketIOProtocol", "EngineIOProtocol"]),
    testTarget("SSEProtocolTests", ["SSEProtocol"]),
    testTarget("ProxyCodecTests", ["ProxyCodec", "HTTP1Codec"]),
    testTarget("RealtimeIOTests", ["RealtimeIO"]),
    testTarget("RealtimeHTTPTests", ["RealtimeHTTP", "RealtimeIO"]),
    testTarget("EventSourceTests", ["EventSource", "RealtimeIO"]),
    testTarget("SocketIOTests", ["SocketIO", "RealtimeHTTP", "RealtimeIO", "HTTP1Codec"]),
    testTarget("SocketIOConcurrencyTests", ["SocketIOConcurrency", "RealtimeIO"]),
]

/// Tools that are not products (Autobahn client, benchmarks) exist once their folder does.
func tool(_ name: String, _ deps: [Target.Dependency]) -> Target? {
    guard FileManager.default.fileExists(atPath: "\(packageRoot)/Sources/\(name)") else { return nil }
    return .executableTarget(name: name, dependencies: deps, swiftSettings: strict)
}

targets += [
    .target(name: "BenchmarkSupport", swiftSettings: strict),
    tool("AutobahnClient", ["RealtimeHTTP", "RealtimeIO"]),
    tool("WebSocketBenchmark", ["RealtimeHTTP", "RealtimeIO", "BenchmarkSupport"]),
    tool("SSEBenchmark", ["EventSource", "SSEProtocol", "RealtimeHTTP", "BenchmarkSupport"]),
    tool("SocketIOBenchmark", ["SocketIO", "SocketIOConcurrency", "SocketIOProtocol", "BenchmarkSupport"]),
    tool("RealtimeSoak", ["SocketIO", "EventSource", "RealtimeHTTP", "RealtimeSync", "BenchmarkSupport"]),
].compactMap { $0 }

let package = Package(
    name: "swift-realtime",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "SocketIO", targets: ["SocketIO"]),
        .library(name: "SocketIOConcurrency", targets: ["SocketIOConcurrency"]),
        .library(name: "EventSource", targets: ["EventSource"]),
        .executable(name: "RealtimeDemo", targets: ["RealtimeDemo"]),
    ],
    targets: targets
)
