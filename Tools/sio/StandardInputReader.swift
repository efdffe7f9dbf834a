import Foundation

/// Reads stdin line by line on a thread of its own (a blocking read has no place on the
/// cooperative pool) and hands each line to `onLine`, then calls `onEnd` once at end of input.
enum StandardInputReader {
    static func start(onLine: @escaping @Sendable (String) -> Void, onEnd: @escaping @Sendable () -> Void) {
        let thread = Thread {
            while let line = readLine(strippingNewline: true) {
                onLine(line)
            }
            onEnd()
        }
        thread.name = "stdin"
        thread.start()
    }
}
