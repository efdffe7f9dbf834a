import CommandLineSupport
import EventSource
import Foundation

/// One run of `sse`: stream the URL, print each event, and the exit status.
struct SSETool {
    let options: SSEOptions
    let console: Console

    init(options: SSEOptions) {
        self.options = options
        self.console = Console(name: "sse", silent: options.silent)
    }

    func run() async -> SSEExitStatus {
        var request = URLRequest(url: self.options.url)
        request.httpMethod = self.options.effectiveMethod
        for header in self.options.headers {
            request.addValue(header.value, forHTTPHeaderField: header.name)
        }
        if let body = self.options.body {
            do throws(BodyError) {
                request.httpBody = try Self.read(body)
            } catch {
                self.console.error(error.message)
                return .usage
            }
        }

        // The library's defaults unless an option says otherwise (reconnection: off).
        var eventSource = EventSource()
        do throws(BodyError) {
            if let security = try self.security() { eventSource.security = security }
        } catch {
            self.console.error(error.message)
            return .usage
        }
        if let idleTimeout = self.options.idleTimeout { eventSource.timeoutInterval = idleTimeout }
        if let reconnects = self.options.reconnects {
            eventSource.reconnectionPolicy = reconnects ? .exponentialBackoff() : .disabled
        }
        let reconnects = eventSource.reconnectionPolicy.isEnabled
        let dataTask = eventSource.dataTask(for: request)
        if let lastEventID = self.options.lastEventID { dataTask.lastMessageId = lastEventID }

        let timedOut = SetOnceFlag()
        let timer = self.options.timeout.map { seconds in
            Task {
                try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
                guard !Task.isCancelled else { return }
                timedOut.set()
                dataTask.cancel()
            }
        }
        defer { timer?.cancel() }

        self.console.progress("connecting to \(self.options.url.absoluteString)")
        var printed = 0
        var opened = false
        var failure: SSEExitStatus?
        stream: for await event in dataTask.events() {
            switch event {
            case .open:
                self.console.progress(opened ? "reconnected" : "connected")
                opened = true
                failure = nil
            case .event(let serverEvent):
                self.console.output(
                    OutputLine.serverSentEvent(
                        type: serverEvent.event, data: serverEvent.data,
                        id: serverEvent.id, format: self.options.format))
                printed += 1
                if let maximum = self.options.maximumEvents, printed >= maximum {
                    dataTask.cancel()
                    return .success
                }
            case .error(let error):
                if case .connectionError(let statusCode, let body)? = error as? EventSourceError {
                    self.console.error(Self.describeHTTPError(statusCode: statusCode, body: body))
                    failure = .httpError
                } else if reconnects && error is URLError {
                    // The policy reconnects after network errors: progress, not the outcome.
                    self.console.error(self.describe(error))
                    self.console.progress("reconnecting")
                } else {
                    self.console.error(self.describe(error))
                    failure = .connectionFailed
                }
            case .closed:
                break stream
            }
        }
        if timedOut.isSet {
            self.console.error("timed out after \(Self.format(seconds: self.options.timeout ?? 0)) s")
            return .timeout
        }
        return failure ?? .success
    }

    // MARK: Messages

    /// `HTTP 404: server says 404` (the start of the body, on one line), or the content-type
    /// failure of a 200.
    static func describeHTTPError(statusCode: Int, body: Data) -> String {
        var message = "HTTP \(statusCode)"
        if statusCode == 200 { message += " but the response is not text/event-stream" }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
            .split(whereSeparator: \.isNewline).joined(separator: " ")
        if !text.isEmpty { message += ": " + text }
        return message
    }

    private func describe(_ error: any Error) -> String {
        if let urlError = error as? URLError {
            if urlError.code == .timedOut {
                let idle = Self.format(seconds: self.options.idleTimeout ?? EventSource().timeoutInterval)
                return "timed out: nothing received for \(idle) s (--idle-timeout), or the connection attempt timed out"
            }
            return "connection failed: \(urlError.localizedDescription) (URLError \(urlError.code.rawValue))"
        }
        if let limitError = error as? EventStreamLimitError {
            return "stream failed: \(limitError.description)"
        }
        if let eventSourceError = error as? EventSourceError, let description = eventSourceError.errorDescription {
            return description
        }
        return "connection failed: \(error)"
    }

    static func format(seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
    }

    // MARK: TLS

    /// `-k` and `--cacert`, as `sio` reads them; `nil` for the library's default.
    func security() throws(BodyError) -> EventSource.Security? {
        if self.options.insecure { return .selfSigned }
        guard let path = self.options.caCertificatePath else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BodyError(message: "cannot read --cacert file \(path)")
        }
        let pem = String(decoding: data, as: UTF8.self)
        guard pem.contains("-----BEGIN CERTIFICATE-----") else {
            throw BodyError(message: "--cacert file \(path) holds no PEM certificate")
        }
        return .certificates([pem])
    }

    // MARK: Body

    struct BodyError: Error {
        let message: String
    }

    /// `--data`: the text, or the bytes of `@file` (`@-`: stdin), as curl's `--data-binary`.
    static func read(_ body: SSEOptions.Body) throws(BodyError) -> Data {
        switch body {
        case .text(let text):
            return Data(text.utf8)
        case .file("-"):
            return FileHandle.standardInput.readDataToEndOfFile()
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw BodyError(message: "cannot read --data file \(path)")
            }
            return data
        }
    }
}
