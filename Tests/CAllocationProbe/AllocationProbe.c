// Counts the heap allocations of at least a given size that this test process makes while the
// probe is armed: how the tests count copies of a payload (TestSupport's LargeAllocationProbe).
//
// On Linux a function the executable defines takes precedence over the C library's, so these
// definitions see every malloc, calloc, realloc and aligned allocation of the process (the
// Swift runtime allocates its objects, Foundation its Data, through them) and hand each on to
// glibc's own entry points. Not with a sanitizer: ThreadSanitizer and AddressSanitizer
// interpose the allocator themselves, so there the probe reports itself unavailable.
#include "CAllocationProbe.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define REALTIME_PROBE_SANITIZED 1
#endif
#endif

#if defined(__linux__) && !defined(REALTIME_PROBE_SANITIZED)
#include <stdatomic.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static _Atomic size_t threshold = (size_t)-1;
static _Atomic size_t ceiling = (size_t)-1;
static _Atomic unsigned long counted;

// Called for each counted allocation: a place for a debugger's breakpoint, to see where a
// copy comes from (`break realtime_allocation_probe_counted`, then `bt`).
__attribute__((noinline)) void realtime_allocation_probe_counted(size_t size) {
    (void)size;
    atomic_fetch_add_explicit(&counted, 1, memory_order_relaxed);
}

static inline void observe(size_t size) {
    if (size >= atomic_load_explicit(&threshold, memory_order_relaxed) && size < atomic_load_explicit(&ceiling, memory_order_relaxed)) {
        realtime_allocation_probe_counted(size);
    }
}

void *malloc(size_t size) { observe(size); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { observe(count * size); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { observe(size); return __libc_realloc(pointer, size); }
void *memalign(size_t alignment, size_t size) { observe(size); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { observe(size); return __libc_memalign(alignment, size); }
int posix_memalign(void **result, size_t alignment, size_t size) {
    observe(size);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return 12; // ENOMEM
    *result = pointer;
    return 0;
}

int realtime_allocation_probe_available(void) { return 1; }

void realtime_allocation_probe_arm(size_t minimum_bytes, size_t below_bytes) {
    atomic_store_explicit(&counted, 0, memory_order_relaxed);
    atomic_store_explicit(&ceiling, below_bytes, memory_order_relaxed);
    atomic_store_explicit(&threshold, minimum_bytes, memory_order_relaxed);
}

unsigned long realtime_allocation_probe_disarm(void) {
    atomic_store_explicit(&threshold, (size_t)-1, memory_order_relaxed);
    return atomic_load_explicit(&counted, memory_order_relaxed);
}
#else
int realtime_allocation_probe_available(void) { return 0; }
void realtime_allocation_probe_arm(size_t minimum_bytes, size_t below_bytes) {
    (void)minimum_bytes;
    (void)below_bytes;
}
unsigned long realtime_allocation_probe_disarm(void) { return 0; }
#endif
