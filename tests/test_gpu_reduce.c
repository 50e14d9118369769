/* Every operation of one input type (argv[1]), against the host reference: sizes from 0 to
 * 2^24 + 7 and three random ones, every element-aligned start offset from 0 to 15 bytes, each
 * output type the pair allows; fresh random data, the output and guard bytes around it
 * poisoned before each run. With "ladder" as argv[2], every rung of the ladder instead of the
 * library's own plan, for sum, min and max. With CUREDUCE_TEST_LIGHT=1 (for runs under
 * compute-sanitizer, which slows each launch a hundredfold) the sizes stop at 2^17 and the start
 * offsets are the first and the last element-aligned one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "execute.h"
#include "harness.h"
#include "plan.h"
#include "reduce.h"

static cureduce_dtype tested_type;
static const cureduce_op ladder_ops[] = {CUREDUCE_OP_SUM, CUREDUCE_OP_MIN, CUREDUCE_OP_MAX};

/* What runs one reduction: the public call, or one strategy of the ladder with its scratch. */
typedef struct reducer {
  int strategy; /* -1: cureduce_reduce and the library's plan */
  CUdeviceptr scratch;
} reducer;

static cureduce_status run_reducer(const harness_gpu *gpu, const reducer *r, cureduce_op op, cureduce_dtype output,
                                   CUdeviceptr input, size_t n, CUdeviceptr out) {
  const void *in = (const void *)(uintptr_t)input;
  void *result = (void *)(uintptr_t)out;
  if (r->strategy < 0)
    return cureduce_reduce(gpu->context, op, tested_type, in, n, output, result, NULL);
  cureduce_spec spec = cureduce_plan_strategy_spec((cureduce_strategy)r->strategy, op, tested_type, output,
                                                   gpu->context->info.max_threads_per_sm);
  return cureduce_reduce_spec(gpu->context, &spec, in, n, result, NULL, (void *)(uintptr_t)r->scratch);
}

enum { poison_byte = 0xA5, output_area = 64, result_offset = 16, max_offset_bytes = 16 };

static size_t sizes[16] = {0, 1, 2, 31, 32, 33, 255, 1023, 1024, 1025, 65537, (1u << 20) - 1, (1u << 24) + 7};
static const size_t fixed_size_count = 13, size_count = 16;
#define LARGEST ((size_t)(1u << 24) + 7)

/* One reduction: poison, run, check the guard bytes, compare with the reference. */
static void check_one(const harness_gpu *gpu, const reducer *r, cureduce_op op, cureduce_dtype output,
                      CUdeviceptr input, const unsigned char *host, size_t n, CUdeviceptr out_area) {
  ck_assert(gpu->cu->cuMemsetD8(out_area, poison_byte, output_area) == CUDA_SUCCESS);
  cureduce_status status = run_reducer(gpu, r, op, output, input, n, out_area + result_offset);
  if (n == 0 && op != CUREDUCE_OP_SUM && op != CUREDUCE_OP_PROD) {
    ck_assert_msg(status == CUREDUCE_STATUS_EMPTY_INPUT, "%s of 0 elements gave %s", cureduce_op_name(op),
                  cureduce_status_name(status));
    return;
  }
  ck_assert_msg(status == CUREDUCE_STATUS_OK, "%s", cureduce_last_error_detail());
  unsigned char area[output_area];
  harness_download(gpu, area, out_area, sizeof area);
  size_t result_size = (op == CUREDUCE_OP_ARGMIN || op == CUREDUCE_OP_ARGMAX) ? 16 : cureduce_dtype_size(output);
  for (size_t i = 0; i < sizeof area; i++)
    if (i < result_offset || i >= result_offset + result_size)
      ck_assert_msg(area[i] == poison_byte, "%s %s->%s n=%zu wrote guard byte %zu", cureduce_op_name(op),
                    cureduce_dtype_name(tested_type), cureduce_dtype_name(output), n, i);
  cureduce_value got = {.index = -1};
  memcpy(&got, area + result_offset, result_size);
  cureduce_ref_result expected = cureduce_ref_expected(op, tested_type, output, host, n);
  char why[256];
  ck_assert_msg(cureduce_ref_matches(op, output, &got, &expected, why, sizeof why), "%s %s %s->%s n=%zu offset %zu: %s",
                r->strategy < 0 ? "plan" : cureduce_strategy_name((cureduce_strategy)r->strategy),
                cureduce_op_name(op), cureduce_dtype_name(tested_type), cureduce_dtype_name(output), n,
                (size_t)(input % max_offset_bytes), why);
}

static bool light(void) {
  const char *value = getenv("CUREDUCE_TEST_LIGHT");
  return value && strcmp(value, "1") == 0;
}

/* Every size, offset and output type of one operation, on fresh data. */
static void check_operation(cureduce_op op, int strategy) {
  for (size_t s = fixed_size_count; s < size_count; s++)
    sizes[s] = (size_t)cureduce_ref_random_range(2, light() ? 1 << 17 : 1 << 20);
  harness_gpu gpu = harness_gpu_open();
  size_t element = cureduce_dtype_size(tested_type), count = LARGEST + max_offset_bytes / element;
  unsigned char *host = malloc(count * element);
  ck_assert(host);
  cureduce_ref_fill(op, tested_type, host, count);
  CUdeviceptr input = harness_device_alloc(&gpu, count * element), out_area = harness_device_alloc(&gpu, output_area);
  harness_upload(&gpu, input, host, count * element);

  cureduce_dtype accumulator;
  ck_assert(cureduce_accumulator_type(op, tested_type, &accumulator) == CUREDUCE_STATUS_OK);
  reducer r = {strategy, 0};
  if (strategy >= 0) {
    cureduce_spec spec = cureduce_plan_strategy_spec((cureduce_strategy)strategy, op, tested_type, accumulator,
                                                     gpu.context->info.max_threads_per_sm);
    r.scratch = harness_device_alloc(&gpu, cureduce_execute_scratch_bytes(&spec, gpu.context->info.sm_count, LARGEST) + 16);
  }
  cureduce_dtype outputs[2] = {tested_type, accumulator};
  size_t offset_step = light() ? max_offset_bytes - element : element;
  for (int o = 0; o < (accumulator == tested_type ? 1 : 2); o++)
    for (size_t s = 0; s < size_count; s++)
      for (size_t offset = 0; offset < max_offset_bytes && !(light() && sizes[s] > (1u << 17)); offset += offset_step)
        check_one(&gpu, &r, op, outputs[o], input + offset, host + offset, sizes[s], out_area);

  if (r.scratch)
    gpu.cu->cuMemFree(r.scratch);
  gpu.cu->cuMemFree(input);
  gpu.cu->cuMemFree(out_area);
  free(host);
  harness_gpu_close(&gpu);
}

START_TEST(test_operation_matrix) { check_operation((cureduce_op)_i, -1); }
END_TEST

/* Loop index: rung * 3 + which of sum, min, max. */
START_TEST(test_ladder_matrix) { check_operation(ladder_ops[_i % 3], CUREDUCE_STRATEGY_RUNG0 + _i / 3); }
END_TEST

int main(int argc, char **argv) {
  int type = -1;
  for (int t = 0; (argc == 2 || argc == 3) && t < CUREDUCE_DTYPE_COUNT; t++)
    if (strcmp(argv[1], cureduce_dtype_name((cureduce_dtype)t)) == 0)
      type = t;
  bool ladder = argc == 3 && strcmp(argv[2], "ladder") == 0;
  if (type < 0 || (argc == 3 && !ladder)) {
    fprintf(stderr, "usage: %s TYPE [ladder]   (TYPE: f16, bf16, f32, f64, i8, u8, i32, u32, i64, u64)\n", argv[0]);
    return 2;
  }
  tested_type = (cureduce_dtype)type;
  Suite *suite = suite_create(ladder ? "gpu-ladder" : "gpu-reduce");
  TCase *matrix = tcase_create("matrix");
  tcase_set_timeout(matrix, 600);
  if (ladder)
    tcase_add_loop_test(matrix, test_ladder_matrix, 0, 3 * (CUREDUCE_STRATEGY_COUNT - CUREDUCE_STRATEGY_RUNG0));
  else
    tcase_add_loop_test(matrix, test_operation_matrix, 0, CUREDUCE_OP_COUNT);
  suite_add_tcase(suite, matrix);
  return harness_run(suite, true);
}
