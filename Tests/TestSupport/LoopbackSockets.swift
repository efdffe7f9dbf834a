import Foundation

/// What the kernel says about the machine's TCP sockets (Linux, `/proc/net/tcp` and `tcp6`):
/// an explicit signal for a test that must wait until a peer closed a connection, instead of a
/// sleep that is long enough only usually.
package enum LoopbackSockets {
    /// Whether the socket bound to `localPort` has seen its peer close (it is no longer
    /// ESTABLISHED: CLOSE_WAIT once the FIN arrived, or gone from the table). `nil` where the
    /// table cannot be read (not Linux).
    package static func peerClosed(localPort: Int) -> Bool? {
        self.peerClosed { local, _ in local == localPort }
    }

    /// The same for the socket connected to `remotePort` (a client's socket to a test server
    /// with one connection; the server's own sockets have that port as their local port).
    package static func peerClosed(remotePort: Int) -> Bool? {
        self.peerClosed { _, remote in remote == remotePort }
    }

    private static func peerClosed(where matches: (Int?, Int?) -> Bool) -> Bool? {
        var readable = false
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            readable = true
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 3, matches(self.port(fields[1]), self.port(fields[2])) else { continue }
                // 01 ESTABLISHED; 08 CLOSE_WAIT (the peer sent its FIN); 06 TIME_WAIT, 07 CLOSE.
                return fields[3] != "01"
            }
        }
        return readable ? true : nil
    }

    /// The port of an `ADDRESS:PORT` field (hexadecimal).
    private static func port(_ field: Substring) -> Int? {
        guard let colon = field.lastIndex(of: ":") else { return nil }
        return Int(field[field.index(after: colon)...], radix: 16)
    }
}
