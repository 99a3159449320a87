#ifndef C_ALLOCATION_COUNTER_H
#define C_ALLOCATION_COUNTER_H

/// Counting of heap allocations for `h264 bench`: while counting is on, every call to
/// malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign in the process (the
/// Swift runtime's included) adds one. The calls go on to the C library's allocator unchanged.
/// Not in a sanitizer build (the sanitizer owns the allocator): then nothing is counted.
int h264_allocation_counting_available(void);
/// Starts counting from zero.
void h264_allocation_counting_begin(void);
/// Stops counting; returns the number of allocations since the matching begin.
long h264_allocation_counting_end(void);

#endif
