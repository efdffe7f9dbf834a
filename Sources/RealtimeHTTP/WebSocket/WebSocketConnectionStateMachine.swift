import RealtimeIO
import WebSocketCodec

/// The sans-I/O core of a client connection: decoding, message assembly and the close
/// handshake (RFC 6455 §5, §7). The owner holds it under one lock, feeds it bytes and
/// performs the actions it returns after releasing the lock.
struct WebSocketConnectionStateMachine: Sendable {
    /// What the reader must do next.
    enum ReadAction: Sendable {
        /// Hand a message to the caller of `receive()`.
        case deliver(WebSocketMessage)
        /// Answer a ping (RFC 6455 §5.5.2), then ask again.
        case sendPong([UInt8])
        /// Read from the socket, feed ``bytesReceived(_:)``, ask again.
        case readMore
        /// The peer closed first: echo its close frame, close the socket, report the end.
        case echoCloseAndShutdown(payload: [UInt8])
        /// Our close was answered: close the socket, report the end.
        case shutdown
        /// Protocol violation: send this close frame (if any), close the socket, throw.
        case failConnection(closePayload: [UInt8]?, error: WebSocketError)
        /// Already over: return `nil` (clean) or throw the stored error.
        case finished(WebSocketError?)
    }

    /// What `close(code:reason:)` must do.
    enum CloseAction: Sendable {
        case sendClose(payload: [UInt8])
        /// A close frame is already out (or the connection is over); only wait.
        case alreadyClosing
    }

    private var decoder: WebSocketFrameDecoder
    private var assembler: WebSocketMessageAssembler
    private(set) var closeSent = false
    private(set) var closeStatus: (code: UInt16, reason: String)?
    /// Set once the read side is over: `nil` error for a clean close.
    private(set) var outcome: Result<Void, WebSocketError>?
    /// Fail-fast validation of a text frame whose payload is still arriving (Autobahn 6.4.3/6.4.4).
    private var partialText = WebSocketPartialTextCheck()

    init(maxMessageSize: Int, decompressor: PerMessageDeflateDecompressor?) {
        self.decoder = WebSocketFrameDecoder(
            role: .client, maxFramePayloadSize: maxMessageSize,
            allowsRSV1: decompressor != nil)
        self.assembler = WebSocketMessageAssembler(maxMessageSize: maxMessageSize, decompressor: decompressor)
    }

    var isFinished: Bool { self.outcome != nil }

    mutating func bytesReceived(_ bytes: [UInt8]) {
        guard self.outcome == nil else { return }
        self.decoder.append(bytes)
    }

    /// Whether sending data is still allowed (no close frame sent, not failed).
    func sendError() -> WebSocketError? {
        if case .failure(let error)? = self.outcome { return error }
        if self.closeSent || self.outcome != nil {
            return WebSocketError(
                .closed(code: self.closeStatus?.code ?? WebSocketCloseCode.normalClosure),
                "the connection is closing or closed")
        }
        return nil
    }

    mutating func nextReadAction() -> ReadAction {
        if let outcome = self.outcome {
            if case .failure(let error) = outcome { return .finished(error) }
            return .finished(nil)
        }
        // A loop, not recursion: one read can hold thousands of tiny frames.
        while true {
            let event: WebSocketMessageAssembler.Event
            // The common case first: a whole text message in one frame, made into its text
            // straight from the read buffer.
            if self.assembler.isIdle, let text = self.decoder.nextWholeText(maxLength: self.assembler.maxMessageSize) {
                self.partialText.frameCompleted()
                return .deliver(.text(text))
            }
            do throws(WebSocketProtocolError) {
                guard let frame = try self.decoder.nextFrame() else {
                    try self.partialText.check(self.decoder, self.assembler)
                    return .readMore
                }
                self.partialText.frameCompleted()
                guard let assembled = try self.assembler.receive(frame) else { continue }
                event = assembled
            } catch {
                return self.fail(error)
            }
            switch event {
            case .text(let text):
                return .deliver(.text(text))
            case .binary(let bytes):
                return .deliver(.binary(bytes))
            case .ping(let payload):
                if self.closeSent { continue }
                return .sendPong(payload)
            case .pong:
                continue
            case .close(let code, let reason):
                self.closeStatus = (code ?? WebSocketCloseCode.noStatusReceived, reason)
                self.outcome = .success(())
                if self.closeSent { return .shutdown }
                self.closeSent = true
                let echo = code.map { WebSocketFrameEncoder.closePayload(code: $0, reason: "") } ?? []
                return .echoCloseAndShutdown(payload: echo)
            }
        }
    }

    /// The socket failed or reached EOF before the close handshake finished.
    mutating func streamEnded(_ error: NetworkError?, cancelled: Bool) -> WebSocketError {
        if case .failure(let stored)? = self.outcome { return stored }
        let failure: WebSocketError
        if cancelled {
            failure = WebSocketError(.cancelled, "the receiving task was cancelled")
        } else if let error {
            failure = WebSocketError(error)
        } else {
            failure = WebSocketError(
                .closed(code: WebSocketCloseCode.abnormalClosure),
                "the server closed the connection without a close frame")
        }
        if self.outcome == nil {
            self.outcome = .failure(failure)
            self.closeStatus = self.closeStatus ?? (WebSocketCloseCode.abnormalClosure, "")
        }
        return failure
    }

    /// The user asked to close.
    mutating func closeRequested(code: UInt16, reason: String) -> CloseAction {
        guard !self.closeSent, self.outcome == nil else { return .alreadyClosing }
        self.closeSent = true
        return .sendClose(payload: WebSocketFrameEncoder.closePayload(code: code, reason: reason))
    }

    /// Ends the read side when the close handshake timed out.
    mutating func closeTimedOut() {
        if self.outcome == nil {
            self.outcome = .success(())
            self.closeStatus = self.closeStatus ?? (WebSocketCloseCode.abnormalClosure, "")
        }
    }

    private mutating func fail(_ error: WebSocketProtocolError) -> ReadAction {
        let kind: WebSocketError.Kind
        switch error.closeCode {
        case WebSocketCloseCode.invalidFramePayloadData: kind = .invalidUTF8
        case WebSocketCloseCode.messageTooBig: kind = .messageTooLarge
        default: kind = .protocolError
        }
        let failure = WebSocketError(kind, error.message)
        self.outcome = .failure(failure)
        self.closeStatus = (error.closeCode, "")
        let payload = self.closeSent ? nil : WebSocketFrameEncoder.closePayload(code: error.closeCode, reason: "")
        self.closeSent = true
        return .failConnection(closePayload: payload, error: failure)
    }
}
