import CAllocationProbe

/// Counts the heap allocations of at least a given size that the whole test process makes
/// while armed: how the tests count copies of a payload ("copies per event").
///
/// A whole copy of an N-byte payload (into a new array, string or `Data`, or by growing a
/// buffer past N) allocates at least N bytes. `CAllocationProbe` defines the C allocation
/// functions in the test executable, which on Linux take precedence over the C library's, and
/// counts those calls. Not counted: copies into memory that already exists (the kernel's copy
/// into a read buffer). Unavailable under a sanitizer and off Linux: tests skip with a reason.
///
/// Process-wide: arm it in a `.serialized` suite, with a payload size no other test uses.
package enum LargeAllocationProbe {
    /// Whether this process counts its allocations.
    package static var isAvailable: Bool { realtime_allocation_probe_available() != 0 }

    /// Counts the allocations of `sizes` (at least the payload's size, and below twice that:
    /// a buffer grown past the payload doubles at most; what other tests of the process
    /// allocate is mostly outside) from now until the returned function is called; that
    /// function disarms the probe and returns the count.
    package static func arm(sizes: Range<Int>) -> () -> Int {
        realtime_allocation_probe_arm(sizes.lowerBound, sizes.upperBound)
        return { Int(realtime_allocation_probe_disarm()) }
    }
}
