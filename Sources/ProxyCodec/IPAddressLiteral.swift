/// Parses IP address literals into network-order bytes (no resolver, no system call).
enum IPAddressLiteral {
    /// Dotted-quad IPv4 (`127.0.0.1`): exactly four decimal parts 0...255, no leading zeros.
    static func ipv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                part.count == 1 || part.first != "0", let value = UInt8(part)
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    /// IPv6 (RFC 4291 §2.2): eight hex groups, one `::` allowed, an IPv4 tail allowed, an
    /// optional `[...]` around it; a zone (`%eth0`) is not accepted.
    static func ipv6(_ text: String) -> [UInt8]? {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        guard text.contains(":"), !text.contains("%") else { return nil }
        let halves = text.components(separatedByDoubleColon: ())
        guard halves.count <= 2 else { return nil }
        func groups(_ part: Substring) -> [UInt8]? {
            if part.isEmpty { return [] }
            var bytes: [UInt8] = []
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, field) in fields.enumerated() {
                if index == fields.count - 1, field.contains(".") {
                    guard let tail = Self.ipv4(String(field)) else { return nil }
                    bytes += tail
                    continue
                }
                guard (1...4).contains(field.count), let value = UInt16(field, radix: 16) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}

extension Substring {
    /// Splits at each `::` (the IPv6 zero run).
    fileprivate func components(separatedByDoubleColon: Void) -> [Substring] {
        var parts: [Substring] = []
        var start = self.startIndex
        var index = self.startIndex
        while index < self.endIndex {
            let next = self.index(after: index)
            if self[index] == ":", next < self.endIndex, self[next] == ":" {
                parts.append(self[start..<index])
                start = self.index(after: next)
                index = start
                continue
            }
            index = next
        }
        parts.append(self[start..<self.endIndex])
        return parts
    }
}
