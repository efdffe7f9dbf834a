package import Foundation

/// `sse`'s exit statuses (shown by `sse --help`); 22 and 28 as curl's.
package enum SSEExitStatus: Int32, Sendable, CaseIterable {
    /// The stream ended: the server closed it (or answered 204), or `--max-events` was reached.
    case success = 0
    case usage = 1
    /// No HTTP response (refused, DNS, TLS), or the connection failed or went idle mid-stream.
    case connectionFailed = 2
    /// The server answered with another status than 200, or not with `text/event-stream`.
    case httpError = 22
    /// `--timeout` passed first.
    case timeout = 28

    var help: String {
        switch self {
        case .success: "The stream ended: the server closed it or answered 204, or --max-events events were printed."
        case .usage: "Usage error: unknown option, invalid value, unreadable --data @file or --cacert file."
        case .connectionFailed: "Connection failed or lost: no HTTP response (refused, DNS, TLS), a network error, or --idle-timeout."
        case .httpError: "HTTP error (as curl -f): a status other than 200, or a body that is not text/event-stream. The status is printed on stderr."
        case .timeout: "--timeout passed before the stream ended (as curl --max-time)."
        }
    }
}

/// `sse`'s command line, read into values (no I/O: `--data @file` is read by the tool).
package struct SSEOptions: ToolOptions {
    /// How events are printed.
    package enum Format: Sendable, Equatable {
        /// Each event's data, then a newline (`curl -N` shows the data lines).
        case plain
        /// `{"type":...,"data":...,"id":...}` per line.
        case json
    }

    /// Where the request body comes from.
    package enum Body: Sendable, Equatable {
        case text(String)
        /// `@path`: the file's bytes; `@-` is stdin.
        case file(String)
    }

    package var url: URL
    /// `nil`: GET, or POST with a body (as curl).
    package var method: String?
    package var headers: [HeaderField] = []
    package var body: Body?
    package var lastEventID: String?
    /// `nil`: EventSource's default (`ReconnectionPolicy.disabled`).
    package var reconnects: Bool?
    package var maximumEvents: Int?
    /// Seconds before the tool gives up (status 28).
    package var timeout: Double?
    /// EventSource's idle timeout in seconds; `nil`: the library's default (300).
    package var idleTimeout: Double?
    package var format = Format.plain
    package var silent = false
    /// `-k`: no TLS verification (`EventSource.Security.selfSigned`).
    package var insecure = false
    /// `--cacert`: a PEM file whose certificates are trusted besides the system's.
    package var caCertificatePath: String?

    package init(url: URL) {
        self.url = url
    }

    /// The method sent: the given one, else POST with a body, else GET.
    package var effectiveMethod: String { self.method ?? (self.body == nil ? "GET" : "POST") }
}

extension SSEOptions {
    /// `sse`'s options, help text and exit statuses.
    package static let command = CommandDescription(
        name: "sse",
        version: ToolVersion.current,
        abstract: "Stream Server-Sent Events from a URL and print each event.",
        discussion: """
            Prints each event's data followed by a newline, as 'curl -N' shows a stream's data, or with \
            --json one JSON line per event: {"type":"message","data":"...","id":"7"} (id null when the \
            stream has none). Progress (connecting, reconnecting) and HTTP errors go to stderr.

              sse http://localhost:8000/events
              sse --json -n 10 -H 'Authorization: Bearer abc' https://example.com/stream
              sse -X POST -H 'Content-Type: application/json' -d '{"prompt":"hi"}' https://example.com/chat
            """,
        arguments: [
            ArgumentDescription("url", help: "The event stream's URL (http or https; http:// when no scheme).")
        ],
        options: [
            OptionDescription(["--json"], help: "Print each event as a JSON line with type, data and id."),
            OptionDescription(["-X", "--method"], value: "method", help: "The request method (default: GET, or POST with --data)."),
            OptionDescription(["-H", "--header"], value: "name: value", help: "A request header (repeatable).", repeatable: true),
            OptionDescription(["-d", "--data"], value: "data", help: "The request body; @file reads it from a file, @- from stdin."),
            OptionDescription(["--last-event-id"], value: "id", help: "Send Last-Event-ID: resume after this event."),
            OptionDescription(
                ["--reconnect"],
                help:
                    "Reconnect after network errors and when the server ends the stream, with exponential backoff (3 s, doubling up to 30 s, or the server's retry:), sending Last-Event-ID."
            ),
            OptionDescription(["--no-reconnect"], help: "Make one connection (the default, as EventSource's default policy)."),
            OptionDescription(["-n", "--max-events"], value: "n", help: "Exit after printing <n> events."),
            OptionDescription(["-m", "--timeout"], value: "seconds", help: "Exit with status 28 after <seconds>, as curl --max-time."),
            OptionDescription(["--idle-timeout"], value: "seconds", help: "Fail when nothing arrives for <seconds> (default: 300)."),
            OptionDescription(["-s", "--silent"], help: "Print no progress on stderr (errors are still printed)."),
            OptionDescription(["-k", "--insecure"], help: "Do not verify the server's TLS certificate."),
            OptionDescription(["--cacert"], value: "file", help: "Also trust the PEM certificates in <file> (a private CA or a self-signed server)."),
        ],
        sections: [
            HelpSection(title: "Exit status", rows: SSEExitStatus.allCases.map { (label: String($0.rawValue), help: $0.help) })
        ])

    /// Interprets a parsed command line (see ``parse(_:)`` for the whole way from `[String]`).
    package static func options(from parsed: ParsedCommandLine) throws(UsageError) -> SSEOptions {
        var options = SSEOptions(url: try Self.url(parsed.arguments[0]))
        if let method = parsed.value("--method") {
            guard !method.isEmpty, method.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("a"..."z").contains($0) || $0 == "-" }) else {
                throw .invalidValue(option: parsed.spelling("--method"), value: method, reason: "expected a method name such as GET or POST")
            }
            options.method = method
        }
        options.headers = try parsed.headers("--header")
        if let data = parsed.value("--data") {
            options.body = data.hasPrefix("@") ? .file(String(data.dropFirst())) : .text(data)
        }
        options.lastEventID = parsed.value("--last-event-id")
        if parsed.flag("--reconnect") && parsed.flag("--no-reconnect") {
            throw .conflictingOptions("--reconnect", "--no-reconnect")
        }
        if parsed.flag("--reconnect") { options.reconnects = true }
        if parsed.flag("--no-reconnect") { options.reconnects = false }
        options.maximumEvents = try parsed.positiveInteger("--max-events")
        options.timeout = try parsed.seconds("--timeout")
        options.idleTimeout = try parsed.seconds("--idle-timeout")
        options.format = parsed.flag("--json") ? .json : .plain
        options.silent = parsed.flag("--silent")
        options.insecure = parsed.flag("--insecure")
        options.caCertificatePath = parsed.value("--cacert")
        return options
    }

    static func url(_ text: String) throws(UsageError) -> URL {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let components = URLComponents(string: withScheme),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty,
            let url = components.url
        else {
            throw .invalidValue(option: "<url>", value: text, reason: "expected an http or https URL")
        }
        return url
    }
}
