import BenchmarkSupport
import Dispatch
import Foundation
import RealtimeTime
import SocketIO

/// Many Socket.IO clients in one process with steady traffic: each connected client sends one
/// `emitWithAck("echo", n)` per interval; acks count as operations, "NO ACK" as failures.
struct SocketIOSoak {
    let port: Int
    let clients: Int
    let interval: TimeAmount

    func run(seconds: Int, csv: String) async -> Int32 {
        let counters = SoakCounters()
        let baseline = ProcessStatus.read().residentKiB
        // Handlers run on a few serial queues, as an app with several managers would set them.
        let queues = (0..<4).map { DispatchQueue(label: "soak.socketio.\($0)") }
        var sockets: [SocketIOClient] = []
        var managers: [SocketManager] = []
        for index in 0..<self.clients {
            let manager = SocketManager(
                socketURL: URL(string: "http://127.0.0.1:\(self.port)")!,
                config: [.handleQueue(queues[index % queues.count]), .log(false)])
            let socket = manager.defaultSocket
            socket.on(clientEvent: .connect) { _, _ in counters.update { $0.live += 1 } }
            socket.on(clientEvent: .disconnect) { _, _ in counters.update { $0.live -= 1 } }
            socket.connect()
            managers.append(manager)
            sockets.append(socket)
            // Connect in waves so the server's accept queue keeps up.
            if index % 50 == 49 { try? await Task.sleep(.milliseconds(100)) }
        }
        let traffic = Task { [sockets, interval] in
            var round = 0
            while !Task.isCancelled {
                for socket in sockets where socket.status == .connected {
                    socket.emitWithAck("echo", round).timingOut(after: 15) { data in
                        let noAck = (data.first as? String) == SocketAckStatus.noAck.rawValue
                        counters.update { values in
                            if noAck {
                                values.failures += 1
                            } else {
                                values.operations += 1
                            }
                        }
                    }
                }
                round += 1
                try? await Task.sleep(interval)
            }
        }
        let rows = await SoakSampler.sample(seconds: seconds, counters: counters, csv: csv)
        traffic.cancel()
        _ = await traffic.value
        for manager in managers { manager.disconnect() }
        try? await Task.sleep(.seconds(2))
        let after = ProcessStatus.read()
        print(
            SoakSampler.summary(
                rows, warmUp: min(60, Double(seconds) / 4), baselineKiB: baseline,
                units: self.clients, what: "socketio"))
        print(
            "after disconnect: RSS \(after.residentKiB) KiB, threads \(after.threads), fds \(after.openDescriptors), "
                + "peak RSS \(after.peakResidentKiB) KiB")
        let last = counters.snapshot
        return last.failures == 0 && rows.last!.live == self.clients ? 0 : 1
    }
}
