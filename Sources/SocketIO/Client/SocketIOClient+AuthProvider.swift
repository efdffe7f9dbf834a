package import EngineIOProtocol
import Foundation
import RealtimeSync
import SocketIOProtocol

/// Auth asked before every CONNECT (socket.io-client's `auth` function, which it calls on
/// every engine open): a token that expired while the connection was down is replaced on the
/// rejoin. The namespace machine says when to ask (``NamespaceAction/requestAuth(_:)``) and
/// ignores an answer to an older request; this file runs the provider and feeds its answer.
extension SocketIOClient {
    /// How the socket asks for the CONNECT payload: called on `handleQueue`; `answer` may be
    /// called from any thread, once.
    struct AuthProvider: @unchecked Sendable {
        // `@unchecked Sendable`: the closure is only called, never mutated, and calls it
        // makes are serialized by the namespace machine's request numbers.
        let ask: (_ answer: @escaping @Sendable (Result<JSONValue?, any Swift.Error>) -> Void) -> Void
    }

    /// Connects to the namespace with a CONNECT payload that `provider` supplies before each
    /// CONNECT: this one, and every rejoin after a reconnection.
    ///
    /// ```swift
    /// socket.connect(withAuthProvider: { completion in
    ///     tokenStore.freshToken { token in completion(["token": token]) }
    /// })
    /// ```
    ///
    /// socket.io-client-swift sends the payload given to `connect(withPayload:)` on every
    /// rejoin, so a token that expired while the connection was down is refused by the server.
    /// Here `provider` is called on `handleQueue` each time a CONNECT is due, and the CONNECT
    /// goes out when it calls `completion` (from any thread): with `nil` for no payload. An
    /// answer that comes after the connection was lost again, or after `disconnect()`, is
    /// ignored; the next CONNECT asks again. A later `connect(withPayload:)` goes back to a
    /// fixed payload.
    ///
    /// - Parameters:
    ///   - provider: Called with a completion to call once with the payload.
    ///   - timeoutAfter: As in ``connect(withPayload:timeoutAfter:withHandler:)`` (0: none).
    ///   - handler: Called when the timeout passes first.
    public func connect(
        withAuthProvider provider: @escaping (_ completion: @escaping ([String: Any]?) -> Void) -> Void,
        timeoutAfter: Double = 0,
        withHandler handler: (() -> Void)? = nil
    ) {
        let box = UncheckedSendable(provider)
        self.connect(
            authProvider: AuthProvider { answer in
                box.value { payload in answer(.success(payload.map { SocketValueConversion.jsonValue(from: $0) })) }
            }, timeoutAfter: timeoutAfter, withHandler: handler)
    }

    /// The `async` form (SocketIOConcurrency's `connect(authProvider:timeout:)`): each request
    /// runs `provider` in a task the socket owns (cancelled by the next request and by leaving
    /// the namespace); a thrown error refuses the namespace with `"auth provider failed: …"`.
    package func connect(
        asyncAuthProvider provider: @escaping @Sendable () async throws -> JSONValue?,
        timeoutAfter: Double,
        withHandler handler: (() -> Void)?
    ) {
        self.connect(
            authProvider: AuthProvider { [weak self] answer in
                let task = Task {
                    do {
                        answer(.success(try await provider()))
                    } catch {
                        answer(.failure(error))
                    }
                }
                // Held through the section: the socket's half goes with the socket.
                guard let self else { return }
                let previous = withExtendedLifetime(self) {
                    self.state.withLock { state -> Task<Void, Never>? in
                        defer { state.authTask = task }
                        return state.authTask
                    }
                }
                previous?.cancel()
            }, timeoutAfter: timeoutAfter, withHandler: handler)
    }

    private func connect(authProvider: AuthProvider, timeoutAfter: Double, withHandler handler: (() -> Void)?) {
        guard let manager = self.manager, self.changeStatus({ $0.session.connection.startConnecting() }) else {
            DefaultSocketLogger.Logger.log("Tried connecting on an already connected socket", type: logType)
            return
        }
        self.state.withLock { $0.authProvider = authProvider }
        DefaultSocketLogger.Logger.log("Joining namespace \(nsp) with an auth provider", type: logType)
        self.join { $0.connectAskingForAuth() }
        self.armConnectTimeout(timeoutAfter, handler: handler, manager: manager)
    }

    /// Performs ``NamespaceAction/requestAuth(_:)``: asks the provider on `handleQueue`.
    func requestAuth(_ request: Int) {
        guard let provider = self.state.withLock({ $0.authProvider }) else {
            self.authAnswered(.failure(MissingAuthProvider()), request: request)
            return
        }
        let queue = self.manager?.handleQueue ?? DispatchQueue.main
        queue.async { [weak self] in
            guard let socket = self else { return }
            provider.ask { [weak socket] result in socket?.authAnswered(result, request: request) }
        }
    }

    private struct MissingAuthProvider: Swift.Error, CustomStringConvertible {
        var description: String { "no auth provider" }
    }

    /// The provider answered `request`: CONNECT goes out (or the namespace is refused).
    func authAnswered(_ result: Result<JSONValue?, any Swift.Error>, request: Int) {
        let actions = self.state.withLock { state -> [SessionAction] in
            switch result {
            case .success(let auth):
                return state.session.authProvided(auth, request: request)
            case .failure(let error):
                return state.session.authFailed("auth provider failed: \(error)", request: request)
            }
        }
        self.perform(actions, reason: "", receiving: nil)
    }

    /// Cancels an `async` provider's running request (the socket left its namespace).
    func cancelAuthTask() {
        self.state.withLock { state -> Task<Void, Never>? in
            defer { state.authTask = nil }
            return state.authTask
        }?.cancel()
    }
}
