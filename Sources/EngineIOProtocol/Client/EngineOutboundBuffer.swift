/// The packets an ``EngineClientStateMachine`` holds until a transport can take them: before
/// the handshake, behind the polling `POST` in flight, and in the upgrade window.
///
/// A FIFO with a moving head, so taking one `POST`'s worth from the front of a long burst
/// costs that batch, not the whole buffer (an array's `removeFirst(_:)` moves every packet
/// behind it, which made a burst of n writes cost O(n²)). It keeps the running total of the
/// packets' encoded lengths (as polling records), so the machine can bound it in O(1).
///
/// Each packet carries the write id it ends (``EngineClientStateMachine/send(_:writeID:)``):
/// the last packet of a numbered write records its id, every other packet `nil`.
struct EngineOutboundBuffer: Sendable {
    private var packets: [EnginePacket] = []
    private var writeIDs: [Int?] = []
    /// Index of the first packet still buffered.
    private var head = 0
    /// The sum of ``EnginePollingPayload/encodedLength(of:)`` over the buffered packets.
    private(set) var encodedLength = 0
    /// How many of the buffered packets are pongs.
    private var pongs = 0

    /// Whether a pong waits here: the machine answers a further ping with nothing, so a
    /// server's ping flood cannot grow the buffer (one pong answers them all).
    var holdsPong: Bool { self.pongs > 0 }

    /// Packets buffered.
    var count: Int { self.packets.count - self.head }

    var isEmpty: Bool { self.head == self.packets.count }

    /// The buffered packets, oldest first.
    var contents: ArraySlice<EnginePacket> { self.packets[self.head...] }

    /// Appends one write; its last packet records `writeID`.
    mutating func append(_ packets: [EnginePacket], writeID: Int?) {
        guard !packets.isEmpty else { return }
        for packet in packets {
            self.encodedLength += EnginePollingPayload.encodedLength(of: packet)
            if case .pong = packet { self.pongs += 1 }
        }
        self.packets += packets
        if packets.count > 1 {
            self.writeIDs += repeatElement(nil, count: packets.count - 1)
        }
        self.writeIDs.append(writeID)
    }

    /// How many packets from the front fit one `POST`: at most `maxPayload` bytes (`nil`: no
    /// byte limit) and `maximumPackets` packets (`nil`: no count limit); at least one when
    /// anything is buffered. Looks at no more packets than it returns (plus one).
    func batchCount(maxPayload: Int?, maximumPackets: Int?) -> Int {
        var window = self.packets[self.head...]
        if let maximumPackets, window.count > maximumPackets {
            window = window.prefix(maximumPackets)
        }
        return EnginePollingPayload.batchCount(window, maxPayload: maxPayload)
    }

    /// Removes the first `count` packets; returns them and the highest write id they end.
    mutating func take(_ count: Int) -> (packets: [EnginePacket], writeID: Int?) {
        let end = self.head + min(count, self.count)
        // Copied out, so the storage stays uniquely referenced and is reused below.
        let taken = Array(self.packets[self.head..<end])
        var writeID: Int?
        for index in self.head..<end {
            if let id = self.writeIDs[index] { writeID = id }
            self.encodedLength -= EnginePollingPayload.encodedLength(of: self.packets[index])
            if case .pong = self.packets[index] { self.pongs -= 1 }
        }
        self.head = end
        if self.head == self.packets.count {
            self.packets.removeAll(keepingCapacity: true)
            self.writeIDs.removeAll(keepingCapacity: true)
            self.head = 0
            self.encodedLength = 0
            self.pongs = 0
        } else if self.head >= 4096, self.head * 2 >= self.packets.count {
            // Reclaim the consumed front now and then: amortized O(1) per packet.
            self.packets.removeFirst(self.head)
            self.writeIDs.removeFirst(self.head)
            self.head = 0
        }
        return (taken, writeID)
    }

    /// Removes everything; returns it and the highest write id it ends.
    mutating func takeAll() -> (packets: [EnginePacket], writeID: Int?) {
        self.take(self.count)
    }

    /// Drops everything.
    mutating func removeAll() {
        self.packets.removeAll()
        self.writeIDs.removeAll()
        self.head = 0
        self.encodedLength = 0
        self.pongs = 0
    }
}
