// swift-tools-version:6.0
import Foundation
import PackageDescription

// Layers, bottom to top (see docs/ARCHITECTURE.md):
//   CRealtimeOpenSSL, CRealtimeZlib    system libraries (Linux links them; Apple uses its own stacks)
//   RealtimeSync                       the package's one lock type (pthread_mutex_t) and wait list
//   RealtimeTime                       the monotonic instant, time amount and timer source every layer uses
//   RealtimeTransport                  the transport seam: protocols and value types
//   RealtimeEncoding                   sans-I/O base64, UTF-8 validation and input byte buffer, one of each for every codec
//   HTTP1Codec, WebSocketCodec         sans-I/O wire codecs
//   EngineIOProtocol, SocketIOProtocol sans-I/O protocol codecs and state machines
//   SSEProtocol                        sans-I/O Server-Sent Events parser
//   ProxyCodec                         sans-I/O HTTP CONNECT and SOCKS5 handshakes
//   RealtimeIO                         event loop, sockets, DNS, TLS
//   RealtimeHTTP                       HTTP/1.1 client, WebSocket client, URLSession backend
//   EngineIOClient                     the Engine.IO client: polling and WebSocket drivers of the machine
//   SocketIO, SocketIOConcurrency, EventSource   the public products

let linuxOnly = TargetDependencyCondition.when(platforms: [.linux, .android])
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6), .enableUpcomingFeature("InternalImportsByDefault")]
// The transport layers' nonisolated async functions run on their caller's executor (SE-0461)
// instead of hopping to the generic one at each call and return: each hop was a
// `swift_task_switch` and, for the engine's tasks (which prefer the event loop), a lock of the
// task's status record. The public products keep the default, so an app's `@MainActor` call
// still leaves the main actor at their API. docs/ARCHITECTURE.md, "Rules the layers keep".
let transport = strict + [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path

func testTarget(_ name: String, _ deps: [Target.Dependency]) -> Target {
    .testTarget(name: name, dependencies: deps + ["TestSupport", "RealtimeSync", "RealtimeTime"], swiftSettings: strict)
}

var targets: [Target] = [
    // MARK: System libraries
    .systemLibrary(name: "CRealtimeOpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(name: "CRealtimeZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

    // MARK: Time (a monotonic instant, a time amount and the one timer mechanism for every
    // layer: `TimerSource`, its wait, the Dispatch and manual sources; its lock is RealtimeSync's)
    .target(name: "RealtimeTime", dependencies: ["RealtimeSync"], swiftSettings: strict),

    // MARK: The transport seam (protocols and value types)
    .target(name: "RealtimeTransport", dependencies: ["RealtimeTime"], swiftSettings: transport),

    // MARK: Sans-I/O codecs and state machines

    // The one base64, UTF-8 validator and input byte buffer of every codec below (depends on nothing).
    .target(name: "RealtimeEncoding", swiftSettings: strict),
    .target(
        name: "HTTP1Codec", dependencies: ["RealtimeTransport", "RealtimeEncoding", .target(name: "CRealtimeZlib")],
        swiftSettings: strict),
    .target(name: "WebSocketCodec", dependencies: ["RealtimeEncoding", .target(name: "CRealtimeZlib")], swiftSettings: strict),
    .target(name: "EngineIOProtocol", dependencies: ["RealtimeTime", "RealtimeEncoding"], swiftSettings: strict),
    .target(name: "SocketIOProtocol", dependencies: ["EngineIOProtocol", "RealtimeEncoding", "RealtimeTime"], swiftSettings: strict),
    .target(name: "SSEProtocol", swiftSettings: strict),
    .target(name: "ProxyCodec", dependencies: ["RealtimeTransport", "RealtimeEncoding", "HTTP1Codec"], swiftSettings: strict),

    // MARK: Synchronization (one lock type, visible to ThreadSanitizer)
    .target(name: "RealtimeSync", swiftSettings: strict),

    // MARK: I/O
    .target(
        name: "RealtimeIO",
        dependencies: [
            "RealtimeTime", "RealtimeTransport", "RealtimeSync", "ProxyCodec",
            .target(name: "CRealtimeOpenSSL", condition: linuxOnly),
        ],
        swiftSettings: transport),
    .target(
        name: "RealtimeHTTP",
        dependencies: [
            "RealtimeTime", "RealtimeTransport", "RealtimeSync", "RealtimeIO", "HTTP1Codec", "WebSocketCodec",
            "ProxyCodec",
        ],
        swiftSettings: transport),

    // The Engine.IO client: the polling and WebSocket drivers of EngineIOProtocol's machine.
    .target(
        name: "EngineIOClient",
        dependencies: ["RealtimeTime", "RealtimeSync", "EngineIOProtocol", "RealtimeTransport", "RealtimeIO", "RealtimeHTTP"],
        swiftSettings: transport),

    // MARK: Public products
    .target(
        name: "SocketIO",
        dependencies: [
            "RealtimeTime", "RealtimeSync", "EngineIOProtocol", "EngineIOClient", "SocketIOProtocol", "HTTP1Codec", "RealtimeIO",
            "RealtimeHTTP", "ProxyCodec",
        ],
        swiftSettings: strict),
    .target(name: "SocketIOConcurrency", dependencies: ["SocketIO", "EngineIOProtocol", "RealtimeSync"], swiftSettings: strict),
    .target(
        name: "EventSource",
        dependencies: ["RealtimeTime", "SSEProtocol", "RealtimeSync", "HTTP1Codec", "RealtimeIO", "RealtimeHTTP", "ProxyCodec"],
        swiftSettings: strict),

    // MARK: Executables (under Tools/, apart from the libraries' layers)
    .executableTarget(
        name: "RealtimeDemo", dependencies: ["SocketIOConcurrency", "EventSource", "RealtimeSync", "RealtimeTime"],
        path: "Tools/RealtimeDemo", swiftSettings: strict),
    // Command-line clients on the public APIs only (issue 21): `sio` (Socket.IO) and `sse`
    // (Server-Sent Events); CommandLineSupport is their sans-I/O argument parser, reading JSON
    // with EngineIOProtocol's parser.
    .target(name: "CommandLineSupport", dependencies: ["EngineIOProtocol"], path: "Tools/CommandLineSupport", swiftSettings: strict),
    .executableTarget(
        name: "sio", dependencies: ["SocketIOConcurrency", "CommandLineSupport", "EngineIOProtocol"],
        path: "Tools/sio", swiftSettings: strict),
    .executableTarget(
        name: "sse", dependencies: ["EventSource", "CommandLineSupport"],
        path: "Tools/sse", swiftSettings: strict),

    // The seed's usage as the top-level code of a `main.swift` (Tests/ToolsTests runs it).
    .executableTarget(
        name: "SeedTopLevelExample", dependencies: ["SocketIOConcurrency"],
        path: "Tests/Fixtures/SeedTopLevelExample", swiftSettings: [.swiftLanguageMode(.v6)]),

    // MARK: Test support (server processes, certificates, free ports)
    .target(
        name: "TestSupport", dependencies: ["RealtimeTime", "RealtimeSync", "CAllocationProbe"], path: "Tests/TestSupport",
        swiftSettings: strict),
    // Counts the test process's large allocations (copies per event); see its source.
    .target(name: "CAllocationProbe", path: "Tests/CAllocationProbe"),
]

targets += [
    testTarget("RealtimeSyncTests", []),
    testTarget("RealtimeTimeTests", []),
    testTarget("RealtimeEncodingTests", ["RealtimeEncoding"]),
    testTarget("HTTP1CodecTests", ["HTTP1Codec", "RealtimeTransport", "CRealtimeZlib"]),
    testTarget("WebSocketCodecTests", ["WebSocketCodec", "RealtimeEncoding"]),
    testTarget("EngineIOProtocolTests", ["EngineIOProtocol", "RealtimeEncoding"]),
    testTarget("SocketIOProtocolTests", ["SocketIOProtocol", "EngineIOProtocol"]),
    testTarget("SSEProtocolTests", ["SSEProtocol"]),
    testTarget("ProxyCodecTests", ["ProxyCodec", "HTTP1Codec"]),
    testTarget("RealtimeIOTests", ["RealtimeIO"]),
    testTarget("RealtimeHTTPTests", ["RealtimeHTTP", "RealtimeIO", "RealtimeTransport", "HTTP1Codec", "WebSocketCodec", "ProxyCodec"]),
    testTarget("EventSourceTests", ["EventSource", "RealtimeIO", "RealtimeHTTP", "HTTP1Codec", "SSEProtocol"]),
    testTarget("EngineIOClientTests", ["EngineIOClient", "EngineIOProtocol", "RealtimeHTTP", "RealtimeTransport"]),
    testTarget("SocketIOTests", ["SocketIO", "EngineIOClient", "RealtimeHTTP", "RealtimeIO", "HTTP1Codec"]),
    testTarget("SocketIOConcurrencyTests", ["SocketIOConcurrency", "SocketIO", "EngineIOClient", "RealtimeIO"]),
    testTarget("ToolsTests", ["CommandLineSupport", "EngineIOProtocol", "sio", "sse", "SeedTopLevelExample"]),
    // The code blocks of the DocC articles, compiled (scripts/docs.sh checks they are here).
    testTarget("DocExamplesTests", ["SocketIO", "SocketIOConcurrency", "EventSource"]),
]

/// Tools that are not products (Autobahn client, benchmarks, soak) live under `Tools/`, so that
/// `ls Sources` shows the libraries' layers only; each exists once its folder does.
func tool(_ name: String, _ deps: [Target.Dependency]) -> Target? {
    guard FileManager.default.fileExists(atPath: "\(packageRoot)/Tools/\(name)") else { return nil }
    return .executableTarget(name: name, dependencies: deps, path: "Tools/\(name)", swiftSettings: strict)
}

targets += [
    .target(name: "BenchmarkSupport", dependencies: ["RealtimeTime"], path: "Tools/BenchmarkSupport", swiftSettings: strict),
    tool("AutobahnClient", ["RealtimeHTTP", "RealtimeIO", "RealtimeTime"]),
    tool("WebSocketBenchmark", ["RealtimeHTTP", "RealtimeIO", "RealtimeTime", "BenchmarkSupport"]),
    tool("SSEBenchmark", ["EventSource", "SSEProtocol", "HTTP1Codec", "RealtimeHTTP", "RealtimeTime", "BenchmarkSupport"]),
    tool("SocketIOBenchmark", ["SocketIO", "SocketIOConcurrency", "SocketIOProtocol", "BenchmarkSupport"]),
    tool("EncodingBenchmark", ["RealtimeEncoding", "BenchmarkSupport"]),
    tool("TimerBenchmark", ["RealtimeIO", "RealtimeTime", "BenchmarkSupport"]),
    tool("CodecBenchmark", ["HTTP1Codec", "WebSocketCodec", "SSEProtocol", "BenchmarkSupport"]),
    tool("RealtimeSoak", ["SocketIO", "EventSource", "RealtimeHTTP", "RealtimeIO", "RealtimeSync", "RealtimeTime", "BenchmarkSupport"]),
].compactMap { $0 }

let package = Package(
    name: "swift-realtime",
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6)],
    products: [
        .library(name: "SocketIO", targets: ["SocketIO"]),
        .library(name: "SocketIOConcurrency", targets: ["SocketIOConcurrency"]),
        .library(name: "EventSource", targets: ["EventSource"]),
        .executable(name: "RealtimeDemo", targets: ["RealtimeDemo"]),
        .executable(name: "sio", targets: ["sio"]),
        .executable(name: "sse", targets: ["sse"]),
    ],
    targets: targets
)
