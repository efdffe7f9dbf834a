import BenchmarkSupport
import EventSource
import Foundation
import RealtimeTime

/// Many EventSource streams in one process, each receiving one event a second.
struct EventSourceSoak {
    let port: Int
    let streams: Int

    func run(seconds: Int, csv: String) async -> Int32 {
        let counters = SoakCounters()
        let baseline = ProcessStatus.read().residentKiB
        let source = EventSource(timeoutInterval: 30)
        let url = URL(string: "http://127.0.0.1:\(self.port)/sse")!
        let rows = await withTaskGroup(of: Void.self) { group in
            for index in 0..<self.streams {
                group.addTask {
                    let task = source.dataTask(for: URLRequest(url: url))
                    for await event in task.events() {
                        switch event {
                        case .open: counters.update { $0.live += 1 }
                        case .event: counters.update { $0.operations += 1 }
                        case .error: counters.update { $0.failures += 1 }
                        case .closed: counters.update { $0.live -= 1 }
                        }
                    }
                }
                if index % 50 == 49 { try? await Task.sleep(.milliseconds(50)) }
            }
            let rows = await SoakSampler.sample(seconds: seconds, counters: counters, csv: csv)
            group.cancelAll()
            return rows
        }
        try? await Task.sleep(.seconds(1))
        let after = ProcessStatus.read()
        print(
            SoakSampler.summary(
                rows, warmUp: min(30, Double(seconds) / 4), baselineKiB: baseline,
                units: self.streams, what: "sse"))
        print(
            "after cancel: RSS \(after.residentKiB) KiB, threads \(after.threads), fds \(after.openDescriptors), "
                + "peak RSS \(after.peakResidentKiB) KiB")
        // Cancelled streams report errors at the end; only those during the run count.
        return rows.last!.failures == 0 && rows.last!.live == self.streams ? 0 : 1
    }
}
