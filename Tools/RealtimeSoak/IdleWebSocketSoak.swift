import BenchmarkSupport
import Foundation
import RealtimeHTTP

/// Many idle WebSocket connections, each with a task waiting in `receive()`.
struct IdleWebSocketSoak {
    let port: Int
    let connections: Int

    func run(seconds: Int, csv: String) async -> Int32 {
        let counters = SoakCounters()
        let client = WebSocketClient()
        let url = URL(string: "ws://127.0.0.1:\(self.port)/ws")!
        let baseline = ProcessStatus.read().residentKiB
        let rows = await withTaskGroup(of: Void.self) { group in
            // Open in waves of 100 concurrent handshakes.
            var opened = 0
            while opened < self.connections {
                let wave = await withTaskGroup(of: WebSocketClientConnection?.self) { handshakes in
                    for _ in 0..<min(100, self.connections - opened) {
                        handshakes.addTask { try? await client.openConnection(to: url, options: WebSocketOptions()) }
                    }
                    var connections: [WebSocketClientConnection?] = []
                    for await connection in handshakes { connections.append(connection) }
                    return connections
                }
                for connection in wave {
                    guard let connection else {
                        counters.update { $0.failures += 1 }
                        continue
                    }
                    counters.update { $0.live += 1 }
                    group.addTask {
                        let message = try? await connection.receive()
                        counters.update {
                            $0.live -= 1
                            if message != nil { $0.operations += 1 } else if !Task.isCancelled { $0.failures += 1 }
                        }
                        await connection.close(code: 1001, reason: "")
                    }
                }
                opened += wave.count
            }
            let rows = await SoakSampler.sample(seconds: seconds, counters: counters, csv: csv)
            group.cancelAll()
            return rows
        }
        let after = ProcessStatus.read()
        print(
            SoakSampler.summary(
                rows, warmUp: min(10, Double(seconds) / 4), baselineKiB: baseline,
                units: self.connections, what: "ws-idle"))
        print(
            "after close: RSS \(after.residentKiB) KiB, threads \(after.threads), fds \(after.openDescriptors), "
                + "peak RSS \(after.peakResidentKiB) KiB")
        return rows.last!.failures == 0 && rows.last!.live == self.connections ? 0 : 1
    }
}
