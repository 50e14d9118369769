/* What every test suite shares: running a libcheck suite (GPU suites skip with exit code 77 and a
 * reason, or fail when CUREDUCE_REQUIRE_GPU=1), a seeded random generator, host conversions for
 * f16 and bf16, and the host reference of every reduction in higher precision. */
#ifndef CUREDUCE_TEST_HARNESS_H
#define CUREDUCE_TEST_HARNESS_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cureduce/cureduce.h"

/* Runs the suite and returns the process exit code. GPU suites run without fork (CUDA does not
 * survive one) and first make sure a GPU is there: without one they return 77 after printing
 * why, unless CUREDUCE_REQUIRE_GPU=1, when they fail. */
int harness_run(Suite *suite, bool needs_gpu);

/* A context on device 0, made current for the calling thread together with the driver, so that
 * tests can allocate and copy; the test fails without one. */
#include "driver.h"
typedef struct harness_gpu {
  cureduce_context *context;
  const cureduce_driver *cu;
} harness_gpu;
harness_gpu harness_gpu_open(void);
void harness_gpu_close(harness_gpu *gpu);
/* Device memory helpers that fail the test on any driver error. */
CUdeviceptr harness_device_alloc(const harness_gpu *gpu, size_t bytes);
void harness_upload(const harness_gpu *gpu, CUdeviceptr to, const void *from, size_t bytes);
void harness_download(const harness_gpu *gpu, void *to, CUdeviceptr from, size_t bytes);

/* ---- random data --------------------------------------------------------------------------- */
/* The generator is seeded from CUREDUCE_TEST_SEED when set, else from the clock; the seed is
 * printed so a failure can be replayed. */
uint64_t harness_random(void);
/* Uniform in [low, high]. */
int64_t harness_random_range(int64_t low, int64_t high);
double harness_random_unit(void); /* [0, 1) */

/* ---- host conversions ------------------------------------------------------------------------ */
float harness_f16_to_float(uint16_t bits);
uint16_t harness_float_to_f16(float value); /* round to nearest even */
float harness_bf16_to_float(uint16_t bits);
uint16_t harness_float_to_bf16(float value); /* round to nearest even */

/* ---- data and reference ------------------------------------------------------------------- */
/* Fills count elements with fresh random data suited to the operation (never zeros or a
 * constant): for float sums, multiples of 2^-5 in [-1, 1], whose partial sums are exact in the
 * accumulator for every size tested (see harness.c); for float products, values near 1; for
 * integer products, odd values, so that wrap-around never collapses to 0; for min/max/arg,
 * values from a small grid so that ties occur. */
void harness_fill(cureduce_op op, cureduce_dtype type, void *data, size_t count);

/* The exact or higher-precision result of reducing data[0..n) as the library documents, in
 * the output type, and how far a correct result may be from it (0: bitwise). */
typedef struct harness_expected {
  cureduce_value value;
  double tolerance;     /* absolute, in the output type's units; 0 means bitwise equal */
} harness_expected;

harness_expected harness_reference(cureduce_op op, cureduce_dtype input, cureduce_dtype output, const void *data,
                                   size_t n);

/* true when `got` matches `expected` for (op, output); otherwise writes why into `why`. */
bool harness_matches(cureduce_op op, cureduce_dtype output, const cureduce_value *got,
                     const harness_expected *expected, char *why, size_t why_size);

/* The result as a double (or the index for arg ops, separately), for messages. */
double harness_value_as_double(cureduce_dtype type, const cureduce_value *value);

#endif
