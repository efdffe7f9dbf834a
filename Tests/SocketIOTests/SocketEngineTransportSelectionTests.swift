import Foundation
import RealtimeHTTP
import TestSupport
import Testing

@testable import SocketIO

/// Which stack each ``SocketEngine/Transport`` gives an engine: `.automatic` is URLSession in
/// the `REALTIME_NO_NATIVE_STACK` build (as on Apple platforms) and the native clients on Linux;
/// `.urlSession` and `.native` are the same everywhere.
@Suite struct SocketEngineTransportSelectionTests {
    static var options: SocketEngineOptions { SocketEngineOptions(url: URL(string: "http://chat.example/")!) }

    @Test func urlSessionIsURLSessionForPollingAndWebSocket() throws {
        let transports = try #require(SocketEngine.Transport.urlSession.makeTransports(options: Self.options))
        #expect(transports.http is URLSessionHTTPTransport)
        #expect(transports.webSocket is URLSessionWebSocketTransport)
        // The engine keeps the cookies itself and sends them on every request.
        #expect(!transports.httpKeepsCookies)
    }

    @Test func nativeIsTheProjectsClients() throws {
        let transports = try #require(SocketEngine.Transport.native.makeTransports(options: Self.options))
        #expect(transports.http is HTTPClient)
        #expect(transports.webSocket is WebSocketClient)
        #expect(transports.httpKeepsCookies)
    }

    @Test func automaticIsURLSessionExactlyWhereApplePlatformsAre() throws {
        let transports = try #require(SocketEngine.Transport.automatic.makeTransports(options: Self.options))
        #expect(SocketEngine.Transport.automaticIsURLSession == BuildConfiguration.noNativeStack)
        #expect((transports.http is URLSessionHTTPTransport) == BuildConfiguration.noNativeStack)
        #expect((transports.webSocket is URLSessionWebSocketTransport) == BuildConfiguration.noNativeStack)
        // A manager's engines get the manager's transport: `.automatic` unless told otherwise.
        #expect(SocketManager(socketURL: URL(string: "http://chat.example/")!).transport.description == "automatic")
    }
}
