import EngineIOProtocol
import Foundation

extension SocketEngineSpec {
    /// Sends `bytes` as one binary Engine.IO message with no text packet before it (the
    /// msgpack parser's packets), with upstream `write`'s outcomes: a refused write runs
    /// `completion` and reports `engineDidError` (or only runs it when not connected). Only
    /// `SocketEngine` can; another engine logs and drops it.
    func sendBinaryMessage(_ bytes: [UInt8], completion: (() -> Void)?) {
        guard let engine = self as? SocketEngine else {
            DefaultSocketLogger.Logger.error(
                "The msgpack parser needs SocketEngine: a binary message of \(bytes.count) bytes was not sent", type: "SocketParser")
            completion?()
            return
        }
        do {
            try engine.send(packets: [EnginePacket.binaryMessage(bytes)], completion: completion)
        } catch {
            engine.refused(error, completion: completion)
        }
    }
}
