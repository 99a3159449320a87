// Counts heap allocations for `h264 bench` by interposing the C allocator's entry points in the
// executable: the dynamic linker resolves every library's malloc (the Swift runtime's
// swift_slowAlloc included) to these, which count (only while the calling thread counts: one
// thread-local load otherwise) and forward to the C library's own functions, __libc_malloc and friends.
#include "CAllocationCounter.h"

#include <stddef.h>

// Under a sanitizer the sanitizer's runtime owns these entry points: interposing them here would
// hand its free() memory it never allocated. The count is then unavailable.
#if defined(__has_feature)
#  if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#    define H264_ALLOCATION_COUNTING 0
#  endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#  undef H264_ALLOCATION_COUNTING
#  define H264_ALLOCATION_COUNTING 0
#endif
#ifndef H264_ALLOCATION_COUNTING
#  define H264_ALLOCATION_COUNTING 1
#endif

int h264_allocation_counting_available(void) {
    return H264_ALLOCATION_COUNTING;
}

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

// Per thread: a count sees only the allocations of the thread that began it, not those of other
// threads of the process (a test runner's parallel tests, a library's worker threads). Initial-exec
// TLS of the executable lives in the thread's static block, so reading it from inside malloc never
// allocates (glibc's own malloc keeps its caches the same way).
static _Thread_local int counting __attribute__((tls_model("initial-exec")));
static _Thread_local long allocations __attribute__((tls_model("initial-exec")));

static inline void note(void) {
    if (counting) allocations += 1;
}

void h264_allocation_counting_begin(void) {
    allocations = 0;
    counting = 1;
}

long h264_allocation_counting_end(void) {
    counting = 0;
    return allocations;
}

#if H264_ALLOCATION_COUNTING
void *malloc(size_t size) {
    note();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    note();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    note();
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    note();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    note();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    // EINVAL (22) for an alignment that is not a power of two multiple of sizeof(void *).
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return 22;
    note();
    void *p = __libc_memalign(alignment, size);
    if (p == NULL && size != 0) return 12;  // ENOMEM
    *result = p;
    return 0;
}
#endif
