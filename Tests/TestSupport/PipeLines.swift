import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads a child process's output pipe into a ``LineCollector`` with blocking reads on a thread
/// of its own, until end of file.
///
/// Not `FileHandle.readabilityHandler`: that installs a libdispatch read source on the pipe, and
/// tearing such a source down while the pipe's descriptor is closed and its number reused (a
/// server stopped, its `Process` and `Pipe` released) is a libdispatch use-after-free on Linux
/// that crashes the manager thread in `_dispatch_event_loop_drain`
/// (swiftlang/swift-corelibs-libdispatch#949; swiftlang/swift-tools-protocols#73 made the same
/// change for the same crash). A blocking read registers nothing with libdispatch, and the
/// thread keeps the read end open until it has seen end of file (docs/RELIABILITY.md).
enum PipeLines {
    static func collect(_ pipe: Pipe, into collector: LineCollector) {
        let handle = pipe.fileHandleForReading
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    collector.append(Data(buffer[0..<count]))
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break  // end of file, or the descriptor failed
                }
            }
            collector.finish()
            withExtendedLifetime(handle) {}
        }
        thread.name = "test server output"
        thread.start()
    }
}
