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
#endif
