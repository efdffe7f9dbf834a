import RealtimeTime

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
/// Connection racing over several addresses (RFC 8305 "Happy Eyeballs v2", simplified).
extension NetworkConnector {
    /// RFC 8305 §5 "Connection Attempt Delay" (recommended default 250 ms).
    static let connectionAttemptDelay: TimeAmount = .milliseconds(250)

    /// Interleaves address families, starting with the family of the first address (RFC 8305 §4).
    static func interleavingFamilies(_ addresses: [SocketAddress]) -> [SocketAddress] {
        guard let firstFamily = addresses.first?.family else { return addresses }
        let preferred = addresses.filter { $0.family == firstFamily }
        let others = addresses.filter { $0.family != firstFamily }
        var result: [SocketAddress] = []
        result.reserveCapacity(addresses.count)
        for index in 0..<max(preferred.count, others.count) {
            if index < preferred.count { result.append(preferred[index]) }
            if index < others.count { result.append(others[index]) }
        }
        return result
    }

    /// Connects to the first address that answers. Attempts start one at a time, each after the
    /// previous failed or ``connectionAttemptDelay`` passed (a timer of `loop`), and run concurrently; the winner is
    /// returned, every other attempt is cancelled and its socket closed. All attempts share
    /// `deadline`, which stays armed on the returned stream (the TLS handshake shares it).
    /// Every attempt's socket is registered with `loop`.
    ///
    /// - Throws: the last attempt's error (a non-cancellation error is preferred), or
    ///   `.cancelled` if the task is cancelled.
    static func connectFirst(
        of addresses: [SocketAddress],
        deadline: MonotonicInstant, on loop: EventLoop
    ) async throws(NetworkError) -> TCPStream {
        if addresses.count == 1 {
            return try await TCPStream.connect(to: addresses[0], deadline: deadline, on: loop)
        }
        let ordered = self.interleavingFamilies(addresses)

        enum Event: Sendable {
            case connected(TCPStream)
            case failed(NetworkError)
            case delayElapsed(generation: Int)
        }

        let outcome: Result<TCPStream, NetworkError> = await withTaskGroup(of: Event.self) { group in
            var nextIndex = 0
            var running = 0
            var delayGeneration = 0
            var winner: TCPStream?
            var lastError = NetworkError(.nameResolutionFailed, "no address to connect to")

            func startNextAttempt(_ group: inout TaskGroup<Event>) {
                let address = ordered[nextIndex]
                nextIndex += 1
                running += 1
                group.addTask {
                    do throws(NetworkError) {
                        return .connected(try await TCPStream.connect(to: address, deadline: deadline, on: loop))
                    } catch {
                        return .failed(error)
                    }
                }
                delayGeneration += 1
                if nextIndex < ordered.count {
                    let generation = delayGeneration
                    group.addTask {
                        // A timer of the attempts' loop; cancelled with the group, or ended
                        // early if the loop shuts down (the next attempt then fails at once).
                        try? await loop.sleep(for: Self.connectionAttemptDelay)
                        return .delayElapsed(generation: generation)
                    }
                }
            }

            startNextAttempt(&group)
            while let event = await group.next() {
                switch event {
                case .connected(let stream):
                    running -= 1
                    if winner == nil {
                        winner = stream
                        group.cancelAll()
                    } else {
                        stream.close()
                    }
                case .failed(let error):
                    running -= 1
                    if lastError.kind == .nameResolutionFailed || error.kind != .cancelled { lastError = error }
                    if winner == nil, nextIndex < ordered.count, !Task.isCancelled {
                        startNextAttempt(&group)
                    }
                case .delayElapsed(let generation):
                    if winner == nil, generation == delayGeneration, nextIndex < ordered.count, !Task.isCancelled {
                        startNextAttempt(&group)
                    }
                }
                if winner == nil, running == 0, nextIndex >= ordered.count {
                    group.cancelAll()  // only a stale delay task can remain
                }
            }
            if let winner { return .success(winner) }
            return .failure(lastError)
        }
        return try outcome.get()
    }
}
#endif
