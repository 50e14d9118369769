/* The CUB baseline of cureduce-bench: cub::DeviceReduce on the same buffer, in the same process.
 * Built by nvcc (tools/cub_*.cu) only when Meson finds CUDA; the only CUDA C++ outside
 * kernel_templates/. */
#ifndef CUREDUCE_CUB_BASELINE_H
#define CUREDUCE_CUB_BASELINE_H

#include <stddef.h>
#include <stdint.h>

#include "cureduce/cureduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues cub::DeviceReduce for (op, input type) into the accumulator type (sum, prod) or the
 * input type (min, max; argmin and argmax with the int64 index at byte 8) on `stream`. With temp
 * NULL, only sets *temp_bytes. Returns a cudaError_t: 0 on success, -1 for an unknown (op, type). */
int cureduce_cub_reduce(cureduce_op op, cureduce_dtype type, const void *input, size_t n, void *output, void *temp,
                        size_t *temp_bytes, void *stream);

/* cub::DeviceSegmentedReduce::Reduce with + into the accumulator type, from 0, over `segments`
 * segments: with begin and end NULL, rows of `cols` elements `leading` apart (CUB 3.0.1 takes
 * offsets only: these are computed on the fly from a counting iterator); else the offset arrays.
 * Same conventions as cureduce_cub_reduce. */
int cureduce_cub_segmented_sum(cureduce_dtype type, const void *input, size_t segments, size_t cols, size_t leading,
                               const int64_t *begin, const int64_t *end, void *output, void *temp, size_t *temp_bytes,
                               void *stream);

/* CUB against a transform (cureduce_transform) on a float type: sum, max and argmax of abs (L1, amax,
 * i?amax), sum of square, sum of nonzero (a u64 count), into the float accumulator type (f32, or
 * f64 for f64; argmax: that value and the int64 index at byte 8). -1 for any other combination. */
int cureduce_cub_transform_reduce(cureduce_op op, cureduce_transform transform, cureduce_dtype type, const void *input,
                                  size_t n, void *output, void *temp, size_t *temp_bytes, void *stream);

/* CUB's version, e.g. 300001 for 3.0.1. */
int cureduce_cub_version(void);

#ifdef __cplusplus
}
#endif

#endif
