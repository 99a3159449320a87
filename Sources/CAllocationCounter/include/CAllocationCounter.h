#ifndef C_ALLOCATION_COUNTER_H
#define C_ALLOCATION_COUNTER_H

/// Counting of heap allocations for `h264 bench`, per thread: while a thread counts, every call
/// it makes to malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign (the Swift
/// runtime's included) adds one; other threads' calls do not. The calls go on to the C library's allocator unchanged.
/// Not in a sanitizer build (the sanitizer owns the allocator): then nothing is counted.
int h264_allocation_counting_available(void);
/// Starts counting, from zero, on the calling thread.
void h264_allocation_counting_begin(void);
/// Stops the calling thread's count; returns its allocations since the matching begin.
long h264_allocation_counting_end(void);

#endif
