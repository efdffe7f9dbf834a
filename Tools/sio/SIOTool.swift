import CommandLineSupport
import Dispatch
import EngineIOProtocol
import Foundation
import SocketIOConcurrency

/// One run of `sio`: connect, then emit once, read stdin, or listen; the exit status.
struct SIOTool {
    let options: SIOOptions
    let mode: SIOMode
    let console: Console

    init(options: SIOOptions, stdinIsTerminal: Bool) {
        self.options = options
        self.mode = options.mode(stdinIsTerminal: stdinIsTerminal)
        self.console = Console(name: "sio", silent: options.silent)
    }

    func run() async -> SIOExitStatus {
        let config: SocketIOClientConfiguration
        do throws(FileError) {
            config = try self.configuration()
        } catch {
            self.console.error(error.message)
            return .usage
        }
        let manager = SocketManager(socketURL: self.options.serverURL, config: config)
        let socket = EventPrintingSocket(manager: manager, nsp: self.options.namespace, console: self.console)
        manager.nsps[self.options.namespace] = socket
        let finished = Completion<SIOExitStatus>()
        let progress = ConnectionProgress(console: self.console)
        progress.observe(socket, finished: finished)

        self.console.progress(
            "connecting to \(self.options.serverURL.absoluteString) "
                + "(namespace \(self.options.namespace), transport \(self.options.transport.rawValue))")
        let reminders = Task { await self.remindWhileConnecting(progress) }
        do {
            defer { reminders.cancel() }
            try await socket.connect(withPayload: self.authPayload(), timeout: self.options.connectTimeout)
        } catch {
            self.console.error("could not connect: \(progress.failureMessage(for: error))")
            manager.disconnect()
            return .connectionFailed
        }

        switch self.mode {
        case .emit(let event, let arguments, let waitsForAck):
            let items: [SocketData] = arguments.map { SocketIOClient.Payload($0) }
            if waitsForAck {
                self.emitWithAck(event, items: items, on: socket) { status in finished.finish(status) }
            } else {
                await socket.emit(event, with: items)
                finished.finish(.success)
            }
        case .interactive:
            let session = InteractiveSession(tool: self, socket: socket, finished: finished)
            StandardInputReader.start(onLine: session.handle(line:), onEnd: session.inputEnded)
        case .listen:
            break
        }
        let status = await finished.wait()
        if status != .disconnected {
            try? await socket.disconnect(timeout: 2)
        }
        manager.disconnect()
        return status
    }

    /// Emits `event` asking for an ack; prints the ack line (or the timeout on stderr) and
    /// reports the status.
    func emitWithAck(
        _ event: String, items: [SocketData], on socket: SocketIOClient,
        done: @escaping @Sendable (SIOExitStatus) -> Void
    ) {
        let console = self.console
        let timeout = self.options.ackTimeout
        socket.emitWithAck(event, with: items).timingOut(after: timeout) { ackItems in
            if ackItems.count == 1, let text = ackItems[0] as? String, text == SocketAckStatus.noAck.rawValue {
                console.error("no ack for '\(event)' within \(Self.format(seconds: timeout)) s")
                done(.ackTimeout)
            } else {
                console.output(OutputLine.socketAck(event, items: ackItems.map { JSONValue(socketItem: $0) }))
                done(.success)
            }
        }
    }

    // MARK: Configuration

    /// A failure to read a file an option names.
    struct FileError: Error {
        let message: String
    }

    func configuration() throws(FileError) -> SocketIOClientConfiguration {
        var config: SocketIOClientConfiguration = [
            .log(false),
            .reconnects(self.options.reconnects),
            .handleQueue(DispatchQueue(label: "sio.handlers")),
        ]
        if let wait = self.options.reconnectDelay { config.insert(.reconnectWait(wait)) }
        if let waitMax = self.options.reconnectDelayMax { config.insert(.reconnectWaitMax(waitMax)) }
        if let path = self.options.path { config.insert(.path(path)) }
        switch self.options.transport {
        case .auto: break
        case .polling: config.insert(.forcePolling(true))
        case .websocket: config.insert(.forceWebsockets(true))
        }
        if !self.options.headers.isEmpty {
            // Repeated names are joined with ", " (RFC 9110 §5.3).
            let headers = Dictionary(self.options.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { "\($0), \($1)" })
            config.insert(.extraHeaders(headers))
        }
        if !self.options.connectParameters.isEmpty {
            let parameters: [String: Any] = Dictionary(
                self.options.connectParameters.map { ($0.name, $0.value) },
                uniquingKeysWith: { _, last in last })
            config.insert(.connectParams(parameters))
        }
        if self.options.serverURL.scheme == "https" { config.insert(.secure(true)) }
        if self.options.insecure { config.insert(.selfSigned(true)) }
        if let path = self.options.caCertificatePath {
            let pem: String
            do {
                pem = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw FileError(message: "cannot read --cacert file \(path): \(error.localizedDescription)")
            }
            guard pem.contains("-----BEGIN CERTIFICATE-----") else {
                throw FileError(message: "--cacert file \(path) holds no PEM certificate")
            }
            config.insert(.security(PEMCertificatePinning(certificates: [pem])))
        }
        if self.options.usesVersionTwo { config.insert(.version(.two)) }
        return config
    }

    /// `--auth` as the CONNECT payload.
    func authPayload() -> [String: SocketData]? {
        guard let members = self.options.auth?.objectValue else { return nil }
        return Dictionary(
            members.map { ($0.key, SocketIOClient.Payload($0.value) as SocketData) },
            uniquingKeysWith: { _, last in last })
    }

    // MARK: Progress

    /// Until cancelled, every `SIOOptions.stillConnectingInterval` seconds within the connect timeout:
    /// "still connecting to URL (N s)...", with the last error the socket reported, if any.
    private func remindWhileConnecting(_ progress: ConnectionProgress) async {
        let url = self.options.serverURL.absoluteString
        let interval = Double(SIOOptions.stillConnectingInterval)
        var elapsed = interval
        while elapsed < self.options.connectTimeout {
            do {
                try await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
            } catch {
                return
            }
            guard !Task.isCancelled, !progress.hasConnected else { return }
            let lastError = progress.lastErrorWhileConnecting.map { "; last error: \($0)" } ?? ""
            self.console.progress("still connecting to \(url) (\(Self.format(seconds: elapsed)) s)...\(lastError)")
            elapsed += interval
        }
    }

    static func format(seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
    }
}
