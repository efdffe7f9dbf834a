// SocketIOBenchmark: throughput of the SocketIO client (release build).
//
//   make bootstrap   # the Python peers
//   swift run -c release SocketIOBenchmark [iterations]
//
// Starts Tests/Servers/sio_server.py (python-socketio 5.18 on aiohttp, loopback) and prints a
// table: packet encode/decode rates, then per transport the rate of sequential ack round trips
// and of fire-and-forget emits (all 10,000 checked to arrive in order).
import Dispatch
import Foundation
import SocketIO

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let iterations = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 2_000

/// Waits on a semaphore off the cooperative pool (this is a command-line tool's main thread).
func waitFor(_ semaphore: DispatchSemaphore, seconds: Double) -> Bool {
    semaphore.wait(timeout: .now() + seconds) == .success
}

func startServer() throws -> (Process, Int) {
    let process = Process()
    process.executableURL = root.appendingPathComponent(".venv/bin/python")
    process.arguments = ["-u", root.appendingPathComponent("Tests/Servers/sio_server.py").path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    var buffer = Data()
    while !buffer.contains(0x0A) {
        let chunk = pipe.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        buffer.append(chunk)
    }
    let line = String(decoding: buffer, as: UTF8.self).split(separator: "\n").first ?? ""
    guard line.hasPrefix("PORT="), let port = Int(line.dropFirst(5)) else {
        process.terminate()
        throw NSError(domain: "SocketIOBenchmark", code: 1, userInfo: [NSLocalizedDescriptionKey: "no PORT= line"])
    }
    return (process, port)
}

/// A value shared with handlers that run on the handle queue.
final class Shared<Value>: @unchecked Sendable {
    // `@unchecked Sendable`: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var _value: Value
    init(_ value: Value) { self._value = value }
    func update<R>(_ body: (inout Value) -> R) -> R { lock.lock(); defer { lock.unlock() }; return body(&_value) }
    var value: Value { update { $0 } }
}

func rate(_ count: Int, _ seconds: Double) -> String {
    String(format: "%12.0f /s", Double(count) / seconds)
}

func measure(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

print("SocketIOBenchmark (\(iterations) iterations)")
print(String(repeating: "-", count: 60))

// MARK: Codec, through the public manager entry points
do {
    let queue = DispatchQueue(label: "bench-codec")
    let manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:1")!, config: [.handleQueue(queue)])
    let socket = manager.defaultSocket
    let count = iterations * 50
    let message = #"2["event",{"id":42,"name":"benchmark","tags":["a","b","c"],"ok":true,"score":1.5}]"#
    let received = DispatchSemaphore(value: 0)
    let seen = Shared(0)
    socket.on("event") { _, _ in
        if seen.update({ $0 += 1; return $0 }) == count { received.signal() }
    }
    manager.engineDidOpen(reason: "bench")
    manager.parseEngineMessage(#"0{"sid":"bench"}"#)
    queue.sync {}
    let decode = measure {
        for _ in 0..<count { manager.parseEngineMessage(message) }
        _ = waitFor(received, seconds: 120)
    }
    print("decode + dispatch event packet  \(rate(count, decode))")
}

// MARK: Loopback
let (server, port) = try startServer()
defer { server.terminate() }

for (name, options) in [("websocket", [SocketIOClientOption.forceWebsockets(true)]),
                        ("polling", [.forcePolling(true)]),
                        ("upgrade", [])] as [(String, [SocketIOClientOption])] {
    let queue = DispatchQueue(label: "bench-\(name)")
    var config: SocketIOClientConfiguration = [.handleQueue(queue), .reconnects(false)]
    for option in options { config.insert(option) }
    let manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:\(port)")!, config: config)
    let socket = manager.defaultSocket
    let connected = DispatchSemaphore(value: 0)
    socket.on(clientEvent: .connect) { _, _ in connected.signal() }
    socket.connect()
    guard waitFor(connected, seconds: 10) else {
        print("\(name): could not connect")
        continue
    }
    if name == "upgrade" { Thread.sleep(forTimeInterval: 0.5) }

    // Sequential ack round trips.
    let acked = DispatchSemaphore(value: 0)
    let remaining = Shared(iterations)
    @Sendable func next() {
        socket.emitWithAck("ack_me", remaining.value, "payload").timingOut(after: 10) { _ in
            if remaining.update({ $0 -= 1; return $0 }) == 0 { acked.signal() } else { next() }
        }
    }
    let ackSeconds = measure {
        queue.async { next() }
        _ = waitFor(acked, seconds: 300)
    }
    print("\(name.padding(toLength: 10, withPad: " ", startingAt: 0)) ack round trips        \(rate(iterations, ackSeconds))")

    // Fire-and-forget emits, checked in order by the server.
    let emits = iterations * 5
    let ordered = DispatchSemaphore(value: 0)
    let inOrder = Shared(false)
    let emitSeconds = measure {
        queue.async {
            for n in 0..<emits { socket.emit("seq", n) }
            socket.emitWithAck("seq_result").timingOut(after: 120) { data in
                let result = (data.first as? [Any])?.compactMap { $0 as? Int } == Array(0..<emits)
                inOrder.update { $0 = result }
                ordered.signal()
            }
        }
        _ = waitFor(ordered, seconds: 300)
    }
    print("\(name.padding(toLength: 10, withPad: " ", startingAt: 0)) emits (in order: \(inOrder.value))  \(rate(emits, emitSeconds))")
    manager.disconnect()
}
