/* The per-thread scratch helpers of libsrc/common/parallel.h (acl_team_block / acl_team_alloc): every thread's block
 * starts on its own 64-byte line, for element sizes that divide a line and sizes that do not, holds at least the
 * elements asked for and less than one line more, comes zeroed when asked, and an unrepresentable size is refused
 * (NULL), not wrapped. Prints "team_alloc ok" and exits 0, else names the first failed case and exits 1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parallel.h"

static int fails;
#define CHECK(c, ...)                                                                                              \
    do {                                                                                                           \
        if (!(c)) {                                                                                                \
            if (!fails++) {                                                                                        \
                printf("FAILED: " __VA_ARGS__);                                                                    \
                printf("\n");                                                                                      \
            }                                                                                                      \
        }                                                                                                          \
    } while (0)

int main(void) {
    const size_t sizes[] = {1, 2, 3, 4, 6, 8, 12, 16, 20, 24, 32, 40, 48, 64, 96, 100, 128, 200};
    const int64_t lens[] = {-5, 0, 1, 2, 3, 7, 15, 16, 17, 31, 63, 64, 65, 100, 1000, 4097};
    for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
        for (size_t b = 0; b < sizeof lens / sizeof *lens; b++) {
            const size_t es = sizes[a];
            const int64_t n = lens[b], blk = acl_team_block(n, es), want = n > 0 ? n : 1;
            CHECK(blk >= want, "es %zu n %lld: block %lld < %lld", es, (long long)n, (long long)blk, (long long)want);
            CHECK((uint64_t)blk * es % 64 == 0, "es %zu n %lld: block of %lld bytes is not whole lines", es,
                  (long long)n, (long long)((uint64_t)blk * es));
            /* the smallest such block: one more line would be a waste (less than lcm(es, 64) bytes of slack) */
            size_t l = 64;
            while (l % es) l += 64;
            CHECK((uint64_t)(blk - want) * es < l, "es %zu n %lld: block %lld is not the smallest", es, (long long)n,
                  (long long)blk);
            for (int zero = 0; zero < 2; zero++)
                for (int64_t nt = 1; nt <= 7; nt += 3) {
                    unsigned char *p = acl_team_alloc(nt, n, es, zero);
                    CHECK(p != NULL, "es %zu n %lld nthr %lld: no memory", es, (long long)n, (long long)nt);
                    if (!p) continue;
                    for (int64_t t = 0; t < nt; t++)
                        CHECK((uintptr_t)(p + (size_t)t * (size_t)blk * es) % 64 == 0,
                              "es %zu n %lld: thread %lld's block is not on a line", es, (long long)n, (long long)t);
                    const size_t bytes = (size_t)nt * (size_t)blk * es;
                    if (zero)
                        for (size_t i = 0; i < bytes; i++) CHECK(p[i] == 0, "es %zu n %lld: byte %zu not zeroed", es,
                                                                 (long long)n, i);
                    memset(p, 0xa5, bytes); /* the whole size is there (the sanitizer build checks the bounds) */
                    free(p);
                }
        }
    CHECK(acl_team_alloc(2, INT64_MAX, 4, 0) == NULL, "INT64_MAX elements: not refused");
    CHECK(acl_team_alloc(INT64_MAX / 2, 1 << 20, 8, 0) == NULL, "a wrapping product: not refused");
    CHECK(acl_team_alloc(3, 1, 0, 0) == NULL, "element size 0: not refused");
    CHECK(acl_team_block(INT64_MAX, 1) < 0, "INT64_MAX bytes: rounded past the range");
    if (fails) return 1;
    printf("team_alloc ok\n");
    return 0;
}
