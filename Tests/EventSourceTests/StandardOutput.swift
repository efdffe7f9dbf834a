#if canImport(Glibc)
@preconcurrency import Glibc

/// C's `stdout`, for the seed's `fflush(stdout)`: Swift 6 rejects references to the mutable
/// global `stdout` itself. A declaration of the test module shadows the imported one.
var stdout: UnsafeMutablePointer<FILE>! { Glibc.stdout }
#endif
