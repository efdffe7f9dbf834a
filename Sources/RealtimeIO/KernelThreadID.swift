#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import Glibc

/// The calling thread's kernel id (its entry under `/proc/self/task`), read from the
/// `/proc/thread-self` link (`gettid` needs `_GNU_SOURCE`, which Swift's Glibc module does not
/// set); `0` when `/proc` is not mounted. Tests check that a loop's thread is gone with it.
func currentKernelThreadID() -> Int32 {
    var buffer = [CChar](repeating: 0, count: 64)
    let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
    guard count > 0 else { return 0 }
    let link = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return link.split(separator: "/").last.flatMap { Int32($0) } ?? 0
}

/// Names the calling thread (its `/proc/self/task/<id>/comm`, at most 15 bytes), so `top -H`,
/// `perf` and the scale runs (`ThreadCPU`) tell a loop's thread from the others; a thread
/// otherwise inherits the name of the thread that made it (a Dispatch worker's, say).
/// Written through `/proc/thread-self/comm`: `pthread_setname_np` and `prctl` are not
/// reachable from Swift's Glibc module (`_GNU_SOURCE`; a variadic function). Nothing happens
/// where `/proc` is not mounted.
func nameCurrentThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}
#endif
