/* The cuBLAS baseline of cureduce-bench: ?nrm2 (norm2) and, with --transform abs, ?asum (the sum of
 * |x|) and I?amax (the first index of the largest |x|) of f32 and f64, on the same buffer and
 * stream. Linked by the bench only, never by the library; built when Meson finds libcublas beside
 * nvcc. */
#ifndef CUREDUCE_CUBLAS_BASELINE_H
#define CUREDUCE_CUBLAS_BASELINE_H

#include <stddef.h>

#include "cureduce/cureduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cuBLAS's name for (op, transform, type), e.g. "Sasum", or NULL where it has none. */
const char *cureduce_cublas_name(cureduce_op op, cureduce_transform transform, cureduce_dtype type);

/* Enqueues it on `stream`, its result in device memory at `output` (I?amax: a 1-based int64);
 * `second`: y of ?dot (the product's sum), else unused. Returns 0, or -1 where cuBLAS has none or
 * fails. */
int cureduce_cublas_run(cureduce_op op, cureduce_transform transform, cureduce_dtype type, const void *input,
                        const void *second, size_t n, void *output, void *stream);

#ifdef __cplusplus
}
#endif

#endif
