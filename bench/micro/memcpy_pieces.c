// Micro-benchmark behind the forward copy loops of mpi/walk.c and lib/matrix/copy.c: 64 MiB copied
// in pieces of P bytes (256 B to 8 KiB, back to back), by glibc's memcpy and by a forward loop of
// unaligned 16-byte moves, with the destination D bytes ahead of the source modulo 4 KiB (both
// buffers 2 MiB-aligned, huge pages advised). Prints GB/s, best of 5, per piece size. Not part of
// the tool: `make micro` builds it (build/bin/); by hand:
//   cc -O2 bench/micro/memcpy_pieces.c -o build/bin/memcpy_pieces
//   build/bin/memcpy_pieces [D ...]      (default: 0 64 512 2048)
#include <emmintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void forward(char *d, const char *s, size_t n)
{
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        for (int k = 0; k < 64; k += 16)
            _mm_storeu_si128((__m128i *)(void *)(d + i + k),
                             _mm_loadu_si128((const __m128i *)(const void *)(s + i + k)));
    memcpy(d + i, s + i, n - i);
}

static char *buffer(size_t bytes)
{
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        exit(1);
    (void)madvise(p, bytes, MADV_HUGEPAGE);
    memset(p, 1, bytes);
    return p;
}

int main(int argc, char **argv)
{
    const size_t total = (size_t)64 << 20, sizes[] = {256, 512, 1024, 1536, 2048, 3072, 4096, 8192};
    int offsets[16] = {0, 64, 512, 2048}, noff = 4;
    if (argc > 1) {
        noff = argc - 1 < 16 ? argc - 1 : 16;
        for (int i = 0; i < noff; i++)
            offsets[i] = atoi(argv[i + 1]) & 4095;
    }
    char *src = buffer(total + 4096), *dst0 = buffer(total + 8192);
    printf("memcpy_pieces: 64 MiB in pieces of P bytes, GB/s (best of 5)\n%-22s", "D, copy \\ P");
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        printf("%7zu", sizes[i]);
    printf("\n");
    for (int o = 0; o < noff; o++)
        for (int how = 0; how < 2; how++) {
            char *dst = dst0 + offsets[o];
            printf("%4d, %-16s", offsets[o], how ? "forward loop" : "memcpy");
            for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
                double best = 1e30;
                for (int rep = 0; rep < 5; rep++) {
                    double t0 = now();
                    for (size_t off = 0; off < total; off += sizes[i])
                        if (how)
                            forward(dst + off, src + off, sizes[i]);
                        else
                            memcpy(dst + off, src + off, sizes[i]);
                    double t = now() - t0;
                    best = t < best ? t : best;
                }
                printf("%7.1f", (double)total / best / 1e9);
            }
            printf("\n");
        }
    return 0;
}
