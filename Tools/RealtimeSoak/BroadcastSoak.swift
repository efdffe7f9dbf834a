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
    /// The managers' event-loop group: this many loops, or the process default's when 0.
    let loops: Int

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
        // Each manager takes the group's next loop: its connection, timers and packet path
        // live there.
        let group = self.loops > 0 ? EventLoopGroup(loopCount: self.loops) : EventLoopGroup.shared
        print("broadcast: \(group.loopCount) event loop(s)\(self.loops > 0 ? "" : " (the process default)")")
        let connectStart = MonotonicInstant.now
        for index in 0..<self.clients {
            let manager = SocketManager(
                socketURL: URL(string: "http://127.0.0.1:\(self.port)")!,
                config: [
                    .handleQueue(queues[index % queues.count]), .log(false), .forceWebsockets(true),
                    .eventLoopGroup(group),
                ])
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
        let loopCPUStart = ThreadCPU.seconds(namePrefix: "RTIO-")
        let broadcastStart = MonotonicInstant.now
        sockets[0].emitWithAck("broadcast", self.broadcasts, 1000).timingOut(after: 10) { _ in }
        let rows = await SoakSampler.sample(seconds: self.broadcasts, counters: counters, csv: csv)
        // The soak's own once-a-second sampling (/proc reads, the CSV), measured on its thread.
        let samplerCPU = rows.reduce(0) { $0 + $1.samplerCPUSeconds }
        // A server that falls behind keeps sending after the last scheduled second: wait for
        // every client's "ticks_done" (at most 2 minutes more) before counting what is lost.
        let doneDeadline = MonotonicInstant.now + .seconds(120)
        while counters.snapshot.done < connected && MonotonicInstant.now < doneDeadline {
            try? await Task.sleep(.milliseconds(100))
        }
        let broadcastCPU = Measure.processCPUSeconds() - broadcastCPUStart
        // The loops' threads (`RTIO-<group>-<loop>`; the resolvers' names go on after that).
        let loopCPU = ThreadCPU.delta(from: loopCPUStart, to: ThreadCPU.seconds(namePrefix: "RTIO-")).filter { entry in
            let parts = entry.key.split(separator: "-")
            return entry.value > 0 && parts.count == 3 && Int(parts[2]) != nil
        }
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
                    + "CPU per delivered event %.1f us (%.1f us without the sampler's own %.1f ms); threads %d, fds %d",
                afterConnect.residentKiB, baseline, perClientKiB, idleCPU / Double(self.idleSeconds) * 100,
                idleCPU / Double(self.idleSeconds) / Double(max(connected, 1)) * 1e6, self.idleSeconds,
                broadcastCPU / Double(max(delivered, 1)) * 1e6, (broadcastCPU - samplerCPU) / Double(max(delivered, 1)) * 1e6,
                samplerCPU * 1e3, afterConnect.threads, afterConnect.openDescriptors))
        let shares = loopCPU.sorted { $0.key < $1.key }
        print(
            "broadcast: loop CPU "
                + shares.map { String(format: "%@ %.2f s (%.1f%% of the process)", $0.key, $0.value, $0.value / max(broadcastCPU, 1e-9) * 100) }
                .joined(separator: ", ")
                + (shares.count > 1
                    ? String(format: "; busiest/quietest %.2f", (shares.map(\.value).max() ?? 0) / max(shares.map(\.value).min() ?? 1, 1e-9))
                    : ""))
        let liveAtEnd = counters.snapshot.live
        for manager in managers { manager.disconnect() }
        try? await Task.sleep(.seconds(2))
        return lost == 0 && duplicated == 0 && connected == self.clients && liveAtEnd == self.clients ? 0 : 1
    }
}
