// sse: a Server-Sent Events command-line client (`sse --help`). Built on the public
// EventSource API only; the command line is read by CommandLineSupport.
import CommandLineSupport
import Foundation

let options = Console.options(SSEOptions.self, usageStatus: SSEExitStatus.usage.rawValue)
let status = await SSETool(options: options).run()
exit(status.rawValue)
