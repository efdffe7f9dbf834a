// Counts heap allocations and mutex acquisitions of a whole process, for the benchmarks'
// "allocations per ack" and "locks per ack" columns. Built by scripts/call-counters.sh into
// a shared object that the benchmark runs under LD_PRELOAD; the benchmark finds the two
// reader functions with dlsym and reports zeros when the object is not preloaded.
//
// Allocations: every malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign
// (the Swift runtime allocates through these). Locks: every pthread_mutex_lock and successful
// pthread_mutex_trylock (the package's LockedValue and Foundation's NSLock on Linux; Dispatch's
// own futex locks are not counted). Relaxed atomic counters: cheap, and exact per process.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static _Atomic unsigned long allocations;
static _Atomic unsigned long locks;

static void count_allocation(void) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); }

void *malloc(size_t size) { count_allocation(); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { count_allocation(); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { count_allocation(); return __libc_realloc(pointer, size); }
void *memalign(size_t alignment, size_t size) { count_allocation(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count_allocation(); return __libc_memalign(alignment, size); }
int posix_memalign(void **result, size_t alignment, size_t size) {
    count_allocation();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return 12; // ENOMEM
    *result = pointer;
    return 0;
}

typedef int (*mutex_function)(pthread_mutex_t *);
static mutex_function real_lock, real_trylock;

int pthread_mutex_lock(pthread_mutex_t *mutex) {
    if (real_lock == NULL) real_lock = (mutex_function)dlsym(RTLD_NEXT, "pthread_mutex_lock");
    atomic_fetch_add_explicit(&locks, 1, memory_order_relaxed);
    return real_lock(mutex);
}

int pthread_mutex_trylock(pthread_mutex_t *mutex) {
    if (real_trylock == NULL) real_trylock = (mutex_function)dlsym(RTLD_NEXT, "pthread_mutex_trylock");
    int result = real_trylock(mutex);
    if (result == 0) atomic_fetch_add_explicit(&locks, 1, memory_order_relaxed);
    return result;
}

unsigned long realtime_counter_allocations(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }
unsigned long realtime_counter_locks(void) { return atomic_load_explicit(&locks, memory_order_relaxed); }
