// sio: a Socket.IO command-line client (`sio --help`). Built on the public SocketIO and
// SocketIOConcurrency APIs only; the command line is read by CommandLineSupport.
import CommandLineSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let options = Console.options(SIOOptions.self, usageStatus: SIOExitStatus.usage.rawValue)
let status = await SIOTool(options: options, stdinIsTerminal: isatty(STDIN_FILENO) != 0).run()
exit(status.rawValue)
