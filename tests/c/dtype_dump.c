/* Dumps the library's fp16/bf16 conversions (the inline ones kernels use) for the exhaustive dtype test.
 * usage: dtype_dump IN.bin OUT_F16_TO_F32.bin OUT_F32_TO_F16.bin OUT_F32_TO_BF16.bin
 * IN.bin holds float32 values to narrow; all 65536 half patterns are widened. */
#include <stdio.h>
#include <stdlib.h>
#include "common/dtype.h"

int main(int argc, char **argv) {
    if (argc != 5) return 2;
    FILE *in = fopen(argv[1], "rb");
    if (!in) return 3;
    fseek(in, 0, SEEK_END);
    long n = ftell(in) / 4;
    fseek(in, 0, SEEK_SET);
    float *x = malloc((size_t)n * 4 + 4);
    if (fread(x, 4, (size_t)n, in) != (size_t)n) return 4;
    fclose(in);
    FILE *a = fopen(argv[2], "wb"), *b = fopen(argv[3], "wb"), *c = fopen(argv[4], "wb");
    for (uint32_t h = 0; h < 65536; h++) {
        float f = acl_f16_to_f32((uint16_t)h);
        fwrite(&f, 4, 1, a);
    }
    for (long i = 0; i < n; i++) {
        uint16_t h = acl_f32_to_f16(x[i]), bf = acl_f32_to_bf16(x[i]);
        fwrite(&h, 2, 1, b);
        fwrite(&bf, 2, 1, c);
    }
    fclose(a); fclose(b); fclose(c);
    free(x);
    return 0;
}
