import Foundation
import HTTP1Codec
import RealtimeTime
import TestSupport

@testable import RealtimeHTTP

/// What `/echo` on `Tests/Servers/http_server.py` returns.
struct EchoReply: Decodable {
    var method: String
    var path: String
    var query: String
    var target: String
    var headers: [[String]]
    var body: String
    // swift-format-ignore: AlwaysUseLowerCamelCase
    var peer_port: Int?  // the server's JSON field

    func header(_ name: String) -> String? {
        self.headers.first { $0.first?.lowercased() == name.lowercased() }?.last
    }
}

struct PeerPortReply: Decodable {
    // swift-format-ignore: AlwaysUseLowerCamelCase
    var peer_port: Int  // the server's JSON field
}
struct CookieReply: Decodable { var cookie: String? }
struct ForeverStats: Decodable {
    var sent: Int
    var blocked: Bool
    /// How many `/forever` requests the server has had.
    var requests: Int
}

extension HTTPClientResponse {
    func decode<T: Decodable>(_ type: T.Type, limit: Int = 1 << 20) async throws -> T {
        let bytes = try await self.body.collect(upTo: limit)
        return try JSONDecoder().decode(T.self, from: Data(bytes))
    }

    func text(limit: Int = 1 << 20) async throws -> String {
        String(decoding: try await self.body.collect(upTo: limit), as: UTF8.self)
    }
}

extension TestServer {
    func url(_ pathAndQuery: String, scheme: String = "http", host: String = "127.0.0.1") -> URL {
        URL(string: "\(scheme)://\(host):\(self.port)\(pathAndQuery)")!
    }
}

/// The `/length` and `/chunked` body pattern of the test servers.
func serverPattern(size: Int, offset: Int = 0) -> [UInt8] {
    (0..<size).map { UInt8((offset + $0) % 251) }
}

/// A port on 127.0.0.1 that nothing listens on (bound, then closed).
func unusedLocalPort() throws -> Int {
    #if canImport(Glibc)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
            guard bind(fd, pointer, length) == 0 else { return -1 }
            return getsockname(fd, pointer, &length)
        }
    }
    guard bound == 0 else { throw LoopbackTestError(description: "could not bind a probe socket") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Runs `operation`, failing when it takes longer than `limit` (so a hang fails the test
/// instead of blocking the suite).
func withTimeLimit<T: Sendable>(_ limit: TimeAmount, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(limit)
            return nil
        }
        guard let first = try await group.next(), let value = first else {
            group.cancelAll()
            throw LoopbackTestError(description: "operation exceeded \(limit)")
        }
        group.cancelAll()
        return value
    }
}

struct LoopbackTestError: Error, CustomStringConvertible {
    var description: String
}

/// What a failed HTTP operation reports.
enum Failure: Equatable {
    case none
    case http(HTTPClientError.Kind)
    case other(String)
}

/// How an HTTP operation ended: `.none` when it succeeded, else the `HTTPClientError` kind.
func failureKind(_ operation: () async throws -> Void) async -> Failure {
    do {
        try await operation()
        return .none
    } catch let error as HTTPClientError {
        return .http(error.kind)
    } catch {
        return .other("\(error)")
    }
}

/// One server process per script shared by the tests that do not need a server of their own
/// (no special arguments, no server-wide state such as `/forever`'s counters). Starting a
/// Python server costs about a second; sharing keeps the suites short. The process outlives
/// the tests and exits by itself once the test process is gone (the scripts watch their
/// parent).
actor SharedTestServer {
    static let http = SharedTestServer(script: "http_server.py")
    static let raw = SharedTestServer(script: "http_raw_server.py")

    private let script: String
    private var starting: Task<TestServer, any Error>?

    init(script: String) {
        self.script = script
    }

    func server() async throws -> TestServer {
        if let starting { return try await starting.value }
        let script = self.script
        let task = Task { try await TestServer.start(script) }
        self.starting = task
        return try await task.value
    }
}
