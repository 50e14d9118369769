/* Every operation of one input type (argv[1]), against the host reference, through every way a
 * user reaches a kernel:
 *   shortcut  cureduce_reduce(), the context's plan for the size bucket;
 *   library   a plan from cureduce_plan_create(), executed in the stream's workspace slot;
 *   caller    the same plan, executed in a workspace of the test's own, filled with garbage;
 *   pinned    every spec the tuner may pick (cureduce_tune_space), pinned one by one, in a caller
 *             workspace, on a subset of sizes and offsets that covers one block, several, and a
 *             grid at its cap;
 * each over sizes from 0 to 2^24 + 7 and three random ones (exact_sum: bitwise, on data whose sums round), every element-aligned start offset
 * from 0 to 15 bytes and each output type the pair allows, on fresh random data, the output and the
 * guard bytes around it poisoned before each run. Float sums run twice: on data whose sums are
 * exact (any dropped or doubled element shows), and on data whose sums round, within a bound
 * derived from the kernel's evaluation tree (see single_pass_depth).
 * With "ladder" as argv[2], every rung of the teaching ladder instead, for sum, min and max.
 * With CUREDUCE_TEST_LIGHT=1 (for runs under compute-sanitizer, which slows each launch a
 * hundredfold) the sizes stop at 2^17 and the start offsets are the first and the last. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "execute.h"
#include "dtype.h"
#include "harness.h"
#include "ladder.h"
#include "tune.h"

static cureduce_dtype tested_type;
static const cureduce_op ladder_ops[] = {CUREDUCE_OP_SUM, CUREDUCE_OP_MIN, CUREDUCE_OP_MAX};

typedef enum mode { MODE_SHORTCUT, MODE_LIBRARY, MODE_CALLER, MODE_PINNED, MODE_LADDER, MODE_COUNT } mode;
static const char *const mode_names[MODE_COUNT] = {"shortcut", "library workspace", "caller workspace", "pinned",
                                                   "ladder"};

/* What runs one reduction, and what the run needs. */
typedef struct reducer {
  mode mode;
  cureduce_spec spec;    /* MODE_PINNED and MODE_LADDER */
  CUdeviceptr scratch;   /* MODE_LADDER: the classic passes' buffers; MODE_CALLER, MODE_PINNED: the workspace */
  size_t scratch_bytes;
} reducer;

enum { poison_byte = 0xA5, output_area = 64, result_offset = 16, max_offset_bytes = 16 };

/* The most additions any element meets in the single-pass kernel (kernel_templates/accumulate.cuh,
 * grid_stride_accumulate and finish_single_pass): its thread takes at most ceil(vectors / threads)
 * vectors of vector_elements each into its accumulators, one at a time, plus a head and a tail
 * element; the unroll accumulators fold in a chain; a warp folds in 5 shuffle levels and warp 0
 * folds the block's warps in 5 more; the last block's threads fold ceil(grid / block) partials
 * each, then the same 10 levels. Two more for the identities the folds start from. */
static unsigned single_pass_depth(const cureduce_spec *spec, unsigned grid, size_t n) {
  size_t threads = (size_t)grid * spec->block, per_vector = spec->vector_bytes / cureduce_dtype_size(tested_type);
  size_t chain = (n / per_vector / threads + 1) * per_vector + 2 + spec->unroll;
  return (unsigned)(chain + 10 + (grid + spec->block - 1) / spec->block + 10 + 2);
}

/* The plan cureduce_plan_create makes for the call, or the pinned one. */
static cureduce_plan *make_plan(const harness_gpu *gpu, const reducer *r, cureduce_op op, cureduce_dtype output,
                                size_t n, cureduce_status *status) {
  cureduce_problem problem;
  cureduce_problem_init(&problem, op, tested_type, output, n);
  char text[CUREDUCE_SPEC_TEXT_MAX];
  cureduce_spec_format(&r->spec, text);
  cureduce_plan *plan = NULL;
  *status = cureduce_plan_create(&plan, gpu->context, &problem, r->mode == MODE_PINNED ? text : NULL);
  return plan;
}

/* Runs one reduction; *depth is the bound on additions per element of the kernel that ran. */
static cureduce_status run_reducer(const harness_gpu *gpu, const reducer *r, cureduce_op op, cureduce_dtype output,
                                   CUdeviceptr input, size_t n, CUdeviceptr out, unsigned *depth) {
  const void *in = (const void *)(uintptr_t)input;
  void *result = (void *)(uintptr_t)out;
  if (r->mode == MODE_LADDER)
    return cureduce_ladder_run(gpu->context, &r->spec, in, n, result, NULL, (void *)(uintptr_t)r->scratch);
  cureduce_status status = CUREDUCE_STATUS_OK;
  if (r->mode == MODE_SHORTCUT) {
    status = cureduce_reduce(gpu->context, op, tested_type, in, n, output, result, NULL);
    if (status != CUREDUCE_STATUS_OK)
      return status;
  }
  cureduce_status made;
  cureduce_plan *plan = make_plan(gpu, r, op, output, n, &made);
  if (made != CUREDUCE_STATUS_OK)
    return made;
  cureduce_plan_info info;
  ck_assert(cureduce_plan_describe(plan, &info) == CUREDUCE_STATUS_OK);
  cureduce_spec ran;
  ck_assert(cureduce_spec_parse(info.spec, &ran) == CUREDUCE_STATUS_OK);
  *depth = single_pass_depth(&ran, info.grid, n);
  if (r->mode == MODE_SHORTCUT) {
    /* ran above; the plan only told which kernel that was */
  } else if (r->mode == MODE_LIBRARY) {
    status = cureduce_plan_execute(plan, in, result, NULL, 0, NULL);
  } else {
    ck_assert_msg(info.workspace_bytes <= r->scratch_bytes, "plan %s wants %zu workspace bytes", info.spec,
                  info.workspace_bytes);
    /* Garbage in the ticket and the partials: an execution must not depend on what was there. */
    ck_assert(gpu->cu->cuMemsetD8(r->scratch, 0xA5, r->scratch_bytes) == CUDA_SUCCESS);
    status = cureduce_plan_execute(plan, in, result, (void *)(uintptr_t)r->scratch, info.workspace_bytes, NULL);
  }
  cureduce_plan_destroy(plan);
  return status;
}

/* One reduction: poison, run, check the guard bytes, compare with the reference. */
static void check_one(const harness_gpu *gpu, const reducer *r, cureduce_op op, cureduce_dtype output,
                      CUdeviceptr input, const unsigned char *host, size_t n, CUdeviceptr out_area, bool rounding) {
  ck_assert(gpu->cu->cuMemsetD8(out_area, poison_byte, output_area) == CUDA_SUCCESS);
  unsigned depth = 0;
  cureduce_status status = run_reducer(gpu, r, op, output, input, n, out_area + result_offset, &depth);
  if (n == 0 && op != CUREDUCE_OP_SUM && op != CUREDUCE_OP_PROD && op != CUREDUCE_OP_EXACT_SUM) {
    ck_assert_msg(status == CUREDUCE_STATUS_EMPTY_INPUT, "%s of 0 elements gave %s", cureduce_op_name(op),
                  cureduce_status_name(status));
    return;
  }
  ck_assert_msg(status == CUREDUCE_STATUS_OK, "%s: %s", mode_names[r->mode], cureduce_last_error_detail());
  unsigned char area[output_area];
  harness_download(gpu, area, out_area, sizeof area);
  size_t result_size = (op == CUREDUCE_OP_ARGMIN || op == CUREDUCE_OP_ARGMAX) ? 16 : cureduce_dtype_size(output);
  for (size_t i = 0; i < sizeof area; i++)
    if (i < result_offset || i >= result_offset + result_size)
      ck_assert_msg(area[i] == poison_byte, "%s %s->%s n=%zu wrote guard byte %zu", cureduce_op_name(op),
                    cureduce_dtype_name(tested_type), cureduce_dtype_name(output), n, i);
  cureduce_value got = {.index = -1};
  memcpy(&got, area + result_offset, result_size);
  cureduce_ref_result expected = rounding ? cureduce_ref_expected_sum(tested_type, output, host, n, depth)
                                          : cureduce_ref_expected(op, tested_type, output, host, n);
  ck_assert_msg(expected.tolerance < 1e300, "depth %u leaves no useful bound", depth);
  char why[256], spec[CUREDUCE_SPEC_TEXT_MAX];
  cureduce_spec_format(&r->spec, spec);
  ck_assert_msg(cureduce_ref_matches(op, output, &got, &expected, why, sizeof why),
                "%s%s%s %s %s->%s n=%zu offset %zu%s: %s", mode_names[r->mode], r->mode >= MODE_PINNED ? " " : "",
                r->mode >= MODE_PINNED ? spec : "", cureduce_op_name(op), cureduce_dtype_name(tested_type),
                cureduce_dtype_name(output), n, (size_t)(input % max_offset_bytes),
                rounding ? " (data that rounds)" : "", why);
}

static bool light(void) {
  const char *value = getenv("CUREDUCE_TEST_LIGHT");
  return value && strcmp(value, "1") == 0;
}

static size_t sizes[16] = {0, 1, 2, 31, 32, 33, 255, 1023, 1024, 1025, 65537, (1u << 20) - 1, (1u << 24) + 7};
static const size_t fixed_size_count = 13, size_count = 16;
#define LARGEST ((size_t)(1u << 24) + 7)
/* The pinned sweep's sizes (indices into sizes): one element, one block, a few blocks, a grid at
 * its cap, and a random one. */
static const size_t pinned_sizes[] = {1, 5, 10, 11, 13};

static bool is_float_type(cureduce_dtype type) { return type <= CUREDUCE_F64; }

/* Every size, offset and output type of one operation, on one set of fresh data. */
static void sweep(const harness_gpu *gpu, const reducer *r, cureduce_op op, CUdeviceptr input,
                  const unsigned char *host, CUdeviceptr out_area, bool rounding) {
  cureduce_dtype accumulator;
  ck_assert(cureduce_accumulator_type(op, tested_type, &accumulator) == CUREDUCE_STATUS_OK);
  cureduce_dtype outputs[2] = {tested_type, accumulator};
  size_t element = cureduce_dtype_size(tested_type);
  bool subset = r->mode == MODE_PINNED || light();
  size_t offset_step = subset ? max_offset_bytes - element : element;
  size_t count = r->mode == MODE_PINNED ? sizeof pinned_sizes / sizeof pinned_sizes[0] : size_count;
  for (int o = 0; o < (accumulator == tested_type ? 1 : 2); o++) {
    if (r->mode >= MODE_PINNED && r->spec.output != outputs[o])
      continue; /* a spec names its output type */
    for (size_t i = 0; i < count; i++) {
      size_t n = sizes[r->mode == MODE_PINNED ? pinned_sizes[i] : i];
      for (size_t offset = 0; offset < max_offset_bytes && !(light() && n > (1u << 17)); offset += offset_step)
        check_one(gpu, r, op, outputs[o], input + offset, host + offset, n, out_area, rounding);
    }
  }
}

/* Runs the sweep on data from cureduce_ref_fill, and for float sums again on data that rounds. */
static void check_reducer(const harness_gpu *gpu, const reducer *r, cureduce_op op) {
  size_t element = cureduce_dtype_size(tested_type);
  size_t count = (r->mode == MODE_PINNED ? (size_t)1 << 20 : LARGEST) + max_offset_bytes / element;
  unsigned char *host = malloc(count * element);
  ck_assert(host);
  CUdeviceptr input = harness_device_alloc(gpu, count * element), out_area = harness_device_alloc(gpu, output_area);
  for (int rounding = 0; rounding < (op == CUREDUCE_OP_SUM && is_float_type(tested_type) && r->mode != MODE_LADDER ? 2 : 1);
       rounding++) {
    if (rounding)
      cureduce_ref_fill_rounding(tested_type, host, count);
    else
      cureduce_ref_fill(op, tested_type, host, count);
    harness_upload(gpu, input, host, count * element);
    sweep(gpu, r, op, input, host, out_area, rounding);
  }
  gpu->cu->cuMemFree(input);
  gpu->cu->cuMemFree(out_area);
  free(host);
}

static void draw_random_sizes(void) {
  for (size_t s = fixed_size_count; s < size_count; s++)
    sizes[s] = (size_t)cureduce_ref_random_range(2, light() ? 1 << 17 : 1 << 20);
}

/* exact_sum, norm2, the moments and logsumexp take float inputs only: for the others, their
 * refusal is what there is to check. But for exact_sum, their own sweeps of every road and tunable
 * spec are gpu-transforms' (the fused computations), which keeps this suite within a GPU run's
 * time. */
static bool refused_here(cureduce_op op) {
  if (!cureduce_op_is_float_only(op))
    return false;
  if (is_float_type(tested_type))
    return op != CUREDUCE_OP_EXACT_SUM;
  cureduce_dtype accumulator;
  ck_assert(cureduce_accumulator_type(op, tested_type, &accumulator) == CUREDUCE_STATUS_UNSUPPORTED);
  return true;
}

/* Loop index: operation * 3 + mode (shortcut, library workspace, caller workspace). */
START_TEST(test_operation_matrix) {
  if (refused_here((cureduce_op)(_i / 3)))
    return;
  draw_random_sizes();
  harness_gpu gpu = harness_gpu_open();
  reducer r = {.mode = (mode)(_i % 3), .scratch_bytes = CUREDUCE_WORKSPACE_MAX_BYTES};
  if (r.mode == MODE_CALLER)
    r.scratch = harness_device_alloc(&gpu, r.scratch_bytes);
  check_reducer(&gpu, &r, (cureduce_op)(_i / 3));
  if (r.scratch)
    gpu.cu->cuMemFree(r.scratch);
  harness_gpu_close(&gpu);
}
END_TEST

/* Loop index: the operation; every spec the tuner may pick for each of its output types. */
START_TEST(test_every_tunable_spec) {
  if (refused_here((cureduce_op)_i))
    return;
  draw_random_sizes();
  harness_gpu gpu = harness_gpu_open();
  cureduce_op op = (cureduce_op)_i;
  cureduce_dtype accumulator;
  ck_assert(cureduce_accumulator_type(op, tested_type, &accumulator) == CUREDUCE_STATUS_OK);
  reducer r = {.mode = MODE_PINNED, .scratch_bytes = CUREDUCE_WORKSPACE_MAX_BYTES};
  r.scratch = harness_device_alloc(&gpu, r.scratch_bytes);
  cureduce_dtype outputs[2] = {tested_type, accumulator};
  for (int o = 0; o < (accumulator == tested_type ? 1 : 2); o++) {
    cureduce_tune_job job = {.op = op, .input = tested_type, .output = outputs[o]};
    cureduce_spec specs[64];
    size_t count = cureduce_tune_space(&job, &gpu.context->info, false, specs, 64);
    ck_assert(count > 1);
    harness_compile_ahead(&gpu, specs, count);
    for (size_t i = 0; i < count; i++) {
      r.spec = specs[i];
      check_reducer(&gpu, &r, op);
    }
  }
  gpu.cu->cuMemFree(r.scratch);
  harness_gpu_close(&gpu);
}
END_TEST

/* Loop index: rung * 3 + which of sum, min, max. */
START_TEST(test_ladder_matrix) {
  draw_random_sizes();
  harness_gpu gpu = harness_gpu_open();
  cureduce_op op = ladder_ops[_i % 3];
  cureduce_dtype accumulator;
  ck_assert(cureduce_accumulator_type(op, tested_type, &accumulator) == CUREDUCE_STATUS_OK);
  cureduce_dtype outputs[2] = {tested_type, accumulator};
  for (int o = 0; o < (accumulator == tested_type ? 1 : 2); o++) {
    reducer r = {.mode = MODE_LADDER};
    r.spec = cureduce_spec_for_strategy((cureduce_strategy)(CUREDUCE_STRATEGY_RUNG0 + _i / 3), op, tested_type,
                                        outputs[o], gpu.context->info.max_threads_per_sm);
    r.scratch_bytes = cureduce_ladder_scratch_bytes(&r.spec, gpu.context->info.sm_count, LARGEST) + 16;
    r.scratch = harness_device_alloc(&gpu, r.scratch_bytes);
    check_reducer(&gpu, &r, op);
    gpu.cu->cuMemFree(r.scratch);
  }
  harness_gpu_close(&gpu);
}
END_TEST

int main(int argc, char **argv) {
  int type = argc == 2 || argc == 3 ? cureduce_dtype_from_name(argv[1]) : -1;
  bool ladder = argc == 3 && strcmp(argv[2], "ladder") == 0;
  if (type < 0 || (argc == 3 && !ladder)) {
    fprintf(stderr, "usage: %s TYPE [ladder]   (TYPE: f16, bf16, f32, f64, i8, u8, i32, u32, i64, u64)\n", argv[0]);
    return 2;
  }
  tested_type = (cureduce_dtype)type;
  harness_split_into_shards();
  Suite *suite = suite_create(ladder ? "gpu-ladder" : "gpu-reduce");
  TCase *matrix = tcase_create("matrix");
  tcase_set_timeout(matrix, 600);
  if (ladder) {
    harness_add_loop_test(matrix, test_ladder_matrix, 0, 3 * (CUREDUCE_STRATEGY_COUNT - CUREDUCE_STRATEGY_RUNG0));
  } else {
    harness_add_loop_test(matrix, test_operation_matrix, 0, 3 * CUREDUCE_OP_COUNT);
    harness_add_loop_test(matrix, test_every_tunable_spec, 0, CUREDUCE_OP_COUNT);
  }
  suite_add_tcase(suite, matrix);
  return harness_run(suite, true);
}
