/* The documented semantics on the GPU: IEEE special values, bitwise determinism, concurrent
 * streams from several threads, more than 2^32 elements, workspace slots, refused pointers and
 * streams, tuning on first use. Graphs and plans: test_gpu_plans.c. */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "harness.h"

enum { special_count = 100003 };

static cureduce_value reduce_to_host_on(cureduce_context *context, cureduce_op op, cureduce_dtype type,
                                        CUdeviceptr input, size_t n, cureduce_dtype output, void *stream) {
  cureduce_value result;
  memset(&result, 0xA5, sizeof result); /* poison */
  cureduce_status status =
      cureduce_reduce_to_host(context, op, type, (const void *)(uintptr_t)input, n, output, &result, stream);
  ck_assert_msg(status == CUREDUCE_STATUS_OK, "%s", cureduce_last_error_detail());
  return result;
}

/* Random multiples of 1/16 with the given sign (never zero), then the specials at their places. */
static CUdeviceptr upload_with_specials(const harness_gpu *gpu, cureduce_dtype type, void *host, double sign,
                                        const size_t *positions, const double *values, int count) {
  for (size_t i = 0; i < special_count; i++)
    cureduce_ref_put_float(type, host, i, sign * (double)cureduce_ref_random_range(1, 1000) / 16);
  for (int i = 0; i < count; i++)
    cureduce_ref_put_float(type, host, positions[i], values[i]);
  size_t bytes = special_count * cureduce_dtype_size(type);
  CUdeviceptr device = harness_device_alloc(gpu, bytes);
  harness_upload(gpu, device, host, bytes);
  return device;
}

/* Reduces on the GPU and compares with the reference; returns the GPU's result. */
static cureduce_value expect_reference(const harness_gpu *gpu, cureduce_op op, cureduce_dtype type,
                                       cureduce_dtype output, CUdeviceptr device, const void *host, const char *what) {
  cureduce_value got = reduce_to_host_on(gpu->context, op, type, device, special_count, output, NULL);
  cureduce_ref_result expected = cureduce_ref_expected(op, type, output, host, special_count);
  char why[256];
  ck_assert_msg(cureduce_ref_matches(op, output, &got, &expected, why, sizeof why), "%s: %s %s: %s", what,
                cureduce_op_name(op), cureduce_dtype_name(type), why);
  return got;
}

static bool is_negative_zero(cureduce_dtype type, const cureduce_value *v) {
  double x = cureduce_ref_value_as_double(type, v);
  return x == 0 && signbit(x);
}

START_TEST(test_ieee_special_values) {
  static const cureduce_dtype float_types[] = {CUREDUCE_F16, CUREDUCE_BF16, CUREDUCE_F32, CUREDUCE_F64};
  cureduce_dtype type = float_types[_i];
  harness_gpu gpu = harness_gpu_open();
  void *host = malloc(special_count * 8);
  size_t early = (size_t)cureduce_ref_random_range(1, special_count / 2 - 1);
  size_t late = (size_t)cureduce_ref_random_range(special_count / 2, special_count - 1);
  size_t both[] = {early, late};

  /* Two NaNs: min and max are NaN, argmin and argmax give the first NaN's index. */
  CUdeviceptr device = upload_with_specials(&gpu, type, host, 1, both, (const double[]){NAN, NAN}, 2);
  for (int op = CUREDUCE_OP_MIN; op <= CUREDUCE_OP_ARGMAX; op++) {
    cureduce_value got = expect_reference(&gpu, (cureduce_op)op, type, type, device, host, "two NaNs");
    ck_assert(isnan(cureduce_ref_value_as_double(type, &got)));
    if (op >= CUREDUCE_OP_ARGMIN)
      ck_assert_int_eq(got.index, (int64_t)early);
  }
  gpu.cu->cuMemFree(device);

  /* +0 first, -0 later, all else positive: min is -0 and argmin points at it. */
  device = upload_with_specials(&gpu, type, host, 1, both, (const double[]){0.0, -0.0}, 2);
  cureduce_value min = expect_reference(&gpu, CUREDUCE_OP_MIN, type, type, device, host, "signed zeros");
  ck_assert(is_negative_zero(type, &min));
  ck_assert_int_eq(expect_reference(&gpu, CUREDUCE_OP_ARGMIN, type, type, device, host, "signed zeros").index,
                   (int64_t)late);
  gpu.cu->cuMemFree(device);

  /* -0 first, +0 later, all else negative: max is +0 and argmax points at it. */
  device = upload_with_specials(&gpu, type, host, -1, both, (const double[]){-0.0, 0.0}, 2);
  cureduce_value max = expect_reference(&gpu, CUREDUCE_OP_MAX, type, type, device, host, "signed zeros");
  ck_assert(cureduce_ref_value_as_double(type, &max) == 0 && !is_negative_zero(type, &max));
  ck_assert_int_eq(expect_reference(&gpu, CUREDUCE_OP_ARGMAX, type, type, device, host, "signed zeros").index,
                   (int64_t)late);
  gpu.cu->cuMemFree(device);

  /* Infinities: a sum with +inf is +inf; with both infinities it is NaN. */
  cureduce_dtype accumulator;
  cureduce_accumulator_type(CUREDUCE_OP_SUM, type, &accumulator);
  device = upload_with_specials(&gpu, type, host, 1, both, (const double[]){INFINITY, -INFINITY}, 1);
  cureduce_value total = expect_reference(&gpu, CUREDUCE_OP_SUM, type, accumulator, device, host, "+inf");
  double sum = cureduce_ref_value_as_double(accumulator, &total);
  ck_assert_msg(isinf(sum) && sum > 0, "sum with +inf gave %g", sum);
  ck_assert_int_eq(expect_reference(&gpu, CUREDUCE_OP_ARGMAX, type, type, device, host, "+inf").index, (int64_t)early);
  gpu.cu->cuMemFree(device);
  device = upload_with_specials(&gpu, type, host, 1, both, (const double[]){INFINITY, -INFINITY}, 2);
  total = expect_reference(&gpu, CUREDUCE_OP_SUM, type, accumulator, device, host, "+-inf");
  sum = cureduce_ref_value_as_double(accumulator, &total);
  ck_assert_msg(isnan(sum), "sum with +inf and -inf gave %g", sum);
  ck_assert_int_eq(expect_reference(&gpu, CUREDUCE_OP_ARGMIN, type, type, device, host, "-inf").index, (int64_t)late);
  gpu.cu->cuMemFree(device);
  free(host);
  harness_gpu_close(&gpu);
}
END_TEST

/* Uniform reals, so that the order of additions shows in the last bits. */
static CUdeviceptr upload_uniform_f32(const harness_gpu *gpu, size_t n) {
  float *host = malloc(n * sizeof *host);
  ck_assert(host);
  for (size_t i = 0; i < n; i++)
    host[i] = (float)(cureduce_ref_random_unit() * 2 - 1);
  CUdeviceptr device = harness_device_alloc(gpu, n * sizeof *host);
  harness_upload(gpu, device, host, n * sizeof *host);
  free(host);
  return device;
}

START_TEST(test_bitwise_deterministic) {
  harness_gpu gpu = harness_gpu_open();
  const size_t n = (1u << 24) + 7;
  CUdeviceptr device = upload_uniform_f32(&gpu, n + 1);
  cureduce_value first = reduce_to_host_on(gpu.context, CUREDUCE_OP_SUM, CUREDUCE_F32, device + 4, n, CUREDUCE_F32, NULL);
  for (int run = 1; run < 100; run++) {
    cureduce_value again =
        reduce_to_host_on(gpu.context, CUREDUCE_OP_SUM, CUREDUCE_F32, device + 4, n, CUREDUCE_F32, NULL);
    ck_assert_msg(memcmp(&again.value.f32, &first.value.f32, 4) == 0, "run %d gave %a, run 0 gave %a", run,
                  (double)again.value.f32, (double)first.value.f32);
  }
  gpu.cu->cuMemFree(device);
  harness_gpu_close(&gpu);
}
END_TEST

/* Two threads, each on its own stream, each reducing its own data many times at once. */
typedef struct stream_worker {
  harness_gpu *gpu;
  CUdeviceptr input;
  size_t n;
  uint64_t expected;
  int wrong;
} stream_worker;

static void *run_stream_worker(void *argument) {
  stream_worker *worker = argument;
  const cureduce_driver *cu = worker->gpu->cu;
  cu->cuCtxPushCurrent(worker->gpu->context->primary);
  CUstream stream;
  cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  for (int run = 0; run < 200; run++) {
    cureduce_value result = {.index = -1};
    cureduce_status status = cureduce_reduce_to_host(worker->gpu->context, CUREDUCE_OP_SUM, CUREDUCE_U32,
                                                     (const void *)(uintptr_t)worker->input, worker->n, CUREDUCE_U64,
                                                     &result, stream);
    worker->wrong += status != CUREDUCE_STATUS_OK || result.value.u64 != worker->expected;
  }
  cureduce_release_stream(worker->gpu->context, stream);
  cu->cuStreamDestroy(stream);
  CUcontext popped;
  cu->cuCtxPopCurrent(&popped);
  return NULL;
}

START_TEST(test_two_threads_two_streams) {
  harness_gpu gpu = harness_gpu_open();
  stream_worker workers[2];
  pthread_t threads[2];
  for (int w = 0; w < 2; w++) {
    size_t n = (1u << 22) + 3 + (size_t)w * 1001;
    uint32_t *host = malloc(n * sizeof *host);
    cureduce_ref_fill(CUREDUCE_OP_SUM, CUREDUCE_U32, host, n);
    cureduce_ref_result expected = cureduce_ref_expected(CUREDUCE_OP_SUM, CUREDUCE_U32, CUREDUCE_U64, host, n);
    workers[w] = (stream_worker){&gpu, harness_device_alloc(&gpu, n * 4), n, expected.value.value.u64, 0};
    harness_upload(&gpu, workers[w].input, host, n * 4);
    free(host);
  }
  for (int w = 0; w < 2; w++)
    ck_assert(pthread_create(&threads[w], NULL, run_stream_worker, &workers[w]) == 0);
  for (int w = 0; w < 2; w++) {
    pthread_join(threads[w], NULL);
    ck_assert_msg(workers[w].wrong == 0, "thread %d: %d of 200 results wrong", w, workers[w].wrong);
    gpu.cu->cuMemFree(workers[w].input);
  }
  harness_gpu_close(&gpu);
}
END_TEST

/* The spec a plan runs now, parsed. */
static cureduce_spec plan_spec(const cureduce_plan *plan, cureduce_plan_info *info) {
  cureduce_spec spec;
  ck_assert(cureduce_plan_describe(plan, info) == CUREDUCE_STATUS_OK);
  ck_assert(cureduce_spec_parse(info->spec, &spec) == CUREDUCE_STATUS_OK);
  return spec;
}

/* The same bytes as one column of n rows, in a workspace of garbage: a column this tall keeps its
 * splits' partials (a split word holds rows below 2^32 - 1: column_tiles.cu, shape.c's
 * column_split_words), and its rows past 2^32 must come out whole. */
static void check_one_tall_column(const harness_gpu *gpu, cureduce_op op, CUdeviceptr input, size_t n,
                                  const cureduce_ref_result *expected) {
  cureduce_problem problem;
  cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_COLUMNS, op, CUREDUCE_U8, CUREDUCE_U8, n, 1, 1);
  cureduce_plan *plan;
  ck_assert_msg(cureduce_plan_create(&plan, gpu->context, &problem, NULL) == CUREDUCE_STATUS_OK, "%s",
                cureduce_last_error_detail());
  cureduce_plan_info info;
  ck_assert_msg(plan_spec(plan, &info).splits > 1, "%s: one split, no partials to keep", info.spec);
  size_t bytes, alignment;
  ck_assert(cureduce_plan_workspace_size(plan, &bytes, &alignment) == CUREDUCE_STATUS_OK);
  CUdeviceptr workspace = harness_device_alloc(gpu, bytes), output = harness_device_alloc(gpu, sizeof(cureduce_value));
  ck_assert(gpu->cu->cuMemsetD8(workspace, 0xA5, bytes) == CUDA_SUCCESS);
  ck_assert(gpu->cu->cuMemsetD8(output, 0xA5, sizeof(cureduce_value)) == CUDA_SUCCESS);
  ck_assert_msg(cureduce_plan_execute(plan, (const void *)(uintptr_t)input, (void *)(uintptr_t)output,
                                      (void *)(uintptr_t)workspace, bytes, NULL) == CUREDUCE_STATUS_OK,
                "%s: %s", info.spec, cureduce_last_error_detail());
  cureduce_value got = {.index = -1};
  harness_download(gpu, &got, output, cureduce_result_bytes(op, CUREDUCE_U8));
  char why[256];
  ck_assert_msg(cureduce_ref_matches(op, CUREDUCE_U8, &got, expected, why, sizeof why),
                "%s of a column of %zu u8 (%s): %s", cureduce_op_name(op), n, info.spec, why);
  gpu->cu->cuMemFree(workspace);
  gpu->cu->cuMemFree(output);
  cureduce_plan_destroy(plan);
}

/* More than 2^32 elements: sums, a minimum whose only occurrence lies past index 2^32, and a
 * maximum held at 1000 and again past 2^32, at an index whose low 32 bits are smaller (17): the first
 * is 1000, which a fold of the low words alone would miss; argmin and argmax again of the same
 * bytes as one column. */
START_TEST(test_more_than_2_pow_32_elements) {
  harness_gpu gpu = harness_gpu_open();
  const size_t n = ((size_t)1 << 32) + 4099, offset = 3;
  unsigned char *host = malloc(n + offset);
  ck_assert(host);
  for (size_t i = 0; i < n + offset; i += 8) {
    uint64_t bits = cureduce_ref_random();
    for (size_t b = 0; b < 8 && i + b < n + offset; b++)
      host[i + b] = (unsigned char)(1 + (bits >> (8 * b)) % 254); /* 1..254 */
  }
  size_t low_at = ((size_t)1 << 32) + 100, high_at = 1000, high_again_at = ((size_t)1 << 32) + 17;
  host[offset + low_at] = 0;
  host[offset + high_at] = 255;
  host[offset + high_again_at] = 255;
  CUdeviceptr device = harness_device_alloc(&gpu, n + offset);
  harness_upload(&gpu, device, host, n + offset);
  static const cureduce_op ops[] = {CUREDUCE_OP_SUM, CUREDUCE_OP_MAX, CUREDUCE_OP_ARGMIN, CUREDUCE_OP_ARGMAX};
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
    cureduce_dtype output = ops[o] == CUREDUCE_OP_SUM ? CUREDUCE_U64 : CUREDUCE_U8;
    cureduce_value got = reduce_to_host_on(gpu.context, ops[o], CUREDUCE_U8, device + offset, n, output, NULL);
    cureduce_ref_result expected = cureduce_ref_expected(ops[o], CUREDUCE_U8, output, host + offset, n);
    char why[256];
    ck_assert_msg(cureduce_ref_matches(ops[o], output, &got, &expected, why, sizeof why), "%s of 2^32+4099 u8: %s",
                  cureduce_op_name(ops[o]), why);
    if (ops[o] == CUREDUCE_OP_ARGMIN)
      ck_assert_int_eq(got.index, (int64_t)low_at);
    if (ops[o] == CUREDUCE_OP_ARGMAX)
      ck_assert_int_eq(got.index, (int64_t)high_at);
    if (ops[o] == CUREDUCE_OP_ARGMIN || ops[o] == CUREDUCE_OP_ARGMAX)
      check_one_tall_column(&gpu, ops[o], device + offset, n, &expected);
  }
  gpu.cu->cuMemFree(device);
  free(host);
  harness_gpu_close(&gpu);
}
END_TEST

/* argmin and argmax at 2^28 elements, on data with many ties (16 distinct values; every
 * element equal), then with a NaN as the very last element, and, for floats, with a second NaN
 * just before it: the first extreme, then the first NaN, whatever the kernel's vector folds do.
 * Loop index: f32, bf16, u8, f64 (2^27 elements). */
START_TEST(test_arg_ties_and_nan_at_the_end) {
  static const cureduce_dtype types[] = {CUREDUCE_F32, CUREDUCE_BF16, CUREDUCE_U8, CUREDUCE_F64};
  cureduce_dtype type = types[_i];
  bool is_float = type != CUREDUCE_U8;
  harness_gpu gpu = harness_gpu_open();
  const size_t n = type == CUREDUCE_F64 ? (size_t)1 << 27 : (size_t)1 << 28, element = cureduce_dtype_size(type);
  unsigned char *host = malloc(n * element);
  ck_assert(host);
  CUdeviceptr device = harness_device_alloc(&gpu, n * element);
  for (int variant = 0; variant < (is_float ? 4 : 2); variant++) {
    for (size_t i = 0; i < n; i++) { /* variant 0: 16 values; the others start from all equal */
      double x = variant == 0 ? (double)cureduce_ref_random_range(0, 15) : 3.0;
      if (is_float)
        cureduce_ref_put_float(type, host, i, x);
      else
        host[i] = (unsigned char)x;
    }
    if (variant >= 2)
      cureduce_ref_put_float(type, host, n - 1, NAN);
    if (variant == 3)
      cureduce_ref_put_float(type, host, n - 2, -NAN);
    harness_upload(&gpu, device, host, n * element);
    for (int o = 0; o < 2; o++) {
      cureduce_op op = o ? CUREDUCE_OP_ARGMAX : CUREDUCE_OP_ARGMIN;
      cureduce_value got = reduce_to_host_on(gpu.context, op, type, device, n, type, NULL);
      cureduce_ref_result expected = cureduce_ref_expected(op, type, type, host, n);
      char why[256];
      ck_assert_msg(cureduce_ref_matches(op, type, &got, &expected, why, sizeof why), "%s of %zu %s, variant %d: %s",
                    cureduce_op_name(op), n, cureduce_dtype_name(type), variant, why);
      if (variant == 1)
        ck_assert_int_eq(got.index, 0);
      if (variant >= 2)
        ck_assert_int_eq(got.index, (int64_t)(n - (variant == 3 ? 2 : 1)));
    }
  }
  gpu.cu->cuMemFree(device);
  free(host);
  harness_gpu_close(&gpu);
}
END_TEST

/* Each stream holds a workspace slot; with every slot held, a new stream is refused, clearly,
 * until one is released. The per-thread default stream works like any other. */
START_TEST(test_workspace_slots) {
  harness_gpu gpu = harness_gpu_open();
  cureduce_settings settings;
  cureduce_default_settings(&settings);
  settings.max_streams = 2;
  cureduce_context *small;
  ck_assert(cureduce_context_create(&small, &settings) == CUREDUCE_STATUS_OK);
  const size_t n = 1u << 22;
  float *host = malloc(n * 4);
  cureduce_ref_fill(CUREDUCE_OP_SUM, CUREDUCE_F32, host, n);
  cureduce_ref_result expected = cureduce_ref_expected(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, host, n);
  CUdeviceptr device = harness_device_alloc(&gpu, n * 4);
  harness_upload(&gpu, device, host, n * 4);
  CUstream streams[3];
  for (int s = 0; s < 3; s++)
    ck_assert(gpu.cu->cuStreamCreate(&streams[s], CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  cureduce_value result;
  for (int s = 0; s < 2; s++) {
    result = reduce_to_host_on(small, CUREDUCE_OP_SUM, CUREDUCE_F32, device, n, CUREDUCE_F32, streams[s]);
    ck_assert(result.value.f32 == expected.value.value.f32);
  }
  cureduce_status refused = cureduce_reduce_to_host(small, CUREDUCE_OP_SUM, CUREDUCE_F32, (const void *)(uintptr_t)device,
                                                    n, CUREDUCE_F32, &result, streams[2]);
  ck_assert_str_eq(cureduce_status_name(refused), "CUREDUCE_STATUS_TOO_MANY_STREAMS");
  ck_assert(strstr(cureduce_last_error_detail(), "cureduce_release_stream"));
  ck_assert(cureduce_release_stream(small, streams[0]) == CUREDUCE_STATUS_OK);
  result = reduce_to_host_on(small, CUREDUCE_OP_SUM, CUREDUCE_F32, device, n, CUREDUCE_F32, streams[2]);
  ck_assert(result.value.f32 == expected.value.value.f32);
  ck_assert(cureduce_release_stream(small, streams[1]) == CUREDUCE_STATUS_OK);
  result = reduce_to_host_on(small, CUREDUCE_OP_SUM, CUREDUCE_F32, device, n, CUREDUCE_F32, CU_STREAM_PER_THREAD);
  ck_assert(result.value.f32 == expected.value.value.f32);
  for (int s = 0; s < 3; s++)
    gpu.cu->cuStreamDestroy(streams[s]);
  cureduce_context_destroy(small);
  gpu.cu->cuMemFree(device);
  free(host);
  harness_gpu_close(&gpu);
}
END_TEST

/* argmin of each column of `host` (rows x cols f32) by the plan in the default stream's slot,
 * against the host reference, the output poisoned first. */
static void check_argmin_columns_in_slot(const harness_gpu *gpu, cureduce_plan *plan, const float *host, size_t rows,
                                         size_t cols, CUdeviceptr input, CUdeviceptr output, const char *what) {
  size_t result_bytes = cureduce_result_bytes(CUREDUCE_OP_ARGMIN, CUREDUCE_F32);
  harness_upload(gpu, input, host, rows * cols * sizeof *host);
  ck_assert(gpu->cu->cuMemsetD8(output, 0xA5, cols * result_bytes) == CUDA_SUCCESS);
  ck_assert_msg(cureduce_plan_execute(plan, (const void *)(uintptr_t)input, (void *)(uintptr_t)output, NULL, 0, NULL) ==
                    CUREDUCE_STATUS_OK,
                "%s", cureduce_last_error_detail());
  unsigned char *got = malloc(cols * result_bytes);
  float *columns = malloc(rows * cols * sizeof *columns);
  ck_assert(got && columns);
  harness_download(gpu, got, output, cols * result_bytes);
  cureduce_problem problem;
  cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_OP_ARGMIN, CUREDUCE_F32, CUREDUCE_F32, rows,
                               cols, cols);
  cureduce_ref_gather_columns(&problem, host, 0, cols, columns);
  for (size_t c = 0; c < cols; c++) {
    cureduce_ref_result expected =
        cureduce_ref_expected(CUREDUCE_OP_ARGMIN, CUREDUCE_F32, CUREDUCE_F32, columns + c * rows, rows);
    cureduce_value value = {.index = -1};
    memcpy(&value, got + c * result_bytes, result_bytes);
    char why[256];
    ck_assert_msg(cureduce_ref_matches(CUREDUCE_OP_ARGMIN, CUREDUCE_F32, &value, &expected, why, sizeof why),
                  "argmin of column %zu of %zu x %zu f32, %s: %s", c, rows, cols, what, why);
  }
  free(columns);
  free(got);
}

/* A slot's armed area (workspace.h) is zero before every launch that arms bytes there, with no
 * memset on the stream: each launch leaves it zero. Split words left by a first argmin would
 * win every column of a second whose elements all lie above the first's. */
START_TEST(test_slot_armed_area_left_zero) {
  harness_gpu gpu = harness_gpu_open();
  const size_t rows = 3000, cols = 1000, n = rows * cols;
  cureduce_problem problem;
  cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_OP_ARGMIN, CUREDUCE_F32, CUREDUCE_F32, rows,
                               cols, cols);
  cureduce_plan *plan;
  ck_assert_msg(cureduce_plan_create(&plan, gpu.context, &problem, NULL) == CUREDUCE_STATUS_OK, "%s",
                cureduce_last_error_detail());
  cureduce_plan_info info;
  ck_assert_msg(plan_spec(plan, &info).splits > 1 && info.workspace_bytes <= CUREDUCE_SLOT_BYTES, "%s: no split words in a slot (%zu bytes)",
                info.spec, info.workspace_bytes);
  float *low = malloc(n * sizeof *low), *high = malloc(n * sizeof *high);
  ck_assert(low && high);
  cureduce_ref_fill(CUREDUCE_OP_ARGMIN, CUREDUCE_F32, low, n);
  cureduce_ref_fill(CUREDUCE_OP_ARGMIN, CUREDUCE_F32, high, n);
  float low_max = low[0], high_min = high[0];
  for (size_t i = 0; i < n; i++)
    low_max = fmaxf(low_max, low[i]), high_min = fminf(high_min, high[i]);
  for (size_t i = 0; i < n; i++)
    high[i] += low_max - high_min + 1.0f;
  CUdeviceptr input = harness_device_alloc(&gpu, n * sizeof(float)), output = harness_device_alloc(&gpu, cols * 16);
  check_argmin_columns_in_slot(&gpu, plan, low, rows, cols, input, output, "first");
  check_argmin_columns_in_slot(&gpu, plan, high, rows, cols, input, output, "second, every element above the first's");
  ck_assert_msg(plan_spec(plan, &info).splits > 1, "%s: tuned to one split, no words left to see", info.spec);
  gpu.cu->cuMemFree(input);
  gpu.cu->cuMemFree(output);
  free(low);
  free(high);
  cureduce_plan_destroy(plan);
  harness_gpu_close(&gpu);
}
END_TEST

/* A host pointer would fault the kernel and poison the context: it is refused before launch,
 * and the context still works afterwards. */
START_TEST(test_host_pointer_refused) {
  harness_gpu gpu = harness_gpu_open();
  float *host = malloc(4096 * sizeof *host);
  cureduce_ref_fill(CUREDUCE_OP_SUM, CUREDUCE_F32, host, 4096);
  CUdeviceptr device = harness_device_alloc(&gpu, 4096 * 4), out = harness_device_alloc(&gpu, 16);
  cureduce_status status = cureduce_reduce(gpu.context, CUREDUCE_OP_SUM, CUREDUCE_F32, host, 4096, CUREDUCE_F32,
                                           (void *)(uintptr_t)out, NULL);
  ck_assert_str_eq(cureduce_status_name(status), "CUREDUCE_STATUS_NOT_DEVICE_POINTER");
  float result;
  status = cureduce_reduce(gpu.context, CUREDUCE_OP_SUM, CUREDUCE_F32, (const void *)(uintptr_t)device, 4096,
                           CUREDUCE_F32, &result, NULL);
  ck_assert_str_eq(cureduce_status_name(status), "CUREDUCE_STATUS_NOT_DEVICE_POINTER");
  harness_upload(&gpu, device, host, 4096 * 4);
  cureduce_ref_result expected = cureduce_ref_expected(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, host, 4096);
  ck_assert(reduce_to_host_on(gpu.context, CUREDUCE_OP_SUM, CUREDUCE_F32, device, 4096, CUREDUCE_F32, NULL).value.f32 ==
            expected.value.value.f32);
  gpu.cu->cuMemFree(device);
  gpu.cu->cuMemFree(out);
  free(host);
  harness_gpu_close(&gpu);
}
END_TEST

/* A stream of another CUDA context is refused with a plain status, and the library still works. */
START_TEST(test_stream_of_another_context_refused) {
  harness_gpu gpu = harness_gpu_open();
  /* A second context, made through libcuda's own exports: the library has no use for one. */
  void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  ck_assert(libcuda);
  CUresult (*create)(CUcontext *, unsigned, CUdevice);
  CUresult (*destroy)(CUcontext);
  void *symbol = dlsym(libcuda, "cuCtxCreate_v2");
  memcpy(&create, &symbol, sizeof symbol);
  symbol = dlsym(libcuda, "cuCtxDestroy_v2");
  memcpy(&destroy, &symbol, sizeof symbol);
  ck_assert(create && destroy);
  CUcontext other, popped;
  CUstream foreign;
  ck_assert(create(&other, 0, gpu.context->device) == CUDA_SUCCESS); /* pushed: current now */
  ck_assert(gpu.cu->cuStreamCreate(&foreign, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  ck_assert(gpu.cu->cuCtxPopCurrent(&popped) == CUDA_SUCCESS && popped == other);

  const size_t n = 100003;
  float *host = malloc(n * sizeof *host);
  cureduce_ref_fill(CUREDUCE_OP_SUM, CUREDUCE_F32, host, n);
  CUdeviceptr input = harness_device_alloc(&gpu, n * 4), output = harness_device_alloc(&gpu, 4);
  harness_upload(&gpu, input, host, n * 4);
  cureduce_status status = cureduce_reduce(gpu.context, CUREDUCE_OP_SUM, CUREDUCE_F32, (const void *)(uintptr_t)input,
                                           n, CUREDUCE_F32, (void *)(uintptr_t)output, foreign);
  ck_assert_str_eq(cureduce_status_name(status), "CUREDUCE_STATUS_INVALID_ARGUMENT");
  ck_assert_msg(strstr(cureduce_last_error_detail(), "another CUDA context"), "%s", cureduce_last_error_detail());
  cureduce_release_stream(gpu.context, foreign);
  cureduce_ref_result expected = cureduce_ref_expected(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, host, n);
  cureduce_value got = reduce_to_host_on(gpu.context, CUREDUCE_OP_SUM, CUREDUCE_F32, input, n, CUREDUCE_F32, NULL);
  char why[256];
  ck_assert_msg(cureduce_ref_matches(CUREDUCE_OP_SUM, CUREDUCE_F32, &got, &expected, why, sizeof why), "%s", why);
  gpu.cu->cuStreamDestroy(foreign);
  destroy(other);
  dlclose(libcuda);
  gpu.cu->cuMemFree(input);
  gpu.cu->cuMemFree(output);
  free(host);
  harness_gpu_close(&gpu);
}
END_TEST

/* Tuning on first use: the first call of a bucket tunes it on the caller's data and stores the
 * choice; every call, the first included, returns the right result on fresh data. */
START_TEST(test_tuning_on_first_use) {
  char *folder = harness_temporary_folder();
  ck_assert(folder);
  cureduce_context *context = harness_context_in(folder, CUREDUCE_TUNING_ON_FIRST_USE);
  harness_gpu gpu = harness_gpu_open(); /* for allocations and copies */
  const size_t sizes[] = {70001, 3000017};
  /* A heuristic choice made first (as before a graph capture) does not stop the tuning. */
  cureduce_problem first;
  cureduce_problem_init(&first, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, sizes[0]);
  ck_assert(cureduce_precompile(context, &first, 1) == CUREDUCE_STATUS_OK);
  for (int s = 0; s < 2; s++) {
    size_t n = sizes[s];
    ck_assert(!cureduce_plan_is_tuned(context, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, n));
    float *host = malloc(n * sizeof *host);
    CUdeviceptr input = harness_device_alloc(&gpu, n * 4);
    for (int call = 0; call < 3; call++) {
      cureduce_ref_fill(CUREDUCE_OP_SUM, CUREDUCE_F32, host, n);
      harness_upload(&gpu, input, host, n * 4);
      cureduce_value got = reduce_to_host_on(context, CUREDUCE_OP_SUM, CUREDUCE_F32, input, n, CUREDUCE_F32, NULL);
      cureduce_ref_result expected = cureduce_ref_expected(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, host, n);
      char why[256];
      ck_assert_msg(cureduce_ref_matches(CUREDUCE_OP_SUM, CUREDUCE_F32, &got, &expected, why, sizeof why),
                    "n = %zu, call %d: %s", n, call, why);
      ck_assert(cureduce_plan_is_tuned(context, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, n));
    }
    gpu.cu->cuMemFree(input);
    free(host);
  }
  /* The choices reached the database: a new context with cached tuning finds both. */
  cureduce_context *later = harness_context_in(folder, CUREDUCE_TUNING_CACHED);
  for (int s = 0; s < 2; s++)
    ck_assert_msg(cureduce_plan_is_tuned(later, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, sizes[s]),
                  "bucket of %zu not stored", sizes[s]);
  cureduce_context_destroy(later);
  cureduce_context_destroy(context);
  harness_gpu_close(&gpu);
  ck_assert(harness_remove_tree(folder));
}
END_TEST

int main(void) {
  harness_split_into_shards();
  Suite *suite = suite_create("gpu-semantics");
  TCase *ieee = tcase_create("ieee");
  harness_add_loop_test(ieee, test_ieee_special_values, 0, 4);
  suite_add_tcase(suite, ieee);
  TCase *runs = tcase_create("runs");
  tcase_set_timeout(runs, 600);
  harness_add_test(runs, test_bitwise_deterministic);
  harness_add_test(runs, test_two_threads_two_streams);
  harness_add_test(runs, test_more_than_2_pow_32_elements);
  harness_add_loop_test(runs, test_arg_ties_and_nan_at_the_end, 0, 4);
  harness_add_test(runs, test_workspace_slots);
  harness_add_test(runs, test_slot_armed_area_left_zero);
  harness_add_test(runs, test_host_pointer_refused);
  harness_add_test(runs, test_stream_of_another_context_refused);
  harness_add_test(runs, test_tuning_on_first_use);
  suite_add_tcase(suite, runs);
  return harness_run(suite, true);
}
