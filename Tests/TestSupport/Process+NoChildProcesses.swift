#if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
import Foundation

/// Foundation's `Process` exists on macOS and Linux only. On these systems an app cannot start
/// a child process, so nothing that needs a helper server (the Python peers, the proxies,
/// `openssl` for test certificates) can run there: the helpers compile against this stand-in,
/// whose ``run()`` throws a clear error, and the suites that need no server are unaffected.
final class Process {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "this platform cannot start child processes (test servers run on macOS and Linux)" }
    }

    var executableURL: URL?
    var arguments: [String]?
    var currentDirectoryURL: URL?
    var environment: [String: String]?
    var standardInput: Any?
    var standardOutput: Any?
    var standardError: Any?
    let isRunning = false
    let processIdentifier: Int32 = 0
    let terminationStatus: Int32 = -1

    func run() throws { throw Unavailable() }
    func terminate() {}
    func waitUntilExit() {}
}
#endif
