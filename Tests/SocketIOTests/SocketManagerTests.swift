import Dispatch
import Foundation
import RealtimeTime
import TestSupport
import Testing

@testable import SocketIO

@Suite(.tearsDownTestEngines) struct SocketManagerTests {
    @Test func socketsAreSharedPerNamespace() {
        let (manager, _, _) = makeManager()
        #expect(manager.socket(forNamespace: "/a") === manager.socket(forNamespace: "/a"))
        #expect(manager.defaultSocket === manager.socket(forNamespace: "/"))
        #expect(manager.nsps.count == 2)
        let removed = manager.removeSocket(manager.socket(forNamespace: "/a"))
        #expect(removed?.nsp == "/a")
        #expect(manager.nsps.count == 1)
    }

    /// A manager, the engines it makes and its sockets are one serialization domain: one mutex
    /// (issue 19). Another manager's and an engine made for another client have their own.
    @Test func aManagersEnginesAndSocketsShareOneMutex() throws {
        let queue = DispatchQueue(label: "one-domain")
        let url = URL(string: "http://127.0.0.1:1/")!
        let manager = SocketManager(
            socketURL: url, config: [.reconnects(false), .handleQueue(queue), .forceNew(true)], transport: .none)
        let root = manager.defaultSocket
        let admin = manager.socket(forNamespace: "/admin")
        manager.connect()
        let first = try #require(manager.engine as? SocketEngine)
        manager.disconnect()
        manager.connect()
        let second = try #require(manager.engine as? SocketEngine)
        #expect(first !== second)
        manager.disconnect()
        // The sockets' and the engines' halves live in the manager's core, under its mutex.
        #expect(root.core === manager.core && admin.core === manager.core)
        #expect(first.core === manager.core && second.core === manager.core)
        #expect(manager.core.state.domain === manager.lockDomain)
        // Both engines still live (held here): both halves are in the core.
        #expect(manager.core.state.withLock { $0.engines.count } == 2)

        // An engine's half goes with the engine.
        weak let released = first
        _ = consume first
        #expect(released == nil)
        #expect(manager.core.state.withLock { $0.engines.count } == 1)

        let other = SocketManager(socketURL: url, config: [.reconnects(false), .handleQueue(queue)])
        #expect(other.lockDomain !== manager.lockDomain)
        #expect(other.defaultSocket.core === other.core)
        let client = QuietClient()
        let engineOfAnotherClient = SocketEngine(client: client, url: url, config: [])
        #expect(engineOfAnotherClient.core !== manager.core && engineOfAnotherClient.core !== other.core)
        #expect(!engineOfAnotherClient.core.belongsToManager)
    }

    /// The core keeps each socket's half while the socket lives, and a manager's sockets do
    /// not outlive it through the core they share (they hold the core, the core's manager half
    /// held them).
    @Test func theCoreHoldsEachSocketsStateWhileTheSocketLives() {
        let url = URL(string: "http://127.0.0.1:1/")!
        weak var manager: SocketManager?
        weak var socket: SocketIOClient?
        weak var core: SocketConnectionCore?
        do {
            let strongManager = SocketManager(socketURL: url, config: [.reconnects(false)], transport: .none)
            let strongSocket = strongManager.socket(forNamespace: "/chat")
            _ = strongManager.defaultSocket
            #expect(strongManager.core.state.withLock { $0.sockets.count } == 2)
            #expect(strongManager.removeSocket(strongSocket) === strongSocket)
            manager = strongManager
            socket = strongSocket
            core = strongManager.core
        }
        #expect(socket == nil)
        #expect(manager == nil)
        #expect(core == nil)

        // A socket made directly for a manager joins its core, and leaves it when released.
        let ours = SocketManager(socketURL: url, config: [.reconnects(false)], transport: .none)
        do {
            let second = SocketIOClient(manager: ours, nsp: "/y")
            #expect(second.core === ours.core)
            #expect(ours.core.state.withLock { $0.sockets.count } == 1)
        }
        #expect(ours.core.state.withLock { $0.sockets.count } == 0)
    }

    /// Sockets and an engine that the app's setters replace are released after the core's
    /// section: their `deinit` takes the session's lock (a debug build's error-checking mutex
    /// traps on a second lock by the same thread, a release build would hang).
    @Test func replacedSocketsAndEnginesAreReleasedOutsideTheLock() {
        let url = URL(string: "http://127.0.0.1:1/")!
        let manager = SocketManager(socketURL: url, config: [.reconnects(false)], transport: .none)
        weak var replacedSocket: SocketIOClient?
        weak var replacedEngine: SocketEngine?
        do {
            let socket = SocketIOClient(manager: manager, nsp: "/gone")
            manager.nsps["/gone"] = socket
            replacedSocket = socket
            let engine = SocketEngine(client: manager, url: url, config: [])
            manager.engine = engine
            replacedEngine = engine
        }
        manager.nsps = [:]
        manager.engine = nil
        #expect(replacedSocket == nil)
        #expect(replacedEngine == nil)
        #expect(manager.core.state.withLock { $0.sockets.count } == 0)
    }

    @Test func configurationDefaultsAndOptions() {
        let manager = SocketManager(
            socketURL: URL(string: "https://example.com")!,
            config: [
                .reconnectAttempts(3), .reconnectWait(2), .reconnectWaitMax(9),
                .randomizationFactor(0.1), .forceNew(true), .reconnects(false),
            ])
        #expect(manager.reconnectWait == 2)
        #expect(manager.reconnectWaitMax == 9)
        #expect(manager.randomizationFactor == 0.1)
        #expect(manager.forceNew)
        #expect(!manager.reconnects)
        #expect(manager.reconnectAttempts == 3)
        #expect(manager.handleQueue.label == DispatchQueue.main.label)
        #expect(manager.version == .three)
        #expect(manager.config.contains(where: { $0.description == "secure" }))
        #expect(manager.config.contains(where: { $0.description == "path" }))

        let defaults = SocketManager(socketURL: URL(string: "http://example.com")!)
        #expect(defaults.reconnects)
        #expect(defaults.reconnectWait == 10)
        #expect(defaults.reconnectWaitMax == 30)
        #expect(defaults.randomizationFactor == 0.5)
        #expect(defaults.status == .notConnected)

        let fromDictionary = SocketManager(
            socketURL: URL(string: "http://example.com")!,
            config: ["reconnectAttempts": 5, "forcePolling": true, "version": 2])
        #expect(fromDictionary.reconnectAttempts == 5)
        #expect(fromDictionary.version == .two)
    }

    @Test func configurationInsertReplaces() {
        var config: SocketIOClientConfiguration = [.path("/a/"), .log(false)]
        config.insert(.path("/b/"))
        config.insert(.path("/c/"), replacing: false)
        config.insert(.secure(true))
        #expect(config.count == 3)
        if case .path(let path) = config[0] { #expect(path == "/b/") } else { Issue.record("no path") }
        #expect(SocketIOClientOption.useCustomEngine(true).description == "customEngine")
    }

    @Test func engineOpenJoinsEveryConnectingNamespaceWithItsPayload() {
        let (manager, engine, queue) = makeManager()
        engine.opensOnConnect = false
        let admin = manager.socket(forNamespace: "/admin")
        let root = manager.defaultSocket
        admin.connect(withPayload: ["token": "t"])
        root.connect()
        drain(queue)
        #expect(engine.writes.isEmpty)
        #expect(engine.connectCount == 1)
        manager.engineDidOpen(reason: "Connect")
        drain(queue)
        #expect(Set(engine.writes) == [#"0/admin,{"token":"t"}"#, "0"])
        #expect(manager.status == .connected)
    }

    @Test func reconnectRejoinsAndCountsAttempts() {
        let (manager, engine, queue) = makeManager([.reconnectAttempts(2), .reconnectWait(5)])
        engine.opensOnConnect = false
        let socket = manager.socket(forNamespace: "/admin")
        let events = Recorder<(String, [Any])>()
        socket.onAny { events.append(($0.event, $0.items ?? [])) }
        socket.connect(withPayload: ["token": "t"])
        manager.engineDidOpen(reason: "Connect")
        manager.parseEngineMessage(#"0/admin,{"sid":"1"}"#)
        drain(queue)
        #expect(socket.status == .connected)

        manager.engineDidClose(reason: "Socket Disconnected")
        drain(queue)
        #expect(socket.status == .connecting)
        let reconnect = events.values.first(where: { $0.0 == "reconnect" })
        #expect(reconnect?.1.first as? String == "Socket Disconnected")
        let attempt = events.values.first(where: { $0.0 == "reconnectAttempt" })
        #expect(attempt?.1.first as? Int == 2)

        manager.engineDidOpen(reason: "Connect")
        drain(queue)
        #expect(engine.writes.last == #"0/admin,{"token":"t"}"#)
        manager.parseEngineMessage(#"0/admin,{"sid":"2"}"#)
        drain(queue)
        #expect(socket.status == .connected)
        #expect(socket.sid == "2")
    }

    /// Upstream (PR #1375): `connect()` while a reconnect attempt is under way starts a new
    /// connection; while connected or during the first connect it does nothing.
    @Test func connectDuringAReconnectAttemptStartsANewConnection() {
        let (manager, engine, queue) = makeManager([.reconnectWait(100), .reconnectWaitMax(100)])
        engine.opensOnConnect = false
        let socket = manager.defaultSocket
        socket.connect()
        drain(queue)
        #expect(engine.connectCount == 1)
        manager.connect()
        #expect(engine.connectCount == 1, "a first connect under way is left alone")
        manager.engineDidOpen(reason: "Connect")
        manager.parseEngineMessage(#"0{"sid":"1"}"#)
        drain(queue)
        manager.connect()
        #expect(engine.connectCount == 1, "connected: nothing to do")

        manager.engineDidClose(reason: "Socket Disconnected")
        drain(queue)
        // The first attempt started a connection that hangs (the next one is 100 s away).
        #expect(engine.connectCount == 2)
        #expect(manager.status == .connecting)
        manager.connect()
        #expect(engine.connectCount == 3, "a reconnect attempt under way is replaced")
        #expect(manager.status == .connecting)

        manager.engineDidOpen(reason: "Connect")
        manager.parseEngineMessage(#"0{"sid":"2"}"#)
        drain(queue)
        #expect(manager.status == .connected)
        #expect(socket.status == .connected)
        manager.connect()
        #expect(engine.connectCount == 3)
        manager.disconnect()
        drain(queue)
    }

    @Test func reconnectFailedDisconnectsAndALaterConnectStartsFresh() async {
        let (manager, engine, queue) = makeManager([.reconnectAttempts(1)])
        engine.opensOnConnect = false
        let socket = manager.defaultSocket
        let events = Recorder<(String, [Any])>()
        socket.onAny { events.append(($0.event, $0.items ?? [])) }
        socket.connect()
        manager.engineDidOpen(reason: "Connect")
        manager.parseEngineMessage(#"0{"sid":"1"}"#)
        drain(queue)

        manager.engineDidClose(reason: "Ping timeout")
        drain(queue)
        manager.engineDidClose(reason: "Connection refused")
        // The second attempt runs after the (zero) backoff and gives up.
        let gaveUp = await events.wait(timeout: 5) { $0.contains(where: { $0.0 == "disconnect" }) }
        #expect(gaveUp)
        drain(queue)
        let disconnects = events.values.filter { $0.0 == "disconnect" }.map { $0.1.first as? String }
        #expect(disconnects == ["Reconnect Failed"])
        #expect(manager.status == .disconnected)
        #expect(socket.status == .disconnected)
        let attempts = events.values.filter { $0.0 == "reconnectAttempt" }.map { $0.1.first as? Int }
        #expect(attempts == [1])

        socket.connect()
        drain(queue)
        #expect(manager.status == .connecting)
        manager.engineDidOpen(reason: "Connect")
        drain(queue)
        #expect(manager.status == .connected)
    }

    @Test func unlimitedReconnectAttemptsCountDownNegatively() async {
        let (manager, engine, queue) = makeManager([.reconnectAttempts(-1)])
        engine.opensOnConnect = false
        let socket = manager.defaultSocket
        let attempts = Recorder<Int>()
        socket.on(clientEvent: .reconnectAttempt) { data, _ in attempts.append(data.first as? Int ?? 0) }
        socket.connect()
        manager.engineDidOpen(reason: "Connect")
        manager.parseEngineMessage(#"0{"sid":"1"}"#)
        drain(queue)
        manager.engineDidClose(reason: "Socket Disconnected")
        drain(queue)
        for _ in 0..<2 {
            manager.engineDidClose(reason: "refused")
            try? await Task.sleep(.milliseconds(20))
            drain(queue)
        }
        #expect(await attempts.wait(forCount: 3, timeout: 2))
        #expect(Array(attempts.values.prefix(3)) == [-1, -2, -3])
        manager.disconnect()
        drain(queue)
    }

    /// Regression (found by `SocketIOFaultInjectionTests`): a retry scheduled by one
    /// reconnection that then succeeded kept running when the transport was lost again before
    /// its delay passed, so two attempt loops ran side by side (attempts in pairs, and one more
    /// loop per quick loss).
    @Test func aRetryLeftByTheLastReconnectionDoesNotRunBesideTheNextOne() {
        // The manager's timer source is the test's: the 1 s retry delay passes when it says so.
        let timers = ManualTimerSource()
        let (manager, engine, queue) = makeManager(
            [.reconnectAttempts(-1), .reconnectWait(1), .reconnectWaitMax(1)], timers: timers)
        engine.opensOnConnect = false
        let socket = manager.defaultSocket
        let attempts = Recorder<Int>()
        socket.on(clientEvent: .reconnectAttempt) { data, _ in attempts.append(data.first as? Int ?? 0) }
        socket.connect()
        manager.engineDidOpen(reason: "Connect")
        manager.parseEngineMessage(#"0{"sid":"1"}"#)
        drain(queue)

        // Lost, one attempt (its retry is due in 1 s), and connected again at once.
        manager.engineDidClose(reason: "lost")
        drain(queue)
        manager.engineDidOpen(reason: "Connect")
        manager.parseEngineMessage(#"0{"sid":"2"}"#)
        drain(queue)
        #expect(socket.status == .connected)
        // Lost again before that retry is due: one new reconnection, one attempt loop.
        manager.engineDidClose(reason: "lost again")
        drain(queue)
        #expect(attempts.values == [-1, -1])
        // The first loop's retry and the second loop's are both due after 1 s: only the
        // second loop's runs (one attempt, not a pair), and again after one more second.
        timers.advance(by: .seconds(1))
        drain(queue)
        drain(queue)
        #expect(attempts.values == [-1, -1, -2])
        timers.advance(by: .milliseconds(600))
        drain(queue)
        #expect(attempts.values == [-1, -1, -2])
        timers.advance(by: .milliseconds(400))
        drain(queue)
        drain(queue)
        #expect(attempts.values == [-1, -1, -2, -3])
        manager.disconnect()
        drain(queue)
    }

    @Test func managerDisconnectReportsDisconnect() {
        let (manager, engine, queue) = makeManager()
        let socket = manager.defaultSocket
        let reasons = Recorder<String>()
        socket.on(clientEvent: .disconnect) { data, _ in reasons.append(data.first as? String ?? "") }
        socket.connect()
        manager.parseEngineMessage(#"0{"sid":"1"}"#)
        drain(queue)
        manager.disconnect()
        drain(queue)
        #expect(engine.disconnectReasons == ["Disconnect"])
        #expect(reasons.values == ["Disconnect"])
        #expect(manager.status == .disconnected)
    }
}

/// An engine client that is not a manager.
private final class QuietClient: QuietEngineClient, @unchecked Sendable {}
