/*
 * What a copy with ordinary stores reaches against one memcpy of a whole buffer, on this machine.
 *
 *   cc -O2 -march=native -o copy-ceiling Docs/copy-ceiling.c && ./copy-ceiling small-nal.264
 *
 * The benchmark executable (H264Benchmarks) compares every layer with memcpy of the whole stream into a buffer of the same
 * size. For buffers of hundreds of MB, glibc's memcpy writes with non-temporal stores (the target
 * is not read into the cache first). A job that writes its output in pieces as it goes
 * (Annex-B -> AVCC writes one NAL unit at a time) gets ordinary stores, which read every target
 * cache line before writing it. This program measures that ceiling: memcpy of the same bytes in
 * pieces of 1,300 bytes (the stream's mean NAL unit), 64 KiB and 1 MiB, and a plain loop of
 * 32-byte copies, each as a ratio of the whole-buffer memcpy, best of 5 runs, by this thread's
 * CPU time (as the benchmark executable measures).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Through a volatile pointer, so the compiler cannot drop or merge the copies. */
static void *(*volatile copy)(void *, const void *, size_t) = memcpy;

static void copy_in_pieces(uint8_t *out, const uint8_t *in, size_t n, size_t piece) {
    for (size_t i = 0; i < n; i += piece) copy(out + i, in + i, n - i < piece ? n - i : piece);
}

__attribute__((noinline)) static void copy_loop(uint8_t *restrict out, const uint8_t *restrict in, size_t n) {
    size_t i = 0;
    for (; i + 32 <= n; i += 32) __builtin_memcpy(out + i, in + i, 32);
    for (; i < n; i++) out[i] = in[i];
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: copy-ceiling FILE\n"); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *in = malloc(n), *out = malloc(n);
    if (!in || !out || fread(in, 1, n, f) != n) { fprintf(stderr, "cannot read %s\n", argv[1]); return 1; }
    fclose(f);
    memset(out, 1, n);  /* touched once, like the bench's targets */

    const size_t pieces[] = {1300, 64 << 10, 1 << 20};
    double best[5] = {1e9, 1e9, 1e9, 1e9, 1e9};
    for (int run = 0; run < 5; run++) {
        double t[6];
        t[0] = cpu_seconds();
        copy(out, in, n);
        t[1] = cpu_seconds();
        for (int k = 0; k < 3; k++) { copy_in_pieces(out, in, n, pieces[k]); t[2 + k] = cpu_seconds(); }
        copy_loop(out, in, n);
        t[5] = cpu_seconds();
        for (int k = 0; k < 5; k++) if (t[k + 1] - t[k] < best[k]) best[k] = t[k + 1] - t[k];
    }
    if (out[n / 2] != in[n / 2]) return 1;
    const char *names[] = {"memcpy, whole buffer", "memcpy, 1,300-byte pieces", "memcpy, 64 KiB pieces",
                           "memcpy, 1 MiB pieces", "loop of 32-byte copies"};
    for (int k = 0; k < 5; k++)
        printf("%-28s %6.2f GB/s  %.2fx\n", names[k], (double)n / best[k] / 1e9, best[0] / best[k]);
    return 0;
}
