#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A growable byte buffer for the parser's line and data buffers: appends are one `memcpy`,
/// growth uses `realloc` (which remaps instead of copying for large buffers), and emptying
/// it only resets the count. A value type with copy-on-write storage.
///
/// Not RealtimeEncoding's `InputByteBuffer` (the unconsumed input of the other codecs): the
/// parser scans the caller's chunks in place and holds no unconsumed input with a read
/// position, only what it assembles (a line cut by a chunk boundary, an event's data, which may
/// reach many megabytes). Measured on that array-backed type (CodecBenchmark, issue 34): as the
/// data buffer, one 16 MiB event in 64 KiB pointer reads parsed 10 to 15% slower (array
/// growth instead of `realloc` and the huge-page mapping); as the line buffer alone, 64-byte
/// events cut into 61-byte reads parsed about 3.5% slower.
struct ByteBuffer: @unchecked Sendable {
    // @unchecked: the storage is only mutated after `isKnownUniquelyReferenced` confirmed
    // this value owns it alone; shared storage is copied first.
    private final class Storage {
        var pointer: UnsafeMutableRawPointer?
        var count = 0
        var capacity = 0
        /// The bytes live in a private mapping (see `growMapped`) rather than the malloc heap.
        var isMapped = false

        init() {}

        func copy() -> Storage {
            let copy = Storage()
            if self.count > 0 {
                copy.reserve(self.count)
                copy.pointer!.copyMemory(from: self.pointer!, byteCount: self.count)
                copy.count = self.count
            }
            return copy
        }

        func reserve(_ minimum: Int) {
            guard minimum > self.capacity else { return }
            let capacity = max(minimum, self.capacity * 2, 256)
            if capacity >= ByteBuffer.mappingThreshold, self.growMapped(to: capacity) { return }
            guard !self.isMapped, let grown = realloc(self.pointer, capacity) else {
                // Out of memory: there is no way to continue a parse.
                preconditionFailure("out of memory growing an event-stream buffer to \(capacity) bytes")
            }
            self.pointer = grown
            self.capacity = capacity
        }

        /// Moves the bytes to (or grows) a private anonymous mapping with transparent huge
        /// pages requested on the whole mapping before any page is touched.
        ///
        /// `malloc`/`realloc` cannot do this: advising part of a malloc'd chunk splits its
        /// mapping, after which glibc's `mremap` growth fails and every doubling copies into
        /// fresh 4 KiB-faulted pages (measured: ~40,000 page faults per 64 MiB event). The
        /// mapping reserves address space generously (``ByteBuffer/mappingReservation``) so
        /// a growing event is never copied again; only the pages written are backed.
        /// Returns `false` when the system refuses the mapping (the caller falls back to `realloc`).
        private func growMapped(to minimum: Int) -> Bool {
            #if os(Linux)
            let hugePage = ByteBuffer.hugePageSize
            let wanted = max(minimum, self.isMapped ? self.capacity * 4 : ByteBuffer.mappingReservation)
            let size = (wanted + hugePage - 1) & ~(hugePage - 1)
            // Over-allocate by one huge page so the usable part starts on a huge-page boundary.
            let raw = mmap(nil, size + hugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
            guard let raw, raw != MAP_FAILED else { return false }
            let address = Int(bitPattern: raw)
            let aligned = (address + hugePage - 1) & ~(hugePage - 1)
            if aligned > address { munmap(raw, aligned - address) }
            let tail = aligned + size
            let end = address + size + hugePage
            if end > tail, let tailPointer = UnsafeMutableRawPointer(bitPattern: tail) { munmap(tailPointer, end - tail) }
            guard let region = UnsafeMutableRawPointer(bitPattern: aligned) else { return false }
            _ = madvise(region, size, MADV_HUGEPAGE)
            if let old = self.pointer {
                if self.count > 0 { region.copyMemory(from: old, byteCount: self.count) }
                self.release(old)
            }
            self.pointer = region
            self.capacity = size
            self.isMapped = true
            return true
            #else
            return false
            #endif
        }

        private func release(_ pointer: UnsafeMutableRawPointer) {
            #if os(Linux)
            if self.isMapped {
                munmap(pointer, self.capacity)
                return
            }
            #endif
            free(pointer)
        }

        deinit {
            if let pointer = self.pointer { self.release(pointer) }
        }
    }

    /// Results at least this large ask for transparent huge pages: a multi-megabyte event
    /// then costs a few page faults instead of one per 4 KiB.
    static let hugePageThreshold = 4 << 20
    /// Buffers growing past this size move to their own huge-page mapping.
    static let mappingThreshold = 2 << 20
    /// Address space reserved by the first mapping (not memory: pages are backed when written).
    static let mappingReservation = 256 << 20
    /// The transparent huge page size on x86-64 and most arm64 kernels.
    static let hugePageSize = 2 << 20

    /// `madvise(MADV_HUGEPAGE)` on the whole pages inside `pointer ..< pointer + byteCount`.
    static func adviseHugePages(_ pointer: UnsafeMutableRawPointer, byteCount: Int) {
        #if os(Linux)
        let page = 4096
        let start = (Int(bitPattern: pointer) + page - 1) & ~(page - 1)
        let end = (Int(bitPattern: pointer) + byteCount) & ~(page - 1)
        guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(aligned, end - start, MADV_HUGEPAGE)
        #endif
    }

    /// `nil` until the first append, so an empty buffer costs no allocation.
    private var storage: Storage?

    init() {}

    var count: Int { self.storage?.count ?? 0 }
    var isEmpty: Bool { self.count == 0 }

    /// The storage, allocated or copied so that this value owns it alone.
    @inline(__always)
    private mutating func uniqueStorage() -> Storage {
        if isKnownUniquelyReferenced(&self.storage), let storage = self.storage {
            return storage
        }
        if let shared = self.storage {
            let copy = shared.copy()
            self.storage = copy
            return copy
        }
        let storage = Storage()
        self.storage = storage
        return storage
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let storage = self.uniqueStorage()
        storage.reserve(storage.count + bytes.count)
        (storage.pointer! + storage.count).copyMemory(from: base, byteCount: bytes.count)
        storage.count += bytes.count
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        let storage = self.uniqueStorage()
        storage.reserve(storage.count + 1)
        storage.pointer!.storeBytes(of: byte, toByteOffset: storage.count, as: UInt8.self)
        storage.count += 1
    }

    /// Empties the buffer, keeping up to `retainedCapacity` bytes of storage for reuse.
    @inline(__always)
    mutating func removeAll(retainedCapacity: Int) {
        guard isKnownUniquelyReferenced(&self.storage), let storage = self.storage,
            storage.capacity <= retainedCapacity
        else {
            self.storage = nil
            return
        }
        storage.count = 0
    }

    /// Calls `body` with the bytes `range` of the buffer.
    @inline(__always)
    func withBytes<Result, Failure: Error>(
        _ range: Range<Int>,
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        precondition(range.lowerBound >= 0 && range.upperBound <= self.count)
        guard let pointer = self.storage?.pointer else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return try body(UnsafeRawBufferPointer(start: pointer + range.lowerBound, count: range.count))
    }

    /// Whether the buffer starts with `data:`.
    var startsWithDataColon: Bool {
        guard let pointer = self.storage?.pointer, self.count >= 5 else { return false }
        return ByteScanning.startsWithDataColon(UnsafeRawBufferPointer(start: pointer, count: 5))
    }
}
