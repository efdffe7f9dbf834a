import Testing

@testable import SocketIOProtocol

/// The manager's reconnection as a machine: every action of upstream's close / try / open
/// sequence, the budget, and stale timers.
@Suite struct ReconnectStateMachineTests {
    static let noJitter = ReconnectBackoff(reconnectWait: 1, reconnectWaitMax: 5, randomizationFactor: 0)

    @Test func aCloseWithoutReconnectsDisconnects() {
        var machine = ReconnectStateMachine(backoff: Self.noJitter)
        #expect(machine.transportClosed(reconnects: false, userDisconnected: false, random: 0) == [.disconnect])
        #expect(!machine.isReconnecting)
        #expect(machine.transportClosed(reconnects: true, userDisconnected: true, random: 0) == [.disconnect])
        #expect(!machine.isReconnecting)
    }

    @Test func reconnectingTriesAtOnceThenAfterEachDelayUntilOpen() {
        var machine = ReconnectStateMachine(backoff: Self.noJitter)
        #expect(
            machine.transportClosed(reconnects: true, userDisconnected: false, random: 0) == [
                .beginReconnecting, .attempt(eventValue: -1, retryAfter: .seconds(1.5), timer: 1),
            ])
        #expect(machine.isReconnecting && machine.currentAttempt == 1)
        // The failed try's engine closes too: reconnecting already, nothing new.
        #expect(machine.transportClosed(reconnects: true, userDisconnected: false, random: 0) == [])
        #expect(
            machine.retryTimerFired(1, reconnects: true, userDisconnected: false, random: 0) == [
                .attempt(eventValue: -2, retryAfter: .seconds(2.25), timer: 2)
            ])
        // Timer 1 again (stale) does nothing.
        #expect(machine.retryTimerFired(1, reconnects: true, userDisconnected: false, random: 0) == [])
        #expect(machine.transportOpened() == [.rejoin])
        #expect(!machine.isReconnecting && machine.currentAttempt == 0)
        // The last try's timer after the open does nothing.
        #expect(machine.retryTimerFired(2, reconnects: true, userDisconnected: false, random: 0) == [])
        // A later close starts a fresh round, counting from 1.
        #expect(
            machine.transportClosed(reconnects: true, userDisconnected: false, random: 0) == [
                .beginReconnecting, .attempt(eventValue: -1, retryAfter: .seconds(1.5), timer: 4),
            ])
    }

    @Test func theBudgetEndsWithGiveUpAndAFreshCount() {
        var backoff = Self.noJitter
        backoff.reconnectAttempts = 2
        var machine = ReconnectStateMachine(backoff: backoff)
        #expect(
            machine.transportClosed(reconnects: true, userDisconnected: false, random: 0) == [
                .beginReconnecting, .attempt(eventValue: 2, retryAfter: .seconds(1.5), timer: 1),
            ])
        #expect(
            machine.retryTimerFired(1, reconnects: true, userDisconnected: false, random: 0) == [
                .attempt(eventValue: 1, retryAfter: .seconds(2.25), timer: 2)
            ])
        #expect(machine.retryTimerFired(2, reconnects: true, userDisconnected: false, random: 0) == [.giveUp])
        #expect(!machine.isReconnecting && machine.currentAttempt == 0)
        #expect(machine.retryTimerFired(2, reconnects: true, userDisconnected: false, random: 0) == [])
    }

    @Test func aUserDisconnectOrReconnectsOffStopsTheTries() {
        var machine = ReconnectStateMachine(backoff: Self.noJitter)
        _ = machine.transportClosed(reconnects: true, userDisconnected: false, random: 0)
        #expect(machine.retryTimerFired(1, reconnects: true, userDisconnected: true, random: 0) == [])
        #expect(!machine.isReconnecting)

        var other = ReconnectStateMachine(backoff: Self.noJitter)
        _ = other.transportClosed(reconnects: true, userDisconnected: false, random: 0)
        other.stop()
        #expect(!other.isReconnecting)
        #expect(other.retryTimerFired(1, reconnects: true, userDisconnected: false, random: 0) == [])
    }

    @Test func jitterComesFromTheRandomInput() {
        var machine = ReconnectStateMachine()
        #expect(
            machine.transportClosed(reconnects: true, userDisconnected: false, random: 0.5) == [
                .beginReconnecting, .attempt(eventValue: -1, retryAfter: .seconds(18.75), timer: 1),
            ])
    }
}

/// The manager's status as the reconnect machine owns it: `connect()`, `disconnect()`, engine
/// opens and closes, tries and giving up.
@Suite struct ReconnectStateMachineStatusTests {
    @Test func aFirstConnectIsConnectingOnceThenConnected() {
        var machine = ReconnectStateMachine(backoff: ReconnectStateMachineTests.noJitter)
        #expect(machine.status == .notConnected)
        #expect(machine.connectRequested() == true)
        #expect(machine.status == .connecting)
        // A first connect under way: a second `connect()` creates no second engine.
        #expect(machine.connectRequested() == false)
        #expect(machine.transportOpened() == [.rejoin])
        #expect(machine.status == .connected)
        #expect(machine.connectRequested() == false)
    }

    @Test func aCloseIsNotConnectedAndEachTryConnectsAgain() {
        var machine = ReconnectStateMachine(backoff: ReconnectStateMachineTests.noJitter)
        _ = machine.connectRequested()
        _ = machine.transportOpened()
        #expect(
            machine.transportClosed(reconnects: true, random: 0) == [
                .beginReconnecting, .attempt(eventValue: -1, retryAfter: .seconds(1.5), timer: 2),
            ])
        #expect(machine.status == .notConnected)
        // The try's `connect()`; during a try a further `connect()` is allowed (upstream PR #1375).
        #expect(machine.connectRequested() == true)
        #expect(machine.status == .connecting)
        #expect(machine.connectRequested() == true)
        // The try's engine closes too.
        #expect(machine.transportClosed(reconnects: true, random: 0) == [])
        #expect(machine.status == .notConnected)
        #expect(
            machine.retryTimerFired(2, reconnects: true, random: 0) == [
                .attempt(eventValue: -2, retryAfter: .seconds(2.25), timer: 3)
            ])
        #expect(machine.connectRequested() == true)
        #expect(machine.transportOpened() == [.rejoin])
        #expect(machine.status == .connected)
    }

    @Test func aUserDisconnectIsKeptThroughTheCloseThatFollows() {
        var machine = ReconnectStateMachine(backoff: ReconnectStateMachineTests.noJitter)
        _ = machine.connectRequested()
        _ = machine.transportOpened()
        machine.disconnectRequested()
        #expect(machine.status == .disconnected)
        // Read from the status: the close is the user's, no reconnect.
        #expect(machine.transportClosed(reconnects: true, random: 0) == [.disconnect])
        #expect(machine.status == .disconnected)
        #expect(!machine.isReconnecting)
        // A later connect starts again.
        #expect(machine.connectRequested() == true)
        #expect(machine.status == .connecting)
    }

    @Test func aUserDisconnectDuringTriesStopsThem() {
        var machine = ReconnectStateMachine(backoff: ReconnectStateMachineTests.noJitter)
        _ = machine.transportClosed(reconnects: true, random: 0)
        _ = machine.connectRequested()
        machine.disconnectRequested()
        #expect(machine.status == .disconnected)
        #expect(!machine.isReconnecting)
        #expect(machine.retryTimerFired(1, reconnects: true, random: 0) == [])
        #expect(machine.transportClosed(reconnects: true, random: 0) == [.disconnect])
        #expect(machine.status == .disconnected)
    }

    @Test func givingUpDisconnects() {
        var backoff = ReconnectStateMachineTests.noJitter
        backoff.reconnectAttempts = 1
        var machine = ReconnectStateMachine(backoff: backoff)
        _ = machine.connectRequested()
        _ = machine.transportOpened()
        #expect(
            machine.transportClosed(reconnects: true, random: 0) == [
                .beginReconnecting, .attempt(eventValue: 1, retryAfter: .seconds(1.5), timer: 2),
            ])
        _ = machine.connectRequested()
        _ = machine.transportClosed(reconnects: true, random: 0)
        #expect(machine.retryTimerFired(2, reconnects: true, random: 0) == [.giveUp])
        #expect(machine.status == .disconnected)
        // The engine the manager closes on giving up reports a close: the user's now.
        #expect(machine.transportClosed(reconnects: true, random: 0) == [.disconnect])
        #expect(machine.connectRequested() == true)
    }

    @Test func reconnectsOffDisconnectsTheSocketsButNotTheManagerStatus() {
        // upstream: the close sets `notConnected` unless the user disconnected, then
        // `didDisconnect` tells every socket.
        var machine = ReconnectStateMachine(backoff: ReconnectStateMachineTests.noJitter)
        _ = machine.connectRequested()
        _ = machine.transportOpened()
        #expect(machine.transportClosed(reconnects: false, random: 0) == [.disconnect])
        #expect(machine.status == .notConnected)
        #expect(machine.connectRequested() == true)
    }
}
