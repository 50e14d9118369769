/* Exact sums on the GPU, bit for bit against the host's exact reference (tools/reference_exact.c,
 * itself checked against exact rationals by exact_reference.py), on fresh random data built to be
 * hard: every finite value of the type at once, heavy cancellation, sums at a rounding tie,
 * subnormal inputs and results, results at the edge of overflow, NaN and infinities, huge and tiny
 * values alternating. Each through every spec the tuner may pick (so every configuration gives the
 * same bits), the plan's own choice, the shortcut, two streams and two input alignments; then
 * grids small enough that each thread's bands are moved into the superaccumulator mid-loop; exact
 * partials (i64 output) that every spec writes alike and that combine to the whole's sum; f16
 * beyond 2^32 elements where the device has the memory; and rows and segments of hard data, each
 * its own exact sum through every spec the tuner may pick for the shape. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "shape.h"
#include "tune.h"

static const cureduce_dtype float_types[] = {CUREDUCE_F16, CUREDUCE_BF16, CUREDUCE_F32, CUREDUCE_F64};

/* ---- the type's bit layout ------------------------------------------------------------------------ */

typedef struct layout {
  int exponent_bits, fraction_bits;
} layout;

static layout layout_of(cureduce_dtype type) {
  switch (type) {
  case CUREDUCE_F16: return (layout){5, 10};
  case CUREDUCE_BF16: return (layout){8, 7};
  case CUREDUCE_F32: return (layout){8, 23};
  default: return (layout){11, 52};
  }
}

static uint64_t compose(cureduce_dtype type, bool negative, uint64_t biased_exponent, uint64_t fraction) {
  layout l = layout_of(type);
  return (uint64_t)negative << (l.exponent_bits + l.fraction_bits) | biased_exponent << l.fraction_bits |
         (fraction & ((1ull << l.fraction_bits) - 1));
}

static uint64_t max_biased(cureduce_dtype type) { return (1ull << layout_of(type).exponent_bits) - 2; }

static void put_bits(cureduce_dtype type, void *data, size_t i, uint64_t bits) {
  memcpy((char *)data + i * cureduce_dtype_size(type), &bits, cureduce_dtype_size(type));
}

static uint64_t get_bits(cureduce_dtype type, const void *data, size_t i) {
  uint64_t bits = 0;
  memcpy(&bits, (const char *)data + i * cureduce_dtype_size(type), cureduce_dtype_size(type));
  return bits;
}

static uint64_t random_finite(cureduce_dtype type, uint64_t lowest_biased, uint64_t highest_biased) {
  return compose(type, cureduce_ref_random() & 1, (uint64_t)cureduce_ref_random_range((int64_t)lowest_biased,
                                                                                       (int64_t)highest_biased),
                 cureduce_ref_random());
}

static uint64_t negated(cureduce_dtype type, uint64_t bits) {
  layout l = layout_of(type);
  return bits ^ 1ull << (l.exponent_bits + l.fraction_bits);
}

/* Moves each element to a random place. */
static void shuffle(cureduce_dtype type, void *data, size_t n) {
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = (size_t)cureduce_ref_random_range(0, (int64_t)i);
    uint64_t a = get_bits(type, data, i), b = get_bits(type, data, j);
    put_bits(type, data, i, b);
    put_bits(type, data, j, a);
  }
}

/* ---- the hard data ---------------------------------------------------------------------------------- */

typedef enum kind {
  EVERY_BINADE,   /* random finite values, exponents uniform from the subnormals to 17 below the top */
  CANCELLATION,   /* random values and their negations, and a few small ones: the sum is small */
  TIE_TO_EVEN,    /* cancelling pairs, then 1 and half an ulp of 1: a tie, rounded to even (1) */
  TIE_UP,         /* the same with 1 + ulp and half an ulp: rounded up to 1 + 2 ulp */
  SUBNORMAL,      /* subnormals of both signs: a subnormal sum */
  OVERFLOW_EDGE,  /* the largest finite value, cancelling pairs of it and noise: finite at the edge */
  OVERFLOW_TIE,   /* the same plus half an ulp of the largest value: rounds to infinity */
  HUGE_AND_TINY,  /* huge (near 2^-17 of the largest) and subnormal values alternating, random signs */
  NAN_AT_END,     /* random data, and a NaN last */
  BOTH_INFINITIES,/* random data with +inf and -inf somewhere: NaN */
  MINUS_INFINITY, /* random data with -inf somewhere: -inf */
  NARROW_THEN_WIDE, /* the first half within 8 binades, the rest 40: more than one band, not a miss */
  KIND_COUNT
} kind;

static const char *const kind_names[KIND_COUNT] = {
    "every binade", "cancellation", "tie to even", "tie up", "subnormal", "overflow edge", "overflow tie",
    "huge and tiny", "NaN at the end", "both infinities", "minus infinity",
    "narrow then wide"};

/* Significand bits, with the implicit one. */
static int precision_of(cureduce_dtype type) { return layout_of(type).fraction_bits + 1; }

/* 2^e in the type, subnormal if need be (e within its range). */
static uint64_t power_of_two_bits(cureduce_dtype type, int e) {
  layout l = layout_of(type);
  int bias = (1 << (l.exponent_bits - 1)) - 1;
  if (e + bias >= 1)
    return compose(type, false, (uint64_t)(e + bias), 0);
  return compose(type, false, 0, 1ull << (e + bias - 1 + l.fraction_bits));
}

static void fill(kind k, cureduce_dtype type, cureduce_dtype output, void *data, size_t n) {
  /* Random values below 2^(top - 17) in magnitude: n <= 2^17 of them sum to a finite value. */
  uint64_t top = max_biased(type), one = power_of_two_bits(type, 0), below = top - 17;
  uint64_t largest = compose(type, false, top, ~0ull), infinity = compose(type, false, top + 1, 0);
  size_t pairs = n / 2 - 8;
  for (size_t i = 0; i < n; i++)
    put_bits(type, data, i, random_finite(type, 0, below));
  switch (k) {
  case EVERY_BINADE: return;
  case NARROW_THEN_WIDE: /* in order: each warp's first tiles fit one band (2-byte types), later ones not */
    for (size_t i = 0; i < n; i++)
      put_bits(type, data, i, random_finite(type, i < n / 2 ? below - 8 : below > 40 ? below - 40 : 0, below));
    return;
  case HUGE_AND_TINY:
    for (size_t i = 0; i < n; i++)
      put_bits(type, data, i, i % 2 ? random_finite(type, below - 3, below) : random_finite(type, 0, 3));
    return;
  case NAN_AT_END: put_bits(type, data, n - 1, compose(type, false, top + 1, 1ull << (layout_of(type).fraction_bits - 1))); return;
  case BOTH_INFINITIES:
    put_bits(type, data, (size_t)cureduce_ref_random_range(0, (int64_t)n / 2), infinity);
    put_bits(type, data, (size_t)cureduce_ref_random_range((int64_t)n / 2 + 1, (int64_t)n - 1), negated(type, infinity));
    return;
  case MINUS_INFINITY: put_bits(type, data, (size_t)cureduce_ref_random_range(0, (int64_t)n - 1), negated(type, infinity)); return;
  default: break;
  }
  /* The rest: cancelling pairs in the first 2 * pairs places, then a few chosen values. */
  uint64_t low = k == SUBNORMAL ? 0 : 1, high = k == SUBNORMAL ? 0 : top;
  for (size_t i = 0; i < pairs; i++) {
    uint64_t x = k == OVERFLOW_EDGE || k == OVERFLOW_TIE ? largest : random_finite(type, low, high < below ? high : below);
    put_bits(type, data, 2 * i, x);
    put_bits(type, data, 2 * i + 1, negated(type, x));
  }
  for (size_t i = 2 * pairs; i < n; i++)
    put_bits(type, data, i, k == SUBNORMAL ? random_finite(type, 0, 0) : 0);
  size_t rest = 2 * pairs;
  int p = precision_of(output);
  switch (k) {
  case CANCELLATION: put_bits(type, data, rest, random_finite(type, 1, below)); break;
  case TIE_TO_EVEN: /* 1 + 2^-p: halfway between 1 (even) and 1 + 2^(1-p) in the output */
    put_bits(type, data, rest, one);
    put_bits(type, data, rest + 1, power_of_two_bits(type, -p));
    break;
  case TIE_UP: /* 1 + 3 * 2^-p: halfway between 1 + 2^(1-p) (odd) and 1 + 2^(2-p) */
    put_bits(type, data, rest, one);
    put_bits(type, data, rest + 1, power_of_two_bits(type, 1 - p));
    put_bits(type, data, rest + 2, power_of_two_bits(type, -p));
    break;
  case OVERFLOW_EDGE: put_bits(type, data, rest, largest); break;
  case OVERFLOW_TIE: /* the largest finite value and half its ulp: a tie, its significand odd */
    put_bits(type, data, rest, largest);
    put_bits(type, data, rest + 1, compose(type, false, top - (uint64_t)precision_of(type), 0));
    break;
  default: break;
  }
  shuffle(type, data, n);
}

/* ---- running --------------------------------------------------------------------------------------- */

/* One exact sum: the pinned spec (or the plan's own choice for NULL, or the shortcut for
 * "shortcut"), into a poisoned output, on `stream`. */
static cureduce_value run_exact(const harness_gpu *gpu, cureduce_dtype type, cureduce_dtype output, CUdeviceptr input,
                                size_t n, CUdeviceptr out, const char *spec, CUstream stream) {
  ck_assert(gpu->cu->cuMemsetD8(out, 0xA5, 16) == CUDA_SUCCESS);
  cureduce_status status;
  if (spec && strcmp(spec, "shortcut") == 0) {
    status = cureduce_reduce(gpu->context, CUREDUCE_OP_EXACT_SUM, type, (const void *)(uintptr_t)input, n, output,
                             (void *)(uintptr_t)out, stream);
  } else {
    cureduce_problem problem;
    cureduce_problem_init(&problem, CUREDUCE_OP_EXACT_SUM, type, output, n);
    cureduce_plan *plan = NULL;
    status = cureduce_plan_create(&plan, gpu->context, &problem, spec);
    ck_assert_msg(status == CUREDUCE_STATUS_OK, "%s", cureduce_last_error_detail());
    status = cureduce_plan_execute(plan, (const void *)(uintptr_t)input, (void *)(uintptr_t)out, NULL, 0, stream);
    cureduce_plan_destroy(plan);
  }
  ck_assert_msg(status == CUREDUCE_STATUS_OK, "%s", cureduce_last_error_detail());
  ck_assert(gpu->cu->cuStreamSynchronize(stream) == CUDA_SUCCESS);
  cureduce_value got = {.index = -1};
  harness_download(gpu, &got.value, out, cureduce_dtype_size(output));
  return got;
}

static void expect_bits(cureduce_dtype output, const cureduce_value *got, const cureduce_ref_result *want,
                        const char *what) {
  char why[256];
  ck_assert_msg(cureduce_ref_matches(CUREDUCE_OP_EXACT_SUM, output, got, want, why, sizeof why), "%s: %s", what, why);
}

static cureduce_dtype output_of(cureduce_dtype type, int which) {
  return which == 0 || type == CUREDUCE_F32 || type == CUREDUCE_F64 ? type : CUREDUCE_F32;
}

/* Which specs of a tune space of `count` the hard data runs through: every seventh, and the last
 * seven (gpu-reduce runs them all, on data that rounds). */
static bool sampled(size_t s, size_t count) { return s % 7 == 0 || s + 7 >= count; }

/* The sampled specs of a space, their kernels compiled ahead, all at once (harness_compile_ahead). */
static void compile_sampled_ahead(const harness_gpu *gpu, const cureduce_spec *specs, size_t count) {
  cureduce_spec chosen[64];
  size_t chosen_count = 0;
  for (size_t s = 0; s < count && chosen_count < 64; s++)
    if (sampled(s, count))
      chosen[chosen_count++] = specs[s];
  harness_compile_ahead(gpu, chosen, chosen_count);
}

/* Loop index: kind * 4 + type. The sampled specs of the tune space, the plan's choice, the
 * shortcut, a stream of the test's own and start offsets of zero and three elements, for each
 * output type. */
START_TEST(test_hard_data) {
  kind k = (kind)(_i / 4);
  cureduce_dtype type = float_types[_i % 4];
  harness_gpu gpu = harness_gpu_open();
  size_t n = ((size_t)1 << 16) + 13 + (size_t)cureduce_ref_random_range(0, 1000), element = cureduce_dtype_size(type);
  ck_assert(n <= (size_t)1 << 17); /* fill()'s values are small enough for sums of that many */
  unsigned char *host = malloc((n + 3) * element);
  ck_assert(host);
  CUdeviceptr input = harness_device_alloc(&gpu, (n + 3) * element), out = harness_device_alloc(&gpu, 16);
  CUstream stream;
  ck_assert(gpu.cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  for (int which = 0; which < (type == CUREDUCE_F16 || type == CUREDUCE_BF16 ? 2 : 1); which++) {
    cureduce_dtype output = output_of(type, which);
    static const size_t offsets[] = {0, 3}; /* elements from the start of the buffer */
    for (size_t o = 0; o < 2; o++) {
      size_t offset = offsets[o];
      fill(EVERY_BINADE, type, output, host, n + 3); /* what lies outside the n elements */
      fill(k, type, output, host + offset * element, n);
      harness_upload(&gpu, input, host, (n + 3) * element);
      cureduce_ref_result want = cureduce_ref_exact_sum(type, output, host + offset * element, n);
      char what[256];
      cureduce_tune_job job = {.op = CUREDUCE_OP_EXACT_SUM, .input = type, .output = output};
      cureduce_spec specs[64];
      size_t count = cureduce_tune_space(&job, &gpu.context->info, false, specs, 64);
      ck_assert(count > 1);
      compile_sampled_ahead(&gpu, specs, count);
      for (size_t s = 0; s < count + 3; s++) { /* the sampled specs, then the three other roads */
        if (s < count && !sampled(s, count))
          continue;
        char text[CUREDUCE_SPEC_TEXT_MAX];
        if (s < count)
          cureduce_spec_format(&specs[s], text);
        const char *spec = s < count ? text : s == count ? NULL : "shortcut";
        CUstream on = s == count + 2 ? stream : NULL;
        cureduce_value got = run_exact(&gpu, type, output, input + offset * element, n, out, spec, on);
        snprintf(what, sizeof what, "%s, %s->%s, n = %zu, offset %zu, %s%s", kind_names[k], cureduce_dtype_name(type),
                 cureduce_dtype_name(output), n, offset, spec ? spec : "the plan's choice",
                 on ? " on a stream of its own" : "");
        expect_bits(output, &got, &want, what);
      }
    }
  }
  gpu.cu->cuStreamDestroy(stream);
  gpu.cu->cuMemFree(input);
  gpu.cu->cuMemFree(out);
  free(host);
  harness_gpu_close(&gpu);
}
END_TEST

/* Loop index: the type. One block an SM of 32 threads with one load a tile: each thread meets
 * more tiles than a band may take before it is moved (tiles_per_flush: 1024 for f16, 2048 for
 * bf16, 4096 for f32 and f64), on data that rounds: a block of it repeated, and a fresh last block. */
START_TEST(test_bands_moved_mid_loop) {
  cureduce_dtype type = float_types[_i];
  harness_gpu gpu = harness_gpu_open();
  size_t element = cureduce_dtype_size(type), n = ((size_t)1 << (type == CUREDUCE_F64 ? 26 : 27)) + 5;
  unsigned char *host = malloc(n * element);
  ck_assert(host);
  CUdeviceptr input = harness_device_alloc(&gpu, n * element), out = harness_device_alloc(&gpu, 16);
  cureduce_dtype output = output_of(type, 0);
  char spec[CUREDUCE_SPEC_TEXT_MAX];
  snprintf(spec, sizeof spec, "exact_sum:%s->%s/single_pass/b32/u1/v16/g1", cureduce_dtype_name(type),
           cureduce_dtype_name(output));
  size_t block = (size_t)1 << 22; /* fresh data that rounds, repeated: filling 2^27 takes a minute */
  cureduce_ref_fill_rounding(type, host, block);
  for (size_t at = block; at < n; at += block)
    memcpy(host + at * element, host, (at + block <= n ? block : n - at) * element);
  cureduce_ref_fill_rounding(type, host + (n - block) * element, block);
  harness_upload(&gpu, input, host, n * element);
  cureduce_ref_result want = cureduce_ref_exact_sum(type, output, host, n);
  cureduce_value small_grid = run_exact(&gpu, type, output, input, n, out, spec, NULL);
  cureduce_value chosen = run_exact(&gpu, type, output, input, n, out, NULL, NULL);
  expect_bits(output, &small_grid, &want, spec);
  expect_bits(output, &chosen, &want, "the plan's choice");
  gpu.cu->cuMemFree(input);
  gpu.cu->cuMemFree(out);
  free(host);
  harness_gpu_close(&gpu);
}
END_TEST

/* 2^32 + 3 f16 elements (8 GiB) where the device has room: a 64 MiB block of data that rounds,
 * repeated, with fresh random values at 4096 random places and in the last block. */
START_TEST(test_beyond_2_to_the_32) {
  harness_gpu gpu = harness_gpu_open();
  size_t n = ((size_t)1 << 32) + 3, bytes = n * 2, block = (size_t)32 << 20;
  CUdeviceptr input = 0;
  if (gpu.cu->cuMemAlloc(&input, bytes) != CUDA_SUCCESS) {
    printf("test_beyond_2_to_the_32: the device has no room for %zu bytes: not run\n", bytes);
    harness_gpu_close(&gpu);
    return;
  }
  uint16_t *host = malloc(bytes);
  ck_assert(host);
  cureduce_ref_fill_rounding(CUREDUCE_F16, host, block);
  for (size_t at = block; at < n; at += block)
    memcpy(host + at, host, (at + block <= n ? block : n - at) * 2);
  cureduce_ref_fill_rounding(CUREDUCE_F16, host + (n - block), block);
  for (int i = 0; i < 4096; i++)
    cureduce_ref_fill_rounding(CUREDUCE_F16, host + cureduce_ref_random_range(0, (int64_t)n - 1), 1);
  CUdeviceptr out = harness_device_alloc(&gpu, 16);
  harness_upload(&gpu, input, host, bytes);
  cureduce_ref_result want = cureduce_ref_exact_sum(CUREDUCE_F16, CUREDUCE_F32, host, n); /* f16 would overflow */
  cureduce_value got = run_exact(&gpu, CUREDUCE_F16, CUREDUCE_F32, input, n, out, NULL, NULL);
  expect_bits(CUREDUCE_F32, &got, &want, "f16->f32, 2^32 + 3 elements");
  gpu.cu->cuMemFree(input);
  gpu.cu->cuMemFree(out);
  free(host);
  harness_gpu_close(&gpu);
}
END_TEST

/* ---- exact partials ------------------------------------------------------------------------------ */

/* The words of one exact partial (exact_sum to i64) by the pinned spec, or the plan's choice for
 * NULL, into a poisoned output. */
static void run_partial(const harness_gpu *gpu, cureduce_dtype type, CUdeviceptr input, size_t n, CUdeviceptr out,
                        const char *spec, int64_t *words) {
  size_t bytes = 8 * cureduce_exact_partial_words(type);
  ck_assert(gpu->cu->cuMemsetD8(out, 0xA5, bytes) == CUDA_SUCCESS);
  cureduce_problem problem;
  cureduce_problem_init(&problem, CUREDUCE_OP_EXACT_SUM, type, CUREDUCE_I64, n);
  cureduce_plan *plan = NULL;
  cureduce_status status = cureduce_plan_create(&plan, gpu->context, &problem, spec);
  ck_assert_msg(status == CUREDUCE_STATUS_OK, "%s", cureduce_last_error_detail());
  status = cureduce_plan_execute(plan, (const void *)(uintptr_t)input, (void *)(uintptr_t)out, NULL, 0, NULL);
  ck_assert_msg(status == CUREDUCE_STATUS_OK, "%s", cureduce_last_error_detail());
  cureduce_plan_destroy(plan);
  harness_download(gpu, words, out, bytes);
}

/* Loop index: kind * 4 + type. The partial of the whole is the same words through every sampled
 * spec; the partials of three parts cut at random places, added word by word as a multi-GPU
 * all-reduce would, round (cureduce_exact_partial_round) to the reference's exact sum of the whole
 * in each output type; cureduce_reduce_to_host refuses i64, whose words a value cannot hold. */
START_TEST(test_partials_combine) {
  kind k = (kind)(_i / 4);
  cureduce_dtype type = float_types[_i % 4];
  harness_gpu gpu = harness_gpu_open();
  size_t n = ((size_t)1 << 16) + 13 + (size_t)cureduce_ref_random_range(0, 1000), element = cureduce_dtype_size(type);
  size_t count = cureduce_exact_partial_words(type);
  ck_assert(count == (type == CUREDUCE_F64 ? 99u : 35u));
  unsigned char *host = malloc(n * element);
  int64_t whole[99], first[99], part[99];
  ck_assert(host);
  CUdeviceptr input = harness_device_alloc(&gpu, n * element), out = harness_device_alloc(&gpu, 8 * count);
  fill(k, type, output_of(type, 0), host, n);
  harness_upload(&gpu, input, host, n * element);

  cureduce_tune_job job = {.op = CUREDUCE_OP_EXACT_SUM, .input = type, .output = CUREDUCE_I64};
  cureduce_spec specs[64];
  size_t spec_count = cureduce_tune_space(&job, &gpu.context->info, false, specs, 64);
  ck_assert(spec_count > 1);
  compile_sampled_ahead(&gpu, specs, spec_count);
  run_partial(&gpu, type, input, n, out, NULL, first);
  for (size_t s = 0; s < spec_count; s++) {
    if (!sampled(s, spec_count))
      continue;
    char text[CUREDUCE_SPEC_TEXT_MAX];
    cureduce_spec_format(&specs[s], text);
    run_partial(&gpu, type, input, n, out, text, whole);
    for (size_t w = 0; w < count; w++)
      ck_assert_msg(whole[w] == first[w], "%s, %s: word %zu is %lld, the plan's choice wrote %lld", kind_names[k],
                    text, w, (long long)whole[w], (long long)first[w]);
  }

  size_t cut[4] = {0, (size_t)cureduce_ref_random_range(1, (int64_t)n / 2), 0, n};
  cut[2] = (size_t)cureduce_ref_random_range((int64_t)cut[1] + 1, (int64_t)n - 1);
  memset(whole, 0, sizeof whole);
  for (int p = 0; p < 3; p++) {
    run_partial(&gpu, type, input + cut[p] * element, cut[p + 1] - cut[p], out, NULL, part);
    for (size_t w = 0; w < count; w++)
      whole[w] += part[w];
  }
  for (int which = 0; which < (type == CUREDUCE_F16 || type == CUREDUCE_BF16 ? 2 : 1); which++) {
    cureduce_dtype output = output_of(type, which);
    cureduce_value got;
    ck_assert_msg(cureduce_exact_partial_round(whole, type, output, &got) == CUREDUCE_STATUS_OK, "%s",
                  cureduce_last_error_detail());
    char what[160];
    snprintf(what, sizeof what, "%s, %s->%s, n = %zu, three partials cut at %zu and %zu", kind_names[k],
             cureduce_dtype_name(type), cureduce_dtype_name(output), n, cut[1], cut[2]);
    cureduce_ref_result want = cureduce_ref_exact_sum(type, output, host, n);
    expect_bits(output, &got, &want, what);
  }
  cureduce_value value;
  ck_assert(cureduce_reduce_to_host(gpu.context, CUREDUCE_OP_EXACT_SUM, type, (const void *)(uintptr_t)input, n,
                                    CUREDUCE_I64, &value, NULL) == CUREDUCE_STATUS_UNSUPPORTED);
  gpu.cu->cuMemFree(input);
  gpu.cu->cuMemFree(out);
  free(host);
  harness_gpu_close(&gpu);
}
END_TEST

/* ---- rows, columns and segments ------------------------------------------------------------------- */

enum {
  hard_rows = 4,
  hard_row_length = 3 * 8192 + 13, /* the heuristic splits it: a block takes 8192 2-byte elements */
  hard_row_pitch = hard_row_length + 3,
  hard_column_pitch = hard_rows + 3,
};

/* The exact sums of `count` rows, as rows of a padded matrix, as segments (begin offsets, then
 * end offsets, at `offsets`) or as the columns of the padded transpose, by the pinned spec or the
 * plan's choice (NULL), into a poisoned output. */
static void run_rows(const harness_gpu *gpu, const cureduce_problem *problem, CUdeviceptr input, CUdeviceptr offsets,
                     CUdeviceptr out, const char *spec, size_t count, cureduce_value *got) {
  size_t size = cureduce_dtype_size(problem->output_type);
  ck_assert(gpu->cu->cuMemsetD8(out, 0xA5, count * size) == CUDA_SUCCESS);
  cureduce_plan *plan = NULL;
  cureduce_status status = cureduce_plan_create(&plan, gpu->context, problem, spec);
  ck_assert_msg(status == CUREDUCE_STATUS_OK, "%s", cureduce_last_error_detail());
  const void *in = (const void *)(uintptr_t)input;
  const int64_t *begin = (const int64_t *)(uintptr_t)offsets, *end = begin + count;
  status = problem->layout == CUREDUCE_LAYOUT_SEGMENTS
               ? cureduce_plan_execute_segments(plan, in, begin, end, (void *)(uintptr_t)out, NULL, 0, NULL)
               : cureduce_plan_execute(plan, in, (void *)(uintptr_t)out, NULL, 0, NULL);
  ck_assert_msg(status == CUREDUCE_STATUS_OK, "%s", cureduce_last_error_detail());
  cureduce_plan_destroy(plan);
  unsigned char *results = malloc(count * size);
  ck_assert(results);
  harness_download(gpu, results, out, count * size);
  for (size_t r = 0; r < count; r++) {
    got[r] = (cureduce_value){.index = -1};
    memcpy(&got[r].value, results + r * size, size);
  }
  free(results);
}

/* Rows filled as hard inputs: `count` rows of `length` elements, as rows of a matrix `pitch`
 * elements a row, as segments, and as the columns of its transpose, `column_pitch` a row. */
static void init_row_problems(cureduce_problem problems[3], cureduce_dtype type, cureduce_dtype output, size_t count,
                              size_t length, size_t pitch, size_t column_pitch) {
  cureduce_problem_init_matrix(&problems[0], CUREDUCE_LAYOUT_ROWS, CUREDUCE_OP_EXACT_SUM, type, output, count, length,
                               pitch);
  cureduce_problem_init_segments(&problems[1], CUREDUCE_OP_EXACT_SUM, type, output, count);
  cureduce_problem_init_matrix(&problems[2], CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_OP_EXACT_SUM, type, output, length,
                               count, column_pitch);
}

/* Each of the three problems through every spec the tuner may pick for it, then the plan's
 * choice: row r's result is want[r], bit for bit; kinds[r % kind_count] names its data. */
static void check_every_spec(const harness_gpu *gpu, const cureduce_problem problems[3], CUdeviceptr input,
                             CUdeviceptr column_input, CUdeviceptr offsets, CUdeviceptr out,
                             const cureduce_ref_result *want, const char *const *kinds, size_t kind_count) {
  static const char *const layout_names[] = {"row", "segment", "column"};
  const cureduce_device_info *device = &gpu->context->info;
  size_t count = problems[0].rows, length = problems[0].cols;
  cureduce_value *got = malloc(count * sizeof *got);
  ck_assert(got);
  for (int p = 0; p < 3; p++) {
    cureduce_spec specs[CUREDUCE_SHAPE_SPACE_MAX];
    size_t spec_count = cureduce_shape_tune_space(
        &problems[p], device->sm_count, device->max_threads_per_sm, false,
        cureduce_shape_workspace_limit(&problems[p], device->sm_count, device->max_threads_per_sm), specs,
        CUREDUCE_SHAPE_SPACE_MAX);
    ck_assert(spec_count > 1);
    harness_compile_ahead(gpu, specs, spec_count);
    for (size_t s = 0; s <= spec_count; s++) { /* every spec, then the plan's choice */
      char text[CUREDUCE_SPEC_TEXT_MAX] = "the plan's choice";
      if (s < spec_count)
        cureduce_spec_format(&specs[s], text);
      run_rows(gpu, &problems[p], p == 2 ? column_input : input, offsets, out, s < spec_count ? text : NULL, count, got);
      for (size_t r = 0; r < count; r++) {
        char what[256];
        snprintf(what, sizeof what, "%s, %s->%s, %s %zu of %zu elements, %s", kinds[r % kind_count],
                 cureduce_dtype_name(problems[p].input_type), cureduce_dtype_name(problems[p].output_type),
                 layout_names[p], r, length, text);
        expect_bits(problems[p].output_type, &got[r], &want[r], what);
      }
    }
  }
  free(got);
}

/* Element i of row r at (i, r) of a matrix of hard_column_pitch elements a row, whose padding
 * keeps what `padding` holds. */
static void transpose_rows(const unsigned char *rows, const unsigned char *padding, size_t element,
                           unsigned char *columns) {
  memcpy(columns, padding, (size_t)hard_row_length * hard_column_pitch * element);
  for (size_t i = 0; i < hard_row_length; i++)
    for (size_t r = 0; r < hard_rows; r++)
      memcpy(columns + (i * hard_column_pitch + r) * element, rows + (r * hard_row_pitch + i) * element, element);
}

/* Loop index: kind * 4 + type. Rows of a padded matrix, each filled as a hard input of its own,
 * the same elements as segments and as the columns of the transpose, through the plan's choice and
 * every spec the tuner may pick for the shape: each row's result is the reference's exact sum of
 * its elements, bit for bit, as a whole array's is (test_hard_data). */
START_TEST(test_hard_rows) {
  kind k = (kind)(_i / 4);
  cureduce_dtype type = float_types[_i % 4];
  harness_gpu gpu = harness_gpu_open();
  size_t element = cureduce_dtype_size(type), total = (size_t)hard_rows * hard_row_pitch;
  size_t transposed = (size_t)hard_row_length * hard_column_pitch;
  unsigned char *host = malloc(total * element), *columns = malloc(transposed * element);
  unsigned char *padding = malloc(transposed * element);
  ck_assert(host && columns && padding);
  int64_t offsets[2 * hard_rows];
  for (int r = 0; r < hard_rows; r++)
    offsets[r] = (int64_t)r * hard_row_pitch, offsets[hard_rows + r] = offsets[r] + hard_row_length;
  CUdeviceptr input = harness_device_alloc(&gpu, total * element), out = harness_device_alloc(&gpu, hard_rows * 8);
  CUdeviceptr column_input = harness_device_alloc(&gpu, transposed * element);
  CUdeviceptr device_offsets = harness_device_alloc(&gpu, sizeof offsets);
  harness_upload(&gpu, device_offsets, offsets, sizeof offsets);
  for (int which = 0; which < (type == CUREDUCE_F16 || type == CUREDUCE_BF16 ? 2 : 1); which++) {
    cureduce_dtype output = output_of(type, which);
    fill(EVERY_BINADE, type, output, host, total); /* the padding between the rows */
    cureduce_ref_result want[hard_rows];
    for (int r = 0; r < hard_rows; r++) {
      unsigned char *row = host + (size_t)offsets[r] * element;
      fill(k, type, output, row, hard_row_length);
      want[r] = cureduce_ref_exact_sum(type, output, row, hard_row_length);
    }
    harness_upload(&gpu, input, host, total * element);
    fill(EVERY_BINADE, type, output, padding, transposed);
    transpose_rows(host, padding, element, columns);
    harness_upload(&gpu, column_input, columns, transposed * element);
    cureduce_problem problems[3];
    init_row_problems(problems, type, output, hard_rows, hard_row_length, hard_row_pitch, hard_column_pitch);
    check_every_spec(&gpu, problems, input, column_input, device_offsets, out, want, &kind_names[k], 1);
  }
  gpu.cu->cuMemFree(input);
  gpu.cu->cuMemFree(column_input);
  gpu.cu->cuMemFree(out);
  gpu.cu->cuMemFree(device_offsets);
  free(host);
  free(columns);
  free(padding);
  harness_gpu_close(&gpu);
}
END_TEST

/* ---- short rows, columns and segments ----------------------------------------------------------- */

/* How a short row is filled (row index modulo SHORT_KIND_COUNT): each sends the groups' fast path
 * (exact_groups.cu) one way or the other. */
typedef enum short_kind {
  SHORT_WIDE,         /* every binade: mostly too wide for the bands, the warp's rare path */
  SHORT_NEAR_ONE,     /* within a few binades of 1: one band, sums that round */
  SHORT_TWO_SCALES,   /* near 1 and near 2^-(precision + 4), alternating: two bands whose total may not fit a double */
  SHORT_CANCELLATION, /* values and their negations, and a small one: the sum is small */
  SHORT_TIE,          /* 1 and half the output's ulp of 1, then zeros: a tie, rounded to even */
  SHORT_SUBNORMAL,    /* subnormals of both signs */
  SHORT_SPECIAL,      /* near 1, and NaN, +inf or -inf at a random place */
  SHORT_KIND_COUNT
} short_kind;

static void fill_short(short_kind k, cureduce_dtype type, cureduce_dtype output, void *row, size_t n) {
  uint64_t one = power_of_two_bits(type, 0) >> layout_of(type).fraction_bits, below = max_biased(type) - 17;
  uint64_t scale = (uint64_t)precision_of(type) + 4, small = one > scale + 2 ? one - scale : 2; /* f16: its subnormals' edge */
  for (size_t i = 0; i < n; i++) {
    uint64_t bits;
    switch (k) {
    case SHORT_WIDE: bits = random_finite(type, 0, below); break;
    case SHORT_TWO_SCALES: bits = i % 2 ? random_finite(type, small - 2, small) : random_finite(type, one - 2, one + 2); break;
    case SHORT_SUBNORMAL: bits = random_finite(type, 0, 0); break;
    case SHORT_TIE: bits = i == 0 ? power_of_two_bits(type, 0) : i == 1 ? power_of_two_bits(type, -precision_of(output)) : 0; break;
    default: bits = random_finite(type, one - 3, one + 3); break;
    }
    put_bits(type, row, i, bits);
  }
  if (k == SHORT_CANCELLATION)
    for (size_t i = 0; i + 1 < n; i += 2)
      put_bits(type, row, i + 1, negated(type, get_bits(type, row, i)));
  if (k == SHORT_CANCELLATION && n % 2)
    put_bits(type, row, n - 1, random_finite(type, 1, one > 21 ? one - 20 : 1));
  if (k == SHORT_SPECIAL) {
    uint64_t infinity = compose(type, false, max_biased(type) + 1, 0);
    uint64_t specials[] = {infinity | 1ull << (layout_of(type).fraction_bits - 1), infinity, negated(type, infinity)};
    put_bits(type, row, (size_t)cureduce_ref_random_range(0, (int64_t)n - 1), specials[cureduce_ref_random() % 3]);
  }
}

enum { short_rows = 1500 };
static const size_t short_lengths[] = {1, 2, 5, 33, 300};

/* Loop index: length * 4 + type. short_rows rows of a padded matrix, each filled as a kind of
 * short row, the same as segments and as the columns of the padded transpose, through the plan's
 * choice and every spec the tuner may pick for the shape (groups of lanes a row, a thread a
 * column, and near the limits blocks a row and a warp a column): each row's result is the
 * reference's exact sum of its elements, bit for bit. */
START_TEST(test_short_rows) {
  size_t n = short_lengths[_i / 4], pitch = n + 3, column_pitch = short_rows + 5;
  cureduce_dtype type = float_types[_i % 4];
  harness_gpu gpu = harness_gpu_open();
  size_t element = cureduce_dtype_size(type), total = short_rows * pitch, transposed = n * column_pitch;
  unsigned char *host = malloc(total * element), *columns = malloc(transposed * element);
  int64_t *offsets = malloc(2 * short_rows * sizeof *offsets);
  cureduce_ref_result *want = malloc(short_rows * sizeof *want);
  ck_assert(host && columns && offsets && want);
  for (size_t r = 0; r < short_rows; r++)
    offsets[r] = (int64_t)(r * pitch), offsets[short_rows + r] = offsets[r] + (int64_t)n;
  CUdeviceptr input = harness_device_alloc(&gpu, total * element), out = harness_device_alloc(&gpu, short_rows * 8);
  CUdeviceptr column_input = harness_device_alloc(&gpu, transposed * element);
  CUdeviceptr device_offsets = harness_device_alloc(&gpu, 2 * short_rows * sizeof *offsets);
  harness_upload(&gpu, device_offsets, offsets, 2 * short_rows * sizeof *offsets);
  for (int which = 0; which < (type == CUREDUCE_F16 || type == CUREDUCE_BF16 ? 2 : 1); which++) {
    cureduce_dtype output = output_of(type, which);
    fill(EVERY_BINADE, type, output, host, total); /* the padding */
    fill(EVERY_BINADE, type, output, columns, transposed);
    for (size_t r = 0; r < short_rows; r++) {
      unsigned char *row = host + (size_t)offsets[r] * element;
      fill_short((short_kind)(r % SHORT_KIND_COUNT), type, output, row, n);
      want[r] = cureduce_ref_exact_sum(type, output, row, n);
      for (size_t i = 0; i < n; i++)
        memcpy(columns + (i * column_pitch + r) * element, row + i * element, element);
    }
    harness_upload(&gpu, input, host, total * element);
    harness_upload(&gpu, column_input, columns, transposed * element);
    static const char *const short_kind_names[SHORT_KIND_COUNT] = {
        "wide", "near one", "two scales", "cancellation", "tie", "subnormal", "special"};
    cureduce_problem problems[3];
    init_row_problems(problems, type, output, short_rows, n, pitch, column_pitch);
    check_every_spec(&gpu, problems, input, column_input, device_offsets, out, want, short_kind_names,
                     SHORT_KIND_COUNT);
  }
  gpu.cu->cuMemFree(input);
  gpu.cu->cuMemFree(column_input);
  gpu.cu->cuMemFree(out);
  gpu.cu->cuMemFree(device_offsets);
  free(host);
  free(columns);
  free(offsets);
  free(want);
  harness_gpu_close(&gpu);
}
END_TEST

int main(void) {
  harness_split_into_shards();
  Suite *suite = suite_create("gpu-exact");
  TCase *cases = tcase_create("exact");
  tcase_set_timeout(cases, 900);
  harness_add_loop_test(cases, test_hard_data, 0, 4 * KIND_COUNT);
  harness_add_loop_test(cases, test_bands_moved_mid_loop, 0, 4);
  harness_add_loop_test(cases, test_partials_combine, 0, 4 * KIND_COUNT);
  harness_add_test(cases, test_beyond_2_to_the_32);
  suite_add_tcase(suite, cases);
  TCase *rows = tcase_create("rows"); /* alone: CK_RUN_CASE=rows */
  tcase_set_timeout(rows, 900);
  harness_add_loop_test(rows, test_hard_rows, 0, 4 * KIND_COUNT);
  suite_add_tcase(suite, rows);
  TCase *short_sequences = tcase_create("short"); /* alone: CK_RUN_CASE=short */
  tcase_set_timeout(short_sequences, 900);
  harness_add_loop_test(short_sequences, test_short_rows, 0, 4 * (int)(sizeof short_lengths / sizeof short_lengths[0]));
  suite_add_tcase(suite, short_sequences);
  return harness_run(suite, true);
}
