// Socket.IO client benchmark: the SocketIO library next to python-socketio's AsyncClient,
// against the same python-socketio server. Release build only; run `scripts/bench-socketio.sh`
// (it builds, starts Tests/Servers/bench_sio_server.py and runs the rounds).
//
//   SocketIOBenchmark compare <port> [--rounds R] [--acks N] [--warmup W] [--emits M]
//                             [--python PATH] [--python-client PATH]
//       Alternates `SocketIOBenchmark client` and the Python client for R rounds; prints a table.
//   SocketIOBenchmark client <port> [--acks N] [--warmup W] [--emits M] [--transports websocket,polling]
//                            [--apis callback,callback-deadline,async,async-loop] [--ack-timeout S]
//       Measures the Swift client (the callback API, then SocketIOConcurrency's async
//       emitWithAck, each on its own manager); prints one JSON line per transport and API.
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes one line to stdout unbuffered (the driver's output is read line by line through pipes).
func say(_ line: String = "") {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())

/// The value after `--name`, or `fallback`.
func option(_ name: String, _ fallback: String) -> String {
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count else { return fallback }
    return arguments[index + 1]
}

func intOption(_ name: String, _ fallback: Int) -> Int { Int(option(name, "\(fallback)")) ?? fallback }

func usage() -> Never {
    say(
        "usage: SocketIOBenchmark compare <port> [--rounds R] [--acks N] [--warmup W] [--emits M] "
            + "[--python PATH] [--python-client PATH]\n"
            + "       SocketIOBenchmark client <port> [--acks N] [--warmup W] [--emits M] [--transports websocket,polling] "
            + "[--apis callback,callback-deadline,async,async-loop] [--ack-timeout S]")
    exit(2)
}

guard arguments.count >= 2, let port = Int(arguments[1]) else { usage() }

switch arguments[0] {
case "client":
    var failed = false
    for transport in option("transports", "websocket,polling").split(separator: ",").map(String.init) {
        for api in option("apis", "callback,async").split(separator: ",").map(String.init) {
            let run = SwiftClientRun(
                port: port, transport: transport, api: api, ackDeadline: Double(option("ack-timeout", "60")) ?? 60)
            do {
                let result = try run.measure(
                    acks: intOption("acks", 1000), warmup: intOption("warmup", 100),
                    emits: intOption("emits", 2000))
                say(result.jsonLine())
            } catch {
                FileHandle.standardError.write(Data("swift client \(transport) \(api): \(error)\n".utf8))
                failed = true
            }
        }
    }
    exit(failed ? 1 : 0)
case "compare":
    Comparison(
        port: port, rounds: intOption("rounds", 5), acks: intOption("acks", 1000),
        warmup: intOption("warmup", 100), emits: intOption("emits", 2000),
        python: option("python", ".venv/bin/python"),
        pythonClient: option("python-client", "Tests/Servers/bench_sio_python_client.py")
    ).run()
default:
    usage()
}
