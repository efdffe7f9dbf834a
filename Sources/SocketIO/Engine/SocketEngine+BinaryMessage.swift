import EngineIOProtocol
import Foundation

extension SocketEngineSpec {
    /// Sends `bytes` as one binary Engine.IO message with no text packet before it (the
    /// msgpack parser's packets). Only `SocketEngine` can; another engine logs and drops it.
    func sendBinaryMessage(_ bytes: [UInt8], completion: (() -> Void)?) {
        guard let engine = self as? SocketEngine else {
            DefaultSocketLogger.Logger.error(
                "The msgpack parser needs SocketEngine: a binary message of \(bytes.count) bytes was not sent", type: "SocketParser")
            completion?()
            return
        }
        engine.write(packets: [EnginePacket.binaryMessage(bytes)], completion: completion)
    }
}
