#ifndef C_ALLOCATION_PROBE_H
#define C_ALLOCATION_PROBE_H

#include <stddef.h>

/// 1 when this test process counts its heap allocations (Linux, no sanitizer: the sanitizers
/// interpose the allocator themselves); 0 otherwise.
int realtime_allocation_probe_available(void);

/// Starts counting the allocations of at least `minimum_bytes` and fewer than `below_bytes`,
/// process-wide.
void realtime_allocation_probe_arm(size_t minimum_bytes, size_t below_bytes);

/// Stops counting and returns how many allocations were counted since the last arm.
unsigned long realtime_allocation_probe_disarm(void);

#endif
