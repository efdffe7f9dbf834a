import CommandLineSupport
import EngineIOProtocol
import Foundation
import SocketIOConcurrency

/// Interactive mode: each stdin line `event [json ...]` is emitted asking for an ack; acks are
/// printed as they come. At the end of stdin the run ends (status 0) once every ack arrived or
/// timed out. A line that does not parse is reported on stderr and skipped.
final class InteractiveSession: @unchecked Sendable {
    // @unchecked: `pending`, `inputEnded` and `lineNumber` are only touched under `lock`;
    // the rest are immutable and thread-safe.
    private let tool: SIOTool
    private let socket: SocketIOClient
    private let finished: Completion<SIOExitStatus>
    private let lock = NSLock()
    private var pending = 0
    private var ended = false
    private var lineNumber = 0

    init(tool: SIOTool, socket: SocketIOClient, finished: Completion<SIOExitStatus>) {
        self.tool = tool
        self.socket = socket
        self.finished = finished
    }

    /// One line of stdin (on the reader's thread).
    func handle(line: String) {
        let number = self.withLock { state -> Int in
            state.lineNumber += 1
            return state.lineNumber
        }
        let parsed: EmitLine?
        do throws(JSONParseError) {
            parsed = try EmitLine.parse(line)
        } catch {
            self.tool.console.error("line \(number): \(error.commandLineDescription) (expected: event [json ...])")
            return
        }
        guard let emit = parsed else { return }
        self.withLock { $0.pending += 1 }
        let items: [SocketData] = emit.arguments.map { SocketIOClient.Payload($0) }
        self.tool.emitWithAck(emit.event, items: items, on: self.socket) { _ in
            // A missing ack was reported on stderr; the run still ends with status 0.
            self.ackSettled()
        }
    }

    /// End of stdin.
    func inputEnded() {
        let done = self.withLock { state -> Bool in
            state.ended = true
            return state.pending == 0
        }
        if done { self.finished.finish(.success) }
    }

    private func ackSettled() {
        let done = self.withLock { state -> Bool in
            state.pending -= 1
            return state.ended && state.pending == 0
        }
        if done { self.finished.finish(.success) }
    }

    private func withLock<Result>(_ body: (InteractiveSession) -> Result) -> Result {
        self.lock.lock()
        defer { self.lock.unlock() }
        return body(self)
    }
}
