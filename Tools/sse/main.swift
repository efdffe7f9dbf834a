// sse: a Server-Sent Events command-line client (`sse --help`). Built on the public
// EventSource API only; the command line is read by CommandLineSupport.
import CommandLineSupport
import Foundation

let formatter = HelpFormatter(SSEOptions.command)
let request: ToolRequest<SSEOptions>
do throws(UsageError) {
    request = try SSEOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    Console.standardError(formatter.usageError(error))
    exit(SSEExitStatus.usage.rawValue)
}

switch request {
case .help:
    Console.standardOutput(formatter.help)
    exit(SSEExitStatus.success.rawValue)
case .version:
    Console.standardOutput(formatter.version)
    exit(SSEExitStatus.success.rawValue)
case .run(let options):
    let status = await SSETool(options: options).run()
    exit(status.rawValue)
}
