#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import Glibc

/// Helpers for turning `errno` values into ``NetworkError``s with readable messages.
enum SystemErrno {
    /// `"ECONNREFUSED: Connection refused"`-style text for an errno value.
    static func describe(_ code: Int32) -> String {
        let text = strerror(code).map { String(cString: $0) } ?? "unknown error"
        return "errno \(code): \(text)"
    }

    /// The error for a call that failed to make a descriptor (`socket`, `accept`,
    /// `epoll_create1`, `eventfd`): `.tooManyOpenFiles` for `EMFILE` / `ENFILE`.
    static func descriptorError(_ code: Int32, operation: String) -> NetworkError {
        switch code {
        case EMFILE, ENFILE:
            return NetworkError(.tooManyOpenFiles, "\(operation) failed: out of file descriptors (\(describe(code)))")
        default:
            return NetworkError(.systemError, "\(operation) failed: \(describe(code))")
        }
    }

    /// The error for a failed `recv`/`send` on a connected socket.
    static func streamError(_ code: Int32, operation: String) -> NetworkError {
        switch code {
        case ECONNRESET, EPIPE, ECONNABORTED:
            return NetworkError(.connectionReset, "\(operation): connection reset by peer (\(describe(code)))")
        case ETIMEDOUT:
            return NetworkError(.connectionReset, "\(operation): connection timed out (\(describe(code)))")
        default:
            return NetworkError(.systemError, "\(operation) failed: \(describe(code))")
        }
    }

    /// The error for a failed `connect` to `address`.
    static func connectError(_ code: Int32, address: String) -> NetworkError {
        switch code {
        case ECONNREFUSED:
            return NetworkError(.connectionRefused, "connection to \(address) refused")
        case ETIMEDOUT:
            return NetworkError(.connectTimedOut, "connection to \(address) timed out in the kernel")
        case ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL, EAFNOSUPPORT:
            return NetworkError(.connectionRefused, "cannot reach \(address): \(describe(code))")
        case ECONNRESET:
            return NetworkError(.connectionReset, "connection to \(address) reset during connect")
        default:
            return NetworkError(.systemError, "connect to \(address) failed: \(describe(code))")
        }
    }
}
#endif
