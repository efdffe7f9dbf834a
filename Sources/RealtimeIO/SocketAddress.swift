#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import Glibc

/// An IPv4 or IPv6 socket address (`sockaddr_in` / `sockaddr_in6`) ready for `connect(2)`.
package struct SocketAddress: Sendable, CustomStringConvertible {
    /// `AF_INET` or `AF_INET6`.
    package let family: Int32
    private let storage: sockaddr_storage
    private let length: socklen_t

    /// Copies a `sockaddr` of `length` bytes (as returned by `getaddrinfo`).
    init?(_ address: UnsafePointer<sockaddr>, length: socklen_t) {
        let family = Int32(address.pointee.sa_family)
        guard family == AF_INET || family == AF_INET6,
            Int(length) <= MemoryLayout<sockaddr_storage>.size
        else { return nil }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(length)))
        }
        self.family = family
        self.storage = storage
        self.length = length
    }

    /// Parses a numeric IPv4 (`127.0.0.1`) or IPv6 (`::1`, `[::1]`) literal; `nil` for names.
    ///
    /// Scoped IPv6 literals (`fe80::1%eth0`) are left to `getaddrinfo`, which understands scopes.
    init?(numericHost host: String, port: UInt16) {
        var storage = sockaddr_storage()
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr = v4
            withUnsafeMutableBytes(of: &storage) { target in
                withUnsafeBytes(of: address) { target.copyMemory(from: $0) }
            }
            self.family = AF_INET
            self.storage = storage
            self.length = socklen_t(MemoryLayout<sockaddr_in>.size)
            return
        }
        var literal = Substring(host)
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, String(literal), &v6) == 1 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = v6
            withUnsafeMutableBytes(of: &storage) { target in
                withUnsafeBytes(of: address) { target.copyMemory(from: $0) }
            }
            self.family = AF_INET6
            self.storage = storage
            self.length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            return
        }
        return nil
    }

    /// Calls `body` with the address as a `sockaddr` pointer and its length.
    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafeBytes(of: self.storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), self.length)
        }
    }

    private static func string(fromNullTerminated buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `127.0.0.1:80` or `[::1]:80`.
    package var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        return withUnsafeBytes(of: self.storage) { raw -> String in
            if self.family == AF_INET {
                let address = raw.load(as: sockaddr_in.self)
                var v4 = address.sin_addr
                _ = inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count))
                return "\(Self.string(fromNullTerminated: buffer)):\(UInt16(bigEndian: address.sin_port))"
            } else {
                let address = raw.load(as: sockaddr_in6.self)
                var v6 = address.sin6_addr
                _ = inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count))
                return "[\(Self.string(fromNullTerminated: buffer))]:\(UInt16(bigEndian: address.sin6_port))"
            }
        }
    }
}
#endif
