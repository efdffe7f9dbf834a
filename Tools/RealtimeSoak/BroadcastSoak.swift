import BenchmarkSupport
import Dispatch
import Foundation
import RealtimeSync
import RealtimeTime
import SocketIO

/// Many Socket.IO clients over WebSocket in one process, heartbeats on, and one broadcast to
/// all of them a second (soak_broadcast_server.py): events lost, delivery latency (the
/// server's wall clock at the emit to the client's at the handler, same host), resident memory
/// per client, and the client's CPU while idle (heartbeats only) and per delivered event.
struct BroadcastSoak {
    let port: Int
    let clients: Int
    let broadcasts: Int
    let idleSeconds: Int

    /// What the handlers record, under one lock (10,000 events a second at most).
    struct Received {
        var perClient: [Int]
        var latenciesMicroseconds: [Int] = []
    }

    func run(csv: String) async -> Int32 {
        let counters = SoakCounters()
        let received = LockedValue(Received(perClient: Array(repeating: 0, count: self.clients)))
        received.withLock { $0.latenciesMicroseconds.reserveCapacity(self.clients * self.broadcasts) }
        let baseline = ProcessStatus.read().residentKiB
        // Handlers run on a few serial queues, as an app with several managers would set them.
        let queues = (0..<4).map { DispatchQueue(label: "soak.broadcast.\($0)") }
        var managers: [SocketManager] = []
        var sockets: [SocketIOClient] = []
        let connectStart = MonotonicInstant.now
        for index in 0..<self.clients {
            let manager = SocketManager(
                socketURL: URL(string: "http://127.0.0.1:\(self.port)")!,
                config: [.handleQueue(queues[index % queues.count]), .log(false), .forceWebsockets(true)])
            let socket = manager.defaultSocket
            socket.on(clientEvent: .connect) { _, _ in counters.update { $0.live += 1 } }
            socket.on(clientEvent: .disconnect) { _, _ in counters.update { $0.live -= 1 } }
            socket.on("tick") { data, _ in
                let now = Int(Date().timeIntervalSince1970 * 1e9)
                let sent = (data.count > 1 ? (data[1] as? Int) ?? (data[1] as? Double).map { Int($0) } : nil) ?? now
                received.withLock { state in
                    state.perClient[index] += 1
                    state.latenciesMicroseconds.append((now - sent) / 1000)
                }
                counters.update { $0.operations += 1 }
            }
            socket.on("ticks_done") { _, _ in counters.update { $0.done += 1 } }
            socket.connect()
            managers.append(manager)
            sockets.append(socket)
            // Connect in waves so the server's accept queue keeps up.
            if index % 100 == 99 { try? await Task.sleep(.milliseconds(50)) }
        }
        let connectDeadline = MonotonicInstant.now + .seconds(180)
        while counters.snapshot.live < self.clients && MonotonicInstant.now < connectDeadline {
            try? await Task.sleep(.milliseconds(100))
        }
        let connected = counters.snapshot.live
        let connectSeconds = Measure.seconds(MonotonicInstant.now - connectStart)
        print(String(format: "broadcast: %d of %d clients connected in %.1f s", connected, self.clients, connectSeconds))

        // Idle: heartbeats only.
        let idleCPUStart = Measure.processCPUSeconds()
        try? await Task.sleep(.seconds(Int64(self.idleSeconds)))
        let idleCPU = Measure.processCPUSeconds() - idleCPUStart
        let afterConnect = ProcessStatus.read()

        // The broadcasts, sampled once a second.
        let broadcastCPUStart = Measure.processCPUSeconds()
        let broadcastStart = MonotonicInstant.now
        sockets[0].emitWithAck("broadcast", self.broadcasts, 1000).timingOut(after: 10) { _ in }
        _ = await SoakSampler.sample(seconds: self.broadcasts, counters: counters, csv: csv)
        // A server that falls behind keeps sending after the last scheduled second: wait for
        // every client's "ticks_done" (at most 2 minutes more) before counting what is lost.
        let doneDeadline = MonotonicInstant.now + .seconds(120)
        while counters.snapshot.done < connected && MonotonicInstant.now < doneDeadline {
            try? await Task.sleep(.milliseconds(100))
        }
        let broadcastCPU = Measure.processCPUSeconds() - broadcastCPUStart
        let broadcastSeconds = Measure.seconds(MonotonicInstant.now - broadcastStart)
        let result = received.withLock { $0 }
        let delivered = result.perClient.reduce(0, +)
        let lost = result.perClient.reduce(0) { $0 + max(0, self.broadcasts - $1) }
        let duplicated = result.perClient.reduce(0) { $0 + max(0, $1 - self.broadcasts) }
        let latencies = result.latenciesMicroseconds.sorted()
        func percentile(_ p: Double) -> Double {
            latencies.isEmpty ? 0 : Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1000
        }
        let perClientKiB = Double(afterConnect.residentKiB - baseline) / Double(max(connected, 1))
        print(
            String(
                format: "broadcast: %d clients, %d broadcasts in %.1f s: %d delivered, %d lost, %d duplicated; "
                    + "latency p50 %.1f ms, p99 %.1f ms, max %.1f ms",
                connected, self.broadcasts, broadcastSeconds, delivered, lost, duplicated, percentile(0.5),
                percentile(0.99), latencies.last.map { Double($0) / 1000 } ?? 0))
        print(
            String(
                format: "broadcast: RSS %d KiB after connecting (baseline %d), %.1f KiB per client; "
                    + "idle CPU %.1f%% of a core (%.2f us per client per second over %d s); "
                    + "CPU per delivered event %.1f us; threads %d, fds %d",
                afterConnect.residentKiB, baseline, perClientKiB, idleCPU / Double(self.idleSeconds) * 100,
                idleCPU / Double(self.idleSeconds) / Double(max(connected, 1)) * 1e6, self.idleSeconds,
                broadcastCPU / Double(max(delivered, 1)) * 1e6, afterConnect.threads, afterConnect.openDescriptors))
        let liveAtEnd = counters.snapshot.live
        for manager in managers { manager.disconnect() }
        try? await Task.sleep(.seconds(2))
        return lost == 0 && duplicated == 0 && connected == self.clients && liveAtEnd == self.clients ? 0 : 1
    }
}
