// sio: a Socket.IO command-line client (`sio --help`). Built on the public SocketIO and
// SocketIOConcurrency APIs only; the command line is read by CommandLineSupport.
import CommandLineSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let formatter = HelpFormatter(SIOOptions.command)
let request: ToolRequest<SIOOptions>
do throws(UsageError) {
    request = try SIOOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    Console.standardError(formatter.usageError(error))
    exit(SIOExitStatus.usage.rawValue)
}

switch request {
case .help:
    Console.standardOutput(formatter.help)
    exit(SIOExitStatus.success.rawValue)
case .version:
    Console.standardOutput(formatter.version)
    exit(SIOExitStatus.success.rawValue)
case .run(let options):
    let status = await SIOTool(options: options, stdinIsTerminal: isatty(STDIN_FILENO) != 0).run()
    exit(status.rawValue)
}
