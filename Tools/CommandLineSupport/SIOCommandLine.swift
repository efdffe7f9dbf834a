package import EngineIOProtocol
package import Foundation

/// The version both tools print with `--version`.
package enum ToolVersion {
    package static let current = "0.1.0 (swift-realtime)"
}

/// `sio`'s exit statuses (shown by `sio --help`).
package enum SIOExitStatus: Int32, Sendable, CaseIterable {
    /// The emit was acknowledged (or sent, with `--no-ack`); stdin ended in interactive mode.
    ///
    /// SIGINT and SIGTERM are not handled: they end the process at once (no clean disconnect),
    /// and a shell reports 130 and 143 (``signalRows``).
    case success = 0
    case usage = 1
    /// No connection: refused, timed out, TLS failure, the namespace refused (CONNECT_ERROR).
    case connectionFailed = 2
    /// No ack within `--ack-timeout`.
    case ackTimeout = 3
    /// Connected, then disconnected for good: the server disconnected the socket, the
    /// connection dropped with `--no-reconnect`, or reconnection gave up.
    case disconnected = 4

    var help: String {
        switch self {
        case .success: "Success: the --emit was acknowledged (or sent, with --no-ack), or stdin ended in interactive mode."
        case .usage: "Usage error: unknown option, invalid value, unreadable --cacert file."
        case .connectionFailed:
            "Connection failed: refused, timed out (--connect-timeout), TLS failure, or the namespace refused the connection (its message and data are printed)."
        case .ackTimeout: "No ack within --ack-timeout (--emit)."
        case .disconnected: "Disconnected after connecting: by the server, or the connection dropped and was not (or could not be) re-established."
        }
    }

    /// What a shell reports when `sio` is stopped by a signal: it installs no handler, so the
    /// default action ends the process at once, and the status is 128 + the signal's number.
    static let signalRows: [(label: String, help: String)] = [
        (
            "130",
            "Interrupted (SIGINT, Ctrl-C): sio installs no signal handler, so the signal ends it at once, without a clean disconnect; the shell reports 128 + 2."
        ),
        ("143", "Terminated (SIGTERM): ended the same way; the shell reports 128 + 15."),
    ]
}

/// What `sio` does once connected.
package enum SIOMode: Sendable, Equatable {
    /// Emit one event, print its ack (unless `waitsForAck` is `false`), exit.
    case emit(event: String, arguments: [JSONValue], waitsForAck: Bool)
    /// Read `event [json ...]` lines from stdin and emit them; print events and acks.
    case interactive
    /// Print incoming events until disconnected.
    case listen
}

/// `sio`'s command line, read into values (no I/O: files named by options are read by the tool).
package struct SIOOptions: ToolOptions {
    package enum Transport: String, Sendable, CaseIterable {
        case auto, polling, websocket
    }

    /// The server's URL with an `http` or `https` scheme, without path and query.
    package var serverURL: URL
    /// The URL's query items, sent as connect parameters.
    package var connectParameters: [HeaderField] = []
    /// `nil`: the library's default (`/socket.io/`).
    package var path: String?
    /// Always starts with `/`.
    package var namespace = "/"
    package var transport = Transport.auto
    /// A JSON object.
    package var auth: JSONValue?
    package var headers: [HeaderField] = []
    package var insecure = false
    package var caCertificatePath: String?
    package var usesVersionTwo = false
    package var emitEvent: String?
    package var emitArguments: [JSONValue] = []
    package var waitsForAck = true
    package var ackTimeout: Double = 10
    package var connectTimeout: Double = 20
    package var interactive = false
    package var listenOnly = false
    package var reconnects = true
    /// `--reconnect-delay`: the manager's `reconnectWait`, whole seconds; `nil`: its default.
    package var reconnectDelay: Int?
    /// `--reconnect-delay-max`: the manager's `reconnectWaitMax`, whole seconds; `nil`: its default.
    package var reconnectDelayMax: Int?
    package var silent = false

    /// The manager's defaults for `reconnectWait` and `reconnectWaitMax` (socket.io-client-swift's).
    package static let defaultReconnectDelay = 10
    package static let defaultReconnectDelayMax = 30
    /// How often a connect still pending says so on stderr, in seconds.
    package static let stillConnectingInterval = 5

    package init(serverURL: URL) {
        self.serverURL = serverURL
    }

    /// The mode: `--emit`; else interactive with `-i` or when stdin is not a terminal (a pipe
    /// or a file), unless `--listen`; else listen.
    package func mode(stdinIsTerminal: Bool) -> SIOMode {
        if let event = self.emitEvent {
            return .emit(event: event, arguments: self.emitArguments, waitsForAck: self.waitsForAck)
        }
        if self.interactive { return .interactive }
        if self.listenOnly || stdinIsTerminal { return .listen }
        return .interactive
    }
}

extension SIOOptions {
    /// `sio`'s options, help text and exit statuses.
    package static let command = CommandDescription(
        name: "sio",
        version: ToolVersion.current,
        abstract: "Connect to a Socket.IO server, print incoming events as JSON lines, emit events.",
        discussion: """
            Every event the server sends is printed on stdout as one JSON line, {"event":"name","args":[...]}; \
            an ack as {"event":"name","ack":[...]}. Binary values are {"$binary":"<base64>"} (the same form \
            sends binary). Progress (connecting, still connecting every \(stillConnectingInterval) s, reconnecting, disconnected) goes to \
            stderr.

            Modes: with --emit, emit one event, print its ack and exit. Otherwise, with -i or when stdin is \
            not a terminal (unless --listen), read lines 'event [json ...]' from stdin (the event name as a \
            word or a JSON string, then whitespace-separated JSON arguments), emit each asking for an ack, \
            and exit 0 at the end of stdin once the acks are in (or timed out). Blank lines and lines whose \
            first character other than a space or tab is # are skipped (comments); a line that does not \
            parse is reported on stderr with its number and skipped. Otherwise print events until disconnected.

            Reconnection: when the connection drops after connecting, sio tries again at once, then waits \
            between tries --reconnect-delay seconds times 1.5 for each try made, plus up to half that again at \
            random, kept between --reconnect-delay and --reconnect-delay-max, until it connects again (it \
            prints 'reconnected'); with --no-reconnect it exits with status 4. A first connect that fails is not \
            retried: sio exits with status 2.

              sio http://localhost:3000 --auth '{"token":"abc"}'
              sio https://example.com/admin --emit message:send --data '"hello"' --data 42
              printf 'ping\\nmessage:send "hi" {"to":"all"}\\n' | sio ws://localhost:3000
            """,
        arguments: [
            ArgumentDescription(
                "url",
                help:
                    "The server: http, https, ws or wss (http:// when no scheme). A path names the namespace, as in the JavaScript client (http://host/admin joins /admin), unless --namespace is given; query items are sent as connect parameters."
            )
        ],
        options: [
            OptionDescription(["--path"], value: "path", help: "The server's Socket.IO path (default: /socket.io/)."),
            OptionDescription(["--namespace"], value: "namespace", help: "The namespace to join (default: the URL's path, else /)."),
            OptionDescription(
                ["--transport"], value: "transport", help: "polling, websocket or auto: polling, then an upgrade to WebSocket (default: auto)."),
            OptionDescription(["--auth"], value: "json", help: "The connect payload (auth), a JSON object."),
            OptionDescription(
                ["-H", "--header"], value: "name: value", help: "An HTTP header for the handshake and every request (repeatable).", repeatable: true),
            OptionDescription(["-k", "--insecure"], help: "Do not verify the server's TLS certificate."),
            OptionDescription(["--cacert"], value: "file", help: "Also trust the PEM certificates in <file> (a private CA or a self-signed server)."),
            OptionDescription(["--version2"], help: "Speak to a Socket.IO 2.x server (Engine.IO 3)."),
            OptionDescription(["-e", "--emit"], value: "event", help: "Emit <event> once, print its ack as a JSON line and exit."),
            OptionDescription(
                ["-d", "--data"], value: "json", help: "An argument of --emit as JSON, e.g. '\"text\"', 42 or '{\"a\":1}' (repeatable, in order).",
                repeatable: true),
            OptionDescription(["--ack-timeout"], value: "seconds", help: "How long to wait for an ack (default: 10)."),
            OptionDescription(["--no-ack"], help: "With --emit: ask for no ack; exit once the event is sent."),
            OptionDescription(["-i", "--interactive"], help: "Read 'event [json ...]' lines from stdin and emit them."),
            OptionDescription(["-l", "--listen"], help: "Only print incoming events; never read stdin."),
            OptionDescription(
                ["--connect-timeout"], value: "seconds",
                help: "Give up connecting after <seconds> (default: 20); meanwhile, every \(stillConnectingInterval) s, say so on stderr."),
            OptionDescription(["--no-reconnect"], help: "Do not reconnect when the connection drops: exit with status 4."),
            OptionDescription(
                ["--reconnect-delay"], value: "seconds",
                help: "The least wait between reconnection tries, in whole seconds (default: 10)."),
            OptionDescription(
                ["--reconnect-delay-max"], value: "seconds",
                help: "The most wait between reconnection tries, in whole seconds (default: 30, or --reconnect-delay when larger)."),
            OptionDescription(["-s", "--silent"], help: "Print no progress on stderr (errors are still printed)."),
        ],
        sections: [
            HelpSection(
                title: "Exit status",
                rows: SIOExitStatus.allCases.map { (label: String($0.rawValue), help: $0.help) } + SIOExitStatus.signalRows)
        ])

    /// Interprets a parsed command line (see ``parse(_:)`` for the whole way from `[String]`).
    package static func options(from parsed: ParsedCommandLine) throws(UsageError) -> SIOOptions {
        let (url, query, urlPath) = try Self.serverURL(parsed.arguments[0])
        var options = SIOOptions(serverURL: url)
        options.connectParameters = query
        options.path = parsed.value("--path")
        let namespace = parsed.value("--namespace") ?? urlPath
        options.namespace = namespace.hasPrefix("/") ? namespace : "/" + namespace
        if let transport = parsed.value("--transport") {
            guard let value = Transport(rawValue: transport.lowercased()) else {
                throw .invalidValue(option: "--transport", value: transport, reason: "expected polling, websocket or auto")
            }
            options.transport = value
        }
        if let auth = try parsed.json("--auth") {
            guard case .object = auth else {
                throw .invalidValue(option: "--auth", value: parsed.value("--auth") ?? "", reason: "expected a JSON object")
            }
            options.auth = auth
        }
        options.headers = try parsed.headers("--header")
        options.insecure = parsed.flag("--insecure")
        options.caCertificatePath = parsed.value("--cacert")
        options.usesVersionTwo = parsed.flag("--version2")
        options.emitEvent = parsed.value("--emit")
        options.emitArguments = try parsed.allJSON("--data")
        options.waitsForAck = !parsed.flag("--no-ack")
        options.ackTimeout = try parsed.seconds("--ack-timeout") ?? options.ackTimeout
        options.connectTimeout = try parsed.seconds("--connect-timeout") ?? options.connectTimeout
        options.interactive = parsed.flag("--interactive")
        options.listenOnly = parsed.flag("--listen")
        options.reconnects = !parsed.flag("--no-reconnect")
        try options.readReconnectDelays(parsed)
        options.silent = parsed.flag("--silent")

        let emit = parsed.spelling("--emit")
        if options.emitEvent == nil {
            for key in ["--data", "--no-ack"] where parsed.contains(key) {
                throw .requires(option: parsed.spelling(key), requirement: "--emit")
            }
        } else {
            for key in ["--interactive", "--listen"] where parsed.contains(key) {
                throw .conflictingOptions(emit, parsed.spelling(key))
            }
        }
        if options.interactive && options.listenOnly {
            throw .conflictingOptions(parsed.spelling("--interactive"), parsed.spelling("--listen"))
        }
        return options
    }

    /// `--reconnect-delay` and `--reconnect-delay-max`, as the manager's `reconnectWait` and
    /// `reconnectWaitMax` (whole seconds). Given one, the other follows it: the manager waits
    /// `max(reconnectWait, min(backoff, reconnectWaitMax))`, so a maximum below the minimum
    /// would be ignored.
    private mutating func readReconnectDelays(_ parsed: ParsedCommandLine) throws(UsageError) {
        let delay = try parsed.positiveInteger("--reconnect-delay")
        let delayMax = try parsed.positiveInteger("--reconnect-delay-max")
        guard delay != nil || delayMax != nil else { return }
        if !self.reconnects {
            let given = delay != nil ? "--reconnect-delay" : "--reconnect-delay-max"
            throw .conflictingOptions(parsed.spelling("--no-reconnect"), parsed.spelling(given))
        }
        if let delay, let delayMax, delayMax < delay {
            throw .invalidValue(
                option: parsed.spelling("--reconnect-delay-max"), value: String(delayMax),
                reason: "expected at least --reconnect-delay (\(delay))")
        }
        let wait = delay ?? min(Self.defaultReconnectDelay, delayMax ?? Self.defaultReconnectDelay)
        self.reconnectDelay = wait
        self.reconnectDelayMax = delayMax ?? max(Self.defaultReconnectDelayMax, wait)
    }

    /// The URL as the manager wants it (`http`/`https`, no path, no query), its query items, and
    /// its path (the namespace the JavaScript client would join; `/` when empty).
    static func serverURL(_ text: String) throws(UsageError) -> (URL, [HeaderField], String) {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard var components = URLComponents(string: withScheme),
            let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else {
            throw .invalidValue(option: "<url>", value: text, reason: "not a URL")
        }
        switch scheme {
        case "http", "ws": components.scheme = "http"
        case "https", "wss": components.scheme = "https"
        default:
            throw .invalidValue(option: "<url>", value: text, reason: "expected an http, https, ws or wss URL")
        }
        var path = components.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        let query = (components.queryItems ?? []).map { HeaderField(name: $0.name, value: $0.value ?? "") }
        components.path = ""
        components.query = nil
        components.fragment = nil
        guard let url = components.url else {
            throw .invalidValue(option: "<url>", value: text, reason: "not a URL")
        }
        return (url, query, path.isEmpty ? "/" : path)
    }
}

/// What a tool's command line asks for, with the tool's options.
package enum ToolRequest<Options: Sendable & Equatable>: Sendable, Equatable {
    case run(Options)
    case help
    case version
}

/// A tool's options: the command line it accepts and how its parsed arguments become options.
package protocol ToolOptions: Sendable, Equatable {
    static var command: CommandDescription { get }
    static func options(from parsed: ParsedCommandLine) throws(UsageError) -> Self
}

extension ToolOptions {
    /// Reads a whole command line: `.help`, `.version`, or the options.
    package static func parse(_ arguments: [String]) throws(UsageError) -> ToolRequest<Self> {
        switch try CommandLineParser.parse(arguments, for: Self.command) {
        case .help: return .help
        case .version: return .version
        case .run(let parsed): return .run(try Self.options(from: parsed))
        }
    }
}
