public import Dispatch

// `HTTPCookie` and `URLSessionDelegate` appear in public cases: on Darwin they come from
// Foundation, on Linux from FoundationNetworking.
#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// The options for a client.
///
/// The same cases, descriptions and values as socket.io-client-swift 16.x. Options that
/// depend on Apple-only machinery are accepted everywhere and documented where they cannot act.
public enum SocketIOClientOption: CustomStringConvertible, Equatable {
    /// If given, the WebSocket transport will attempt to use compression (permessage-deflate, RFC 7692).
    ///
    /// - Important: The native stack negotiates permessage-deflate. `URLSessionWebSocketTask`
    ///   (``SocketEngine/Transport/urlSession``, the default on Apple platforms) offers no
    ///   compression setting, so there this option has no effect.
    case compress

    /// A dictionary of GET parameters that will be included in the connect url.
    case connectParams([String: Any])

    /// An array of cookies that will be sent during the initial connection.
    ///
    /// Sent in the `Cookie` header of every polling request and of the WebSocket upgrade, on
    /// both stacks, together with the cookies the server set (sticky sessions).
    case cookies([HTTPCookie])

    /// Any extra HTTP headers that should be sent during the initial connection.
    ///
    /// Sent on every polling request and the WebSocket upgrade, on both stacks. URLSession
    /// manages some headers itself (`Host`, `Connection`, `Upgrade`, `Sec-WebSocket-*`) and
    /// may replace values given for them.
    case extraHeaders([String: String])

    /// If passed `true`, will cause the client to always create a new engine. Useful for debugging,
    /// or when you want to be sure no state from previous engines is being carried over.
    case forceNew(Bool)

    /// If passed `true`, the only transport that will be used will be HTTP long-polling.
    case forcePolling(Bool)

    /// If passed `true`, the only transport that will be used will be WebSockets.
    case forceWebsockets(Bool)

    /// If passed `true`, the WebSocket stream will be configured with the enableSOCKSProxy `true`.
    ///
    /// Upstream asks URLSession for the system's SOCKS proxy. Here both stacks take the
    /// environment's: `all_proxy` / `ALL_PROXY`, else `socks_proxy` / `SOCKS_PROXY`, when it
    /// names a SOCKS5 proxy (`socks5://[user:pass@]host:port` or `host:port`), with `no_proxy`
    /// exceptions; with none set, connections go direct on the native stack and URLSession keeps
    /// the system's proxy settings (which include the system's SOCKS proxy, as upstream). An
    /// explicit ``SocketManager/proxy`` takes precedence.
    ///
    /// - Important: Over URLSession a SOCKS proxy becomes the session's
    ///   `connectionProxyDictionary` SOCKS entries (see ``SocketProxy``): they take effect on
    ///   Apple platforms only, without credentials, and `false` cannot turn a system-wide SOCKS
    ///   proxy off.
    case enableSOCKSProxy(Bool)

    /// The queue that all interaction with the client should occur on. This is the queue that event handlers are
    /// called on.
    ///
    /// **This should be a serial queue! Concurrent queues are not supported and might cause crashes and races**.
    case handleQueue(DispatchQueue)

    /// If passed `true`, the client will log debug information. This should be turned off in production code.
    case log(Bool)

    /// Used to pass in a custom logger.
    case logger(SocketLogger)

    /// A custom path to socket.io. Only use this if the socket.io server is configured to look for this path.
    case path(String)

    /// If passed `false`, the client will not reconnect when it loses connection. Useful if you want full control
    /// over when reconnects happen.
    case reconnects(Bool)

    /// The number of times to try and reconnect before giving up. Pass `-1` to never give up.
    case reconnectAttempts(Int)

    /// The minimum number of seconds to wait before reconnect attempts.
    case reconnectWait(Int)

    /// The maximum number of seconds to wait before reconnect attempts.
    case reconnectWaitMax(Int)

    /// The randomization factor for calculating reconnect jitter.
    case randomizationFactor(Double)

    /// Set `true` if your server is using secure transports.
    case secure(Bool)

    /// Allows you to set which certs are valid. Useful for SSL pinning.
    ///
    /// The native stack (OpenSSL) and URLSession on Apple platforms (the server-trust
    /// authentication challenge, evaluated with the Security framework) both add the given
    /// certificates to the system roots and check the host name unless `verifiesHostname` is
    /// `false`.
    ///
    /// - Important: URLSession on Linux gets no server-trust challenge (libcurl verifies
    ///   against the system store by itself), so there this option is not applied.
    case security(CertificatePinning)

    /// If you're using a self-signed set. Only use for development.
    ///
    /// - Important: `true` turns certificate verification off entirely for this manager's
    ///   connections (native stack; URLSession on Apple platforms, through the server-trust
    ///   challenge). Prefer `.security(...)` with the signing certificate. URLSession on Linux
    ///   cannot turn verification off: there this option is not applied.
    case selfSigned(Bool)

    /// Sets an NSURLSessionDelegate for the underlying engine. Useful if you need to handle self-signed certs.
    ///
    /// - Important: Over URLSession (the default on Apple platforms) the engine's session
    ///   keeps its own delegate (it streams the polling bodies) and asks this one about every
    ///   authentication challenge first: `urlSession(_:task:didReceive:completionHandler:)`,
    ///   else `urlSession(_:didReceive:completionHandler:)`; when it implements neither,
    ///   `.security` / `.selfSigned` decide. Its other methods are not called, unlike
    ///   upstream, where it was the session's delegate. The native stack never calls it.
    ///   URLSession on Linux (FoundationNetworking) asks it only about HTTP authentication
    ///   (401 / 407), after the challenged response's body; a credential then retries the
    ///   request, and any other answer but a cancellation delivers the challenged response.
    case sessionDelegate(URLSessionDelegate)

    /// If passed `false`, the WebSocket stream will be configured with the useCustomEngine `false`.
    ///
    /// - Important: Accepted for compatibility; the stack is chosen with
    ///   ``SocketEngine/Transport`` (`SocketManager(socketURL:config:transport:)`) instead.
    case useCustomEngine(Bool)

    /// The version of socket.io being used. This should match the server version. Default is 3.
    ///
    /// `.three` speaks Engine.IO 4 / Socket.IO 5 (socket.io 3 and 4 servers); `.two` speaks
    /// Engine.IO 3 with client-driven pings (socket.io 2.x servers).
    case version(SocketIOVersion)

    /// How packets are encoded: ``SocketParser/json`` (the default, socket.io-parser) or
    /// ``SocketParser/msgpack`` (socket.io-msgpack-parser); the server must use the same one.
    /// Not in socket.io-client-swift.
    case parser(SocketParser)

    /// Keeps up to this many emits made while a socket connects or reconnects, and sends them
    /// in order once it is connected (socket.io-client's `sendBuffer`); one more fails with
    /// `"Send buffer full (n emits): not sent"`. Kept emits a leave discards fail as an emit
    /// while not connected does. `0`, the default: none are kept, and an emit while not
    /// connected fails with socket.io-client-swift's `"Tried emitting when not connected"`.
    /// Volatile emits are never kept. Not in socket.io-client-swift.
    case sendBuffer(Int)

    /// Delivery with retries (socket.io-client's `retries`): every emit of the manager's sockets
    /// is queued and gets an acknowledgement, the queue sends one emit at a time, in order, and
    /// an emit whose ack does not come within its timeout (``ackTimeout(_:)``, or the emit's
    /// own `timingOut(after:)`) is sent again, up to this many more times. Its caller hears
    /// once: the ack, or the failure (`["NO ACK"]` for an ack callback; an `.error` event for a
    /// plain emit, whose completion then runs once the server acknowledged it or it was given
    /// up). Emits made while the socket reconnects are queued (up to `.sendBuffer`'s bound or
    /// 1,000); a try the lost connection interrupted is made again after the reconnection; a
    /// leave fails what is queued. The server must acknowledge every event. `0`, the default:
    /// off. Not in socket.io-client-swift.
    case retries(Int)

    /// Seconds a queued emit's try waits for its ack before it is sent again (socket.io-client's
    /// `ackTimeout`, in seconds); used with ``retries(_:)``. `0`, the default: a try waits until
    /// the ack comes or the connection is lost. Not in socket.io-client-swift.
    case ackTimeout(Double)

    /// The event loops the native transport runs the manager's connections on (Linux; the
    /// `.native` transport). A manager takes one loop of the group when it is made, and its
    /// engines' connections, their reads and writes, its timers (heartbeats, ack deadlines,
    /// reconnect tries) and the packet path from the socket to its core run on that loop's
    /// thread; managers spread over the group's loops in turn. Read once, at the manager's
    /// `init`. Without it, the process default (`EventLoopGroup.shared`: one loop per core).
    /// URLSession (Apple platforms, `.urlSession`) runs its own threads and ignores it. Not in
    /// socket.io-client-swift.
    ///
    /// ```swift
    /// let group = EventLoopGroup(loopCount: 4)
    /// let managers = urls.map { SocketManager(socketURL: $0, config: [.eventLoopGroup(group)]) }
    /// ```
    case eventLoopGroup(EventLoopGroup)

    // MARK: Properties

    /// The description of this option.
    public var description: String {
        let description: String

        switch self {
        case .compress:
            description = "compress"
        case .connectParams:
            description = "connectParams"
        case .cookies:
            description = "cookies"
        case .extraHeaders:
            description = "extraHeaders"
        case .forceNew:
            description = "forceNew"
        case .forcePolling:
            description = "forcePolling"
        case .forceWebsockets:
            description = "forceWebsockets"
        case .handleQueue:
            description = "handleQueue"
        case .log:
            description = "log"
        case .logger:
            description = "logger"
        case .path:
            description = "path"
        case .reconnects:
            description = "reconnects"
        case .reconnectAttempts:
            description = "reconnectAttempts"
        case .reconnectWait:
            description = "reconnectWait"
        case .reconnectWaitMax:
            description = "reconnectWaitMax"
        case .randomizationFactor:
            description = "randomizationFactor"
        case .secure:
            description = "secure"
        case .selfSigned:
            description = "selfSigned"
        case .security:
            description = "security"
        case .sessionDelegate:
            description = "sessionDelegate"
        case .enableSOCKSProxy:
            description = "enableSOCKSProxy"
        case .useCustomEngine:
            description = "customEngine"
        case .version:
            description = "version"
        case .parser:
            description = "parser"
        case .sendBuffer:
            description = "sendBuffer"
        case .retries:
            description = "retries"
        case .ackTimeout:
            description = "ackTimeout"
        case .eventLoopGroup:
            description = "eventLoopGroup"
        }

        return description
    }

    // MARK: Operators

    /// Compares whether two options are the same.
    ///
    /// - parameter lhs: Left operand to compare.
    /// - parameter rhs: Right operand to compare.
    /// - returns: `true` if the two are the same option.
    public static func == (lhs: SocketIOClientOption, rhs: SocketIOClientOption) -> Bool {
        return lhs.description == rhs.description
    }
}
