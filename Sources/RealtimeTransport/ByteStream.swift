/// A connected, ordered, reliable byte stream: TCP, or TLS over TCP.
///
/// The native implementations (RealtimeIO's `TCPStream` and `TLSStream`) are driven by the
/// process-wide event loop; every method suspends instead of blocking a thread.
///
/// - Important: Reads are pulled: the socket is read only while a caller waits in
///   ``read(maxLength:)``, so a consumer that stops reading stops the peer through TCP
///   flow control (backpressure). One reader and one writer may run concurrently;
///   two concurrent readers (or writers) are a programming error reported as
///   ``NetworkError/Kind-swift.enum/concurrentOperation``.
package protocol ByteStream: AnyObject, Sendable {
    /// Reads at least one byte and at most `maxLength` bytes.
    ///
    /// A read or write that waits honours its task's cancellation: the stream is shut down
    /// (later reads and writes fail) and the call throws, so a caller needs no cancellation
    /// handler of its own. A read may still return bytes already buffered to a cancelled task,
    /// and a write that the kernel takes at once completes.
    /// - Returns: the bytes read, or an empty array once the peer closed its side (EOF).
    func read(maxLength: Int) async throws(NetworkError) -> [UInt8]

    /// Writes all of `bytes`; returns once the kernel (or TLS layer) accepted every byte.
    /// Cancellation: as for ``read(maxLength:)``.
    func write(_ bytes: [UInt8]) async throws(NetworkError)

    /// Writes on the calling thread, without suspending, as much of `bytes` as the stream takes
    /// right now; the caller finishes the rest with ``write(_:)``.
    ///
    /// For a sender on a thread that is not the event loop's (a Dispatch queue delivering a
    /// user's handler): a small write costs one system call there instead of waking the loop.
    ///
    /// - Returns: how many leading bytes of `bytes` were taken: `bytes.count`, fewer when the
    ///   kernel's buffer is full, or 0 when another write is in progress (then nothing was
    ///   written). Never blocks.
    /// - Throws: the same errors as ``write(_:)``, without waiting for anything.
    func writeImmediately(_ bytes: [UInt8]) throws(NetworkError) -> Int

    /// `false` when ``writeImmediately(_:)`` never takes bytes (callers skip preparing them).
    var supportsImmediateWrites: Bool { get }

    /// Closes the stream. Idempotent; pending reads and writes fail with `.closed`.
    func close()
}

extension ByteStream {
    /// Takes nothing: every write goes through ``write(_:)``.
    package func writeImmediately(_ bytes: [UInt8]) throws(NetworkError) -> Int { 0 }

    package var supportsImmediateWrites: Bool { false }
}
