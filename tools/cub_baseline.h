/* The CUB baseline of cureduce-bench: cub::DeviceReduce on the same buffer, in the same process.
 * Built by nvcc (tools/cub_*.cu) only when Meson finds CUDA; the only CUDA C++ outside
 * kernel_templates/. */
#ifndef CUREDUCE_CUB_BASELINE_H
#define CUREDUCE_CUB_BASELINE_H

#include <stddef.h>

#include "cureduce/cureduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues cub::DeviceReduce for (op, input type) into the accumulator type (sum, prod) or the
 * input type (min, max; argmin and argmax with the int64 index at byte 8) on `stream`. With temp
 * NULL, only sets *temp_bytes. Returns a cudaError_t: 0 on success, -1 for an unknown (op, type). */
int cureduce_cub_reduce(cureduce_op op, cureduce_dtype type, const void *input, size_t n, void *output, void *temp,
                        size_t *temp_bytes, void *stream);

/* CUB's version, e.g. 300001 for 3.0.1. */
int cureduce_cub_version(void);

#ifdef __cplusplus
}
#endif

#endif
