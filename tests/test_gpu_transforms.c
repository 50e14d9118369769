/* The fused computations of one float input type (argv[1]) against the host reference: the
 * transforms (abs, square, nonzero, user expressions: "x * x" and a predicate; of two inputs: the
 * product, whose sum is the dot product, and a distance, test_pairs), norm2, and the
 * statistics (mean, variances, standard deviations, logsumexp: test_statistics and its planted
 * cases: a mean of 1e8, values near +-1e4, NaN, infinities).
 * Every operation a transform takes and each output type it allows, on whole arrays (1 to 2^20 + 3
 * elements, aligned and one element off); sum, max, argmax and norm2 on rows (compiled and
 * run-time lengths, padded, split), columns and segments (empty ones among them) through the
 * heuristic's plan, and for sums (of abs, nonzero and an expression) and the plain norm2 every spec
 * the tuner may pick for one shape of each family (cureduce_shape_tune_space), pinned; norm2 of
 * whole arrays through the shortcut, a plan and every spec the whole-array tuner may pick, on data
 * whose squares leave the type's range; planted cases of the documented semantics (abs: -x and x
 * tie at the first index, -0 is +0, a NaN wins; nonzero: all zeros, a NaN counts); "x * x" against
 * the built-in square, bit for bit; a user map's compile error; and a transformed shape and a
 * user-mapped whole array tuned by cureduce_tune_problems, each a class of its own. The reference
 * maps the data on the host (cureduce_ref_map, its own account of each map), reduces the mapped
 * values in higher precision, and converts to the output type. Every result and the guard after
 * them poisoned before each run; float sums run on data that rounds, within gamma(depth) sum|x|
 * (an extra level for a square fused into its add). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "harness.h"
#include "plan.h"
#include "problem.h"
#include "shape.h"
#include "tune.h"

static cureduce_dtype tested_type;
static harness_gpu gpu;
static CUdeviceptr input_buffer, offsets_buffer, output_buffer, scratch;

/* max_result_bytes: 8192 results of the widest kind, a whole cureduce_value (the variances and
 * standard deviations), the guard after them. */
enum {
  poison_byte = 0xA5,
  guard_bytes = 64,
  max_elements = (1 << 20) + 8,
  max_segments = 1000,
  max_result_bytes = 8192 * sizeof(cureduce_value)
};
static const size_t scratch_bytes = 64u << 20;

/* ---- data and the reference -------------------------------------------------------------------- */

/* Fresh data for the operation, or data whose sums round; for nonzero a third of it ±0. */
static void fill(cureduce_op op, cureduce_transform transform, bool rounding, void *data, size_t count) {
  if (rounding)
    cureduce_ref_fill_rounding(tested_type, data, count);
  else
    cureduce_ref_fill(op, tested_type, data, count);
  if (transform == CUREDUCE_TRANSFORM_NONZERO)
    for (size_t i = 0; i < count; i++)
      if (cureduce_ref_random_range(0, 2) == 0)
        cureduce_ref_put_float(tested_type, data, i, cureduce_ref_random_range(0, 1) ? 0.0 : -0.0);
}

/* The user expressions tested, each with the host's account of it: a square (which must also give
 * the built-in square's bits) and a predicate. */
static const char *const square_text = "x * x";
static const char *predicate_text(void) { return tested_type == CUREDUCE_F64 ? "x > 0.5 ? 1.0 : 0.0" : "x > 0.5f ? 1.0f : 0.0f"; }

/* The maps of two inputs tested: the product (the dot product's) and a user map of both, the
 * distance |x - y|, in the float accumulator type as the kernel computes them (one rounding). */
static const char *const distance_text = "fabs(x - y)";

static void map_pair_on_host(const cureduce_problem *p, const void *x, const void *y, size_t n, void *mapped) {
  if (p->transform == CUREDUCE_TRANSFORM_PRODUCT) {
    cureduce_ref_map_product(p->input_type, x, y, n, mapped);
    return;
  }
  ck_assert_str_eq(p->expression, distance_text);
  for (size_t i = 0; i < n; i++) {
    double a = cureduce_ref_float_at(p->input_type, x, i), b = cureduce_ref_float_at(p->input_type, y, i);
    if (p->input_type == CUREDUCE_F64)
      ((double *)mapped)[i] = fabs(a - b);
    else
      ((float *)mapped)[i] = fabsf((float)a - (float)b);
  }
}

/* data's elements mapped; `second`, y, for a map of two inputs (else NULL). */
static void map_on_host(const cureduce_problem *p, const void *data, const void *second, size_t n, void *mapped) {
  if (second) {
    map_pair_on_host(p, data, second, n, mapped);
    return;
  }
  if (p->transform != CUREDUCE_TRANSFORM_EXPRESSION) {
    cureduce_ref_map(p->transform, p->input_type, data, n, mapped);
    return;
  }
  if (strcmp(p->expression, square_text) == 0) {
    cureduce_ref_map(CUREDUCE_TRANSFORM_SQUARE, p->input_type, data, n, mapped);
    return;
  }
  ck_assert_str_eq(p->expression, predicate_text());
  for (size_t i = 0; i < n; i++) {
    double x = cureduce_ref_float_at(p->input_type, data, i);
    if (p->input_type == CUREDUCE_F64)
      ((double *)mapped)[i] = x > 0.5 ? 1.0 : 0.0;
    else
      ((float *)mapped)[i] = (float)x > 0.5f ? 1.0f : 0.0f;
  }
}

/* An empty row's result: the operation's identity for the mapped type, in the output type; the
 * moments' NaN (and a NaN mean). */
static cureduce_ref_result empty_result(cureduce_op op, cureduce_dtype mapped, cureduce_dtype accumulator,
                                        cureduce_dtype output) {
  cureduce_ref_result r = {.value = {.index = -1}};
  bool is_max = op == CUREDUCE_OP_MAX || op == CUREDUCE_OP_ARGMAX;
  bool moments = op >= CUREDUCE_OP_MEAN && op <= CUREDUCE_OP_SAMPLE_STD;
  if (mapped == CUREDUCE_U8) /* nonzero: sums and products are u64, min/max u8 */
    r.value.value.u64 = op == CUREDUCE_OP_PROD ? 1 : op == CUREDUCE_OP_SUM || is_max ? 0 : 255;
  else
    cureduce_ref_store_float(accumulator, op == CUREDUCE_OP_SUM || op == CUREDUCE_OP_NORM2 ? 0.0L
                                          : op == CUREDUCE_OP_PROD                         ? 1.0L
                                          : moments                                        ? NAN
                                          : is_max || op == CUREDUCE_OP_LOGSUMEXP          ? -INFINITY
                                                                                           : INFINITY,
                             &r.value);
  if (moments && op != CUREDUCE_OP_MEAN)
    r.value.mean = r.value.value;
  cureduce_ref_convert(accumulator, output, &r.value);
  return r;
}

/* The expected result of `length` input elements. */
static cureduce_ref_result expected_of(const cureduce_problem *p, const unsigned char *elements,
                                       const unsigned char *second, size_t length, bool rounding, unsigned depth) {
  cureduce_dtype mapped = cureduce_ref_mapped_type(p->transform, p->input_type), accumulator;
  ck_assert(cureduce_accumulator_type(p->op, mapped, &accumulator) == CUREDUCE_STATUS_OK);
  if (length == 0)
    return empty_result(p->op, mapped, accumulator, p->output_type);
  unsigned char *values = malloc(length * 8);
  ck_assert(values);
  map_on_host(p, elements, second, length, values);
  cureduce_ref_result r = rounding && p->op == CUREDUCE_OP_SUM
                             ? cureduce_ref_expected_sum(mapped, accumulator, values, length, depth + 1)
                             : cureduce_ref_expected_within(p->op, mapped, accumulator, values, length, depth);
  free(values);
  cureduce_ref_convert(accumulator, p->output_type, &r.value);
  return r;
}

/* ---- running ----------------------------------------------------------------------------------- */

typedef struct run {
  cureduce_context *context; /* NULL: the harness's */
  cureduce_problem problem;
  const char *spec;          /* pinned, or NULL for the plan's own choice */
  CUdeviceptr input;         /* element 0 */
  const unsigned char *host; /* the same on the host */
  const int64_t *begin, *end; /* segments, on the host; on the device at offsets_buffer */
  CUdeviceptr second;         /* a map of two inputs: y, laid out as x (its shape, its offsets) */
  const unsigned char *host_second;
  bool rounding;
  cureduce_plan_origin expected_origin; /* checked when not pinned */
} run;

/* The most additions an element meets: its thread's share of the input, or a shaped result's whole
 * length, plus unroll accumulators, shuffle and block folds and the last block's fold of the
 * partials, bounded generously (64 and the partials per thread). */
static unsigned depth_of(const cureduce_problem *p, const cureduce_plan_info *info, size_t length) {
  if (p->layout != CUREDUCE_LAYOUT_CONTIGUOUS)
    return (unsigned)(length + 64 + info->grid_y);
  size_t threads = (size_t)info->grid * info->block;
  return (unsigned)((length + threads - 1) / threads * 16 + 64 + (info->grid + info->block - 1) / info->block);
}

static void execute_and_check(const run *r) {
  const cureduce_problem *p = &r->problem;
  cureduce_plan *plan;
  ck_assert_msg(cureduce_plan_create(&plan, r->context ? r->context : gpu.context, p, r->spec) == CUREDUCE_STATUS_OK,
                "plan %s: %s", r->spec ? r->spec : "(own choice)", cureduce_last_error_detail());
  cureduce_plan_info info;
  ck_assert(cureduce_plan_describe(plan, &info) == CUREDUCE_STATUS_OK);
  ck_assert_msg(!p->transform || strstr(info.spec, cureduce_transform_name(p->transform)), "%s has lost its transform",
                info.spec);
  if (!r->spec)
    ck_assert_msg(info.origin == r->expected_origin, "%s: origin %d", info.spec, (int)info.origin);
  size_t result_bytes = cureduce_result_bytes(p->op, p->output_type);
  size_t bytes = (size_t)cureduce_problem_results(p) * result_bytes;
  ck_assert_msg(bytes <= max_result_bytes, "%zu bytes of results: the test's output buffer holds %zu", bytes,
                (size_t)max_result_bytes);
  ck_assert(gpu.cu->cuMemsetD8(output_buffer, poison_byte, bytes + guard_bytes) == CUDA_SUCCESS);
  void *workspace = NULL; /* pinned specs in a workspace of the test's, filled with garbage */
  if (r->spec || info.workspace_bytes > 132096) {
    ck_assert(gpu.cu->cuMemsetD8(scratch, poison_byte, scratch_bytes) == CUDA_SUCCESS);
    workspace = (void *)(uintptr_t)scratch;
  }
  const void *in = (const void *)(uintptr_t)r->input;
  void *out = (void *)(uintptr_t)output_buffer;
  const int64_t *begin = (const int64_t *)(uintptr_t)offsets_buffer, *end = begin + max_segments;
  const void *y = (const void *)(uintptr_t)r->second;
  bool segments = p->layout == CUREDUCE_LAYOUT_SEGMENTS;
  cureduce_status status =
      segments && y ? cureduce_plan_execute_pair_segments(plan, in, y, begin, end, out, workspace, scratch_bytes, NULL)
      : segments    ? cureduce_plan_execute_segments(plan, in, begin, end, out, workspace, scratch_bytes, NULL)
      : y           ? cureduce_plan_execute_pair(plan, in, y, out, workspace, scratch_bytes, NULL)
                    : cureduce_plan_execute(plan, in, out, workspace, scratch_bytes, NULL);
  ck_assert_msg(status == CUREDUCE_STATUS_OK, "%s: %s", info.spec, cureduce_last_error_detail());
  unsigned char *got = malloc(bytes + guard_bytes), *elements = malloc(max_elements * 8),
                *second_elements = malloc(max_elements * 8);
  ck_assert(got && elements && second_elements);
  harness_download(&gpu, got, output_buffer, bytes + guard_bytes);
  for (size_t b = bytes; b < bytes + guard_bytes; b++)
    ck_assert_msg(got[b] == poison_byte, "%s wrote past its %zu result bytes", info.spec, bytes);
  for (uint64_t i = 0; i < cureduce_problem_results(p); i++) {
    size_t length = cureduce_ref_gather(p, r->host, r->begin, r->end, i, elements);
    if (r->host_second)
      cureduce_ref_gather(p, r->host_second, r->begin, r->end, i, second_elements);
    cureduce_ref_result expected = expected_of(p, elements, r->host_second ? second_elements : NULL, length,
                                               r->rounding, depth_of(p, &info, length));
    cureduce_value value = {.index = -1};
    memcpy(&value, got + i * result_bytes, result_bytes);
    char why[256];
    ck_assert_msg(cureduce_ref_matches(p->op, p->output_type, &value, &expected, why, sizeof why),
                  "%s (n %llu, rows %llu, cols %llu, ld %llu), result %llu of %zu elements%s: %s", info.spec,
                  (unsigned long long)p->n, (unsigned long long)p->rows, (unsigned long long)p->cols,
                  (unsigned long long)p->leading_dimension, (unsigned long long)i, length,
                  r->rounding ? " (data that rounds)" : "", why);
  }
  free(got);
  free(elements);
  free(second_elements);
  cureduce_plan_destroy(plan);
}

/* The run with each of the specs pinned in turn, their kernels compiled ahead, all at once. */
static void run_pinned(run r, const cureduce_spec *specs, size_t count) {
  harness_compile_ahead(&gpu, specs, count);
  for (size_t i = 0; i < count; i++) {
    char text[CUREDUCE_SPEC_TEXT_MAX];
    cureduce_spec_format(&specs[i], text);
    r.spec = text;
    execute_and_check(&r);
  }
}

/* Each output type the (operation, transform) allows for the tested input: the input type, then
 * the accumulator type when it differs. */
static int outputs_of(cureduce_op op, cureduce_transform transform, cureduce_dtype outputs[2]) {
  cureduce_dtype accumulator;
  ck_assert(cureduce_accumulator_type(op, cureduce_ref_mapped_type(transform, tested_type), &accumulator) ==
            CUREDUCE_STATUS_OK);
  outputs[0] = tested_type, outputs[1] = accumulator;
  for (int o = 0; o < 2; o++)
    ck_assert_msg(cureduce_check_transform_types(op, transform, tested_type, outputs[o]) == CUREDUCE_STATUS_OK, "%s",
                  cureduce_last_error_detail());
  return accumulator == tested_type ? 1 : 2;
}

/* Where a map of two inputs finds y: in the input buffer's second half, `y_offset` elements on. */
static CUdeviceptr second_at(size_t y_offset) {
  return input_buffer + (max_elements + y_offset) * cureduce_dtype_size(tested_type);
}

/* Uploads `count` elements of fresh data at input + offset elements (for a map of two inputs, y's
 * too, at second_at(y_offset)) and runs the problem for each output type and data kind; with
 * `space`, sums into the accumulator type also run every spec the tuner may pick for the shape. */
static void check_problem_at(cureduce_problem problem, size_t offset, size_t y_offset, size_t count,
                             const int64_t *begin, const int64_t *end, bool space) {
  size_t element = cureduce_dtype_size(tested_type);
  bool pair = cureduce_transform_is_pair(problem.transform);
  unsigned char *host = malloc((count + offset) * element), *host_second = malloc(count * element);
  ck_assert(host && host_second);
  cureduce_dtype outputs[2];
  int output_count = outputs_of(problem.op, problem.transform, outputs);
  bool sums = (problem.op == CUREDUCE_OP_SUM || problem.op == CUREDUCE_OP_NORM2) &&
              problem.transform != CUREDUCE_TRANSFORM_NONZERO;
  for (int rounding = 0; rounding < (sums ? 2 : 1); rounding++) {
    fill(problem.op, problem.transform, rounding, host + offset * element, count);
    harness_upload(&gpu, input_buffer + offset * element, host + offset * element, count * element);
    if (pair) {
      fill(problem.op, problem.transform, rounding, host_second, count);
      harness_upload(&gpu, second_at(y_offset), host_second, count * element);
    }
    for (int o = 0; o < output_count; o++) {
      problem.output_type = outputs[o];
      run r = {.problem = problem, .input = input_buffer + offset * element, .host = host + offset * element,
               .begin = begin, .end = end, .second = pair ? second_at(y_offset) : 0,
               .host_second = pair ? host_second : NULL, .rounding = rounding,
               .expected_origin = CUREDUCE_PLAN_HEURISTIC};
      execute_and_check(&r);
      if (!space || o + 1 != output_count)
        continue;
      cureduce_spec specs[CUREDUCE_SHAPE_SPACE_MAX];
      const cureduce_device_info *device = &gpu.context->info;
      size_t n = cureduce_shape_tune_space(
          &problem, device->sm_count, device->max_threads_per_sm, false,
          cureduce_shape_workspace_limit(&problem, device->sm_count, device->max_threads_per_sm), specs,
          CUREDUCE_SHAPE_SPACE_MAX);
      ck_assert(n > 0);
      run_pinned(r, specs, n);
    }
  }
  free(host);
  free(host_second);
}

static void check_problem(cureduce_problem problem, size_t offset, size_t count, const int64_t *begin,
                          const int64_t *end, bool space) {
  check_problem_at(problem, offset, 0, count, begin, end, space);
}

/* ---- the sweeps ---------------------------------------------------------------------------------- */

/* The problem with the transform; an expression's text: the square, or the predicate; a pair
 * expression's, the distance. */
static void set_transform(cureduce_problem *problem, cureduce_transform transform, bool predicate) {
  problem->transform = transform;
  problem->expression = transform == CUREDUCE_TRANSFORM_PAIR_EXPRESSION ? distance_text
                        : transform != CUREDUCE_TRANSFORM_EXPRESSION    ? NULL
                        : predicate                                     ? predicate_text()
                                                                        : square_text;
}

/* The statistics with a finish of their own: the mean; a sample standard deviation (Bessel's
 * divisor, a square root, the mean beside it); logsumexp. The other three differ from these in a
 * constant of the finish. */
static bool finish_kind(int op) {
  return op == CUREDUCE_OP_MEAN || op == CUREDUCE_OP_SAMPLE_STD || op == CUREDUCE_OP_LOGSUMEXP;
}

START_TEST(test_whole_arrays) {
  cureduce_transform transform = (cureduce_transform)_i;
  static const struct {
    size_t n, offset;
  } sizes[] = {{1, 0}, {1001, 0}, {(1 << 20) + 3, 1}};
  for (int op = 0; op < CUREDUCE_OP_COUNT; op++) {
    if (op > CUREDUCE_OP_NORM2 && !finish_kind(op))
      continue; /* one statistic of each kind of finish: their maps are the same code */
    cureduce_dtype accumulator;
    if (op == CUREDUCE_OP_EXACT_SUM ||
        cureduce_accumulator_type((cureduce_op)op, cureduce_ref_mapped_type(transform, tested_type), &accumulator) !=
            CUREDUCE_STATUS_OK) { /* norm2 of nonzero's u8: refused */
      ck_assert(cureduce_check_transform_types((cureduce_op)op, transform, tested_type, tested_type) ==
                CUREDUCE_STATUS_UNSUPPORTED);
      continue;
    }
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      cureduce_problem problem;
      cureduce_problem_init(&problem, (cureduce_op)op, tested_type, tested_type, sizes[s].n);
      set_transform(&problem, transform, false);
      check_problem(problem, sizes[s].offset, sizes[s].n, NULL, NULL, false);
      if (transform == CUREDUCE_TRANSFORM_EXPRESSION && (op == CUREDUCE_OP_SUM || op == CUREDUCE_OP_ARGMAX)) {
        set_transform(&problem, transform, true);
        check_problem(problem, sizes[s].offset, sizes[s].n, NULL, NULL, false);
      }
    }
  }
}
END_TEST

/* Segments back to back from a random start: empty ones, lengths up to 1000 (within the input buffer). */
static size_t draw_segments(int64_t *begin, int64_t *end) {
  int64_t at = cureduce_ref_random_range(0, 7);
  for (int i = 0; i < max_segments; i++) {
    int64_t length = cureduce_ref_random_range(0, 9) == 0 ? 0 : cureduce_ref_random_range(1, 1000);
    begin[i] = at, end[i] = at + length, at += length;
  }
  return (size_t)at;
}

START_TEST(test_shapes) {
  cureduce_transform transform = (cureduce_transform)_i;
  static const struct {
    cureduce_layout layout;
    uint64_t rows, cols, leading;
    bool pinned; /* the tuner's space pinned here: one shape of each family, segments below */
  } matrices[] = {{CUREDUCE_LAYOUT_ROWS, 1000, 7, 7, true},
                  {CUREDUCE_LAYOUT_ROWS, 33, 5000, 5003, false},
                  {CUREDUCE_LAYOUT_ROWS, 2, 100000, 100000, true},
                  {CUREDUCE_LAYOUT_COLUMNS, 333, 3, 5, true},
                  {CUREDUCE_LAYOUT_COLUMNS, 3000, 64, 64, false},
                  {CUREDUCE_LAYOUT_COLUMNS, 5001, 2, 2, false}}; /* packed (rows several to a load) */
  static const cureduce_op ops[] = {CUREDUCE_OP_SUM, CUREDUCE_OP_MAX, CUREDUCE_OP_ARGMAX, CUREDUCE_OP_NORM2};
  int64_t begin[max_segments], end[max_segments];
  size_t elements = draw_segments(begin, end);
  harness_upload(&gpu, offsets_buffer, begin, sizeof begin);
  harness_upload(&gpu, offsets_buffer + max_segments * 8, end, sizeof end);
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
    /* The tuner's whole space for sums of each kind of map (square's value path is the
     * expression's, which gives its bits) and for the plain norm: each spec is a kernel to compile,
     * and the families' loads and folds are gpu-shapes' to sweep; the rest run the heuristic's. */
    bool space = (ops[o] == CUREDUCE_OP_SUM && transform != CUREDUCE_TRANSFORM_SQUARE) ||
                 (ops[o] == CUREDUCE_OP_NORM2 && transform == CUREDUCE_TRANSFORM_NONE);
    if ((ops[o] == CUREDUCE_OP_NORM2 && transform == CUREDUCE_TRANSFORM_NONZERO) ||
        (ops[o] != CUREDUCE_OP_NORM2 && transform == CUREDUCE_TRANSFORM_NONE))
      continue; /* refused: nonzero's u8 has no norm; plain shapes are gpu-shapes', but norm2's */
    for (size_t m = 0; m < sizeof matrices / sizeof matrices[0]; m++) {
      cureduce_problem problem;
      cureduce_problem_init_matrix(&problem, matrices[m].layout, ops[o], tested_type, tested_type, matrices[m].rows,
                                   matrices[m].cols, matrices[m].leading);
      set_transform(&problem, transform, false);
      check_problem(problem, 0, (size_t)cureduce_problem_extent(&problem), NULL, NULL, space && matrices[m].pinned);
    }
    cureduce_problem problem;
    cureduce_problem_init_segments(&problem, ops[o], tested_type, tested_type, max_segments);
    set_transform(&problem, transform, false);
    check_problem(problem, 0, elements, begin, end, space);
  }
}
END_TEST

/* Data for norm2 whose squares leave the range of the type's own arithmetic: magnitudes near its
 * largest value (scaled so that the norm of 2^20 of them stays finite), near its smallest normal,
 * or each element one of those or an ordinary one (every one of Blue's three sums at once). */
static void fill_extremes(int kind, void *data, size_t count) {
  static const double largest[] = {65504.0, 0x1.fep127, 0x1.fffffep127, 0x1.fffffffffffffp1023};
  static const double smallest[] = {0x1p-14, 0x1p-126, 0x1p-126, 0x1p-1022};
  for (size_t i = 0; i < count; i++) {
    int which = kind < 2 ? kind : (int)cureduce_ref_random_range(0, 2);
    double sign = cureduce_ref_random_range(0, 1) ? 1.0 : -1.0, factor = 1.0 + cureduce_ref_random_unit();
    double x = which == 0 ? largest[tested_type] * 0x1p-12 * factor : which == 1 ? smallest[tested_type] * factor : factor;
    cureduce_ref_put_float(tested_type, data, i, sign * x);
  }
}

/* norm2 of whole arrays: through the shortcut, a plan in the library's and in a caller workspace,
 * and every spec the tuner may pick (at the largest size); on data that rounds and on fill_extremes'
 * three kinds; outputs the input type and f64; 0 elements give 0. */
START_TEST(test_norm2) {
  static const struct {
    size_t n, offset;
  } sizes[] = {{0, 0}, {1, 0}, {1001, 0}, {(1 << 20) + 3, 1}};
  size_t element = cureduce_dtype_size(tested_type);
  unsigned char *host = malloc(((1 << 20) + 4) * element), got[16];
  ck_assert(host);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int kind = 0; kind < 4; kind++) {
      size_t n = sizes[s].n, offset = sizes[s].offset;
      unsigned char *data = host + offset * element;
      if (kind == 0)
        cureduce_ref_fill_rounding(tested_type, data, n);
      else
        fill_extremes(kind - 1, data, n);
      harness_upload(&gpu, input_buffer + offset * element, data, n * element);
      cureduce_dtype outputs[2] = {tested_type, CUREDUCE_F64};
      for (int o = 0; o < (tested_type == CUREDUCE_F64 ? 1 : 2); o++) {
        cureduce_problem problem;
        cureduce_problem_init(&problem, CUREDUCE_OP_NORM2, tested_type, outputs[o], n);
        run r = {.problem = problem, .input = input_buffer + offset * element, .host = data,
                 .expected_origin = CUREDUCE_PLAN_HEURISTIC};
        execute_and_check(&r);
        cureduce_ref_result expected = expected_of(&problem, data, NULL, n, false, 0);
        ck_assert(gpu.cu->cuMemsetD8(output_buffer, poison_byte, 16) == CUDA_SUCCESS);
        ck_assert_msg(cureduce_reduce(gpu.context, CUREDUCE_OP_NORM2, tested_type, (const void *)(uintptr_t)r.input, n,
                                      outputs[o], (void *)(uintptr_t)output_buffer, NULL) == CUREDUCE_STATUS_OK,
                      "%s", cureduce_last_error_detail());
        harness_download(&gpu, got, output_buffer, 16);
        cureduce_value value = {.index = -1};
        memcpy(&value, got, cureduce_dtype_size(outputs[o]));
        char why[256];
        ck_assert_msg(cureduce_ref_matches(CUREDUCE_OP_NORM2, outputs[o], &value, &expected, why, sizeof why),
                      "cureduce_reduce norm2 of %zu, data kind %d: %s", n, kind, why);
        if (s + 1 != sizeof sizes / sizeof sizes[0] || kind % 3 != 0)
          continue; /* every tunable spec: at the largest size, on rounding and mixed data */
        cureduce_tune_job job = {.op = CUREDUCE_OP_NORM2, .input = tested_type, .output = outputs[o]};
        cureduce_spec specs[64];
        run_pinned(r, specs, cureduce_tune_space(&job, &gpu.context->info, false, specs, 64));
      }
    }
  free(host);
}
END_TEST

/* The whole array of n host elements, uploaded, through the heuristic's plan of (op, transform). */
static void check_planted(cureduce_op op, cureduce_transform transform, const unsigned char *host, size_t n) {
  harness_upload(&gpu, input_buffer, host, n * cureduce_dtype_size(tested_type));
  cureduce_problem problem;
  cureduce_problem_init(&problem, op, tested_type, tested_type, n);
  problem.transform = transform;
  run r = {.problem = problem, .input = input_buffer, .host = host, .expected_origin = CUREDUCE_PLAN_HEURISTIC};
  execute_and_check(&r);
}

/* Planted cases, at 2^20 elements: abs ties -x with a later x (the first index wins, its value
 * +|x|), amax of a -0 among negatives' smaller magnitudes, a NaN at the end that wins; nonzero of
 * all zeros (count 0, argmax index 0) and of a lone NaN. The reference checks the same semantics;
 * these make the data reach them. */
START_TEST(test_planted_semantics) {
  const size_t n = 1 << 20;
  size_t element = cureduce_dtype_size(tested_type);
  unsigned char *host = malloc(n * element);
  ck_assert(host);
  static const cureduce_op abs_ops[] = {CUREDUCE_OP_MAX, CUREDUCE_OP_ARGMAX, CUREDUCE_OP_ARGMIN, CUREDUCE_OP_SUM};
  for (int plant = 0; plant < 3; plant++)
    for (size_t o = 0; o < sizeof abs_ops / sizeof abs_ops[0]; o++) {
      cureduce_ref_fill(CUREDUCE_OP_MAX, tested_type, host, n);
      if (plant == 0) { /* the largest magnitude, negative first */
        cureduce_ref_put_float(tested_type, host, 777, -1000.0);
        cureduce_ref_put_float(tested_type, host, 5000, 1000.0);
      } else if (plant == 1) { /* -0: the smallest magnitude, +0 in the result */
        cureduce_ref_put_float(tested_type, host, 4242, -0.0);
      } else {
        cureduce_ref_put_float(tested_type, host, n - 1, NAN);
      }
      check_planted(abs_ops[o], CUREDUCE_TRANSFORM_ABS, host, n);
    }
  static const cureduce_op nonzero_ops[] = {CUREDUCE_OP_SUM, CUREDUCE_OP_MAX, CUREDUCE_OP_MIN, CUREDUCE_OP_ARGMAX,
                                            CUREDUCE_OP_ARGMIN};
  for (int plant = 0; plant < 2; plant++)
    for (size_t o = 0; o < sizeof nonzero_ops / sizeof nonzero_ops[0]; o++) {
      for (size_t i = 0; i < n; i++)
        cureduce_ref_put_float(tested_type, host, i, cureduce_ref_random_range(0, 1) ? 0.0 : -0.0);
      if (plant == 1)
        cureduce_ref_put_float(tested_type, host, 99999, NAN);
      check_planted(nonzero_ops[o], CUREDUCE_TRANSFORM_NONZERO, host, n);
    }
  free(host);
}
END_TEST

/* What a new plan of the problem in the context runs (its origin and spec). */
static cureduce_plan_info new_plan_info(cureduce_context *context, const cureduce_problem *problem) {
  cureduce_plan *plan;
  ck_assert_msg(cureduce_plan_create(&plan, context, problem, NULL) == CUREDUCE_STATUS_OK, "%s",
                cureduce_last_error_detail());
  cureduce_plan_info info;
  ck_assert(cureduce_plan_describe(plan, &info) == CUREDUCE_STATUS_OK);
  cureduce_plan_destroy(plan);
  return info;
}

/* cureduce_tune_problems of a transformed shape stores a record of its own class: plans of that
 * (operation, transform) take it, plans without the transform do not, and the tuned plan is right;
 * the same for a whole array with a user map, whose class is its expression's. */
START_TEST(test_tuned_transform_is_its_own_class) {
  char *folder = harness_temporary_folder();
  ck_assert_ptr_nonnull(folder);
  cureduce_context *context = harness_context_in(folder, CUREDUCE_TUNING_CACHED);
  cureduce_problem problem;
  cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_ROWS, CUREDUCE_OP_SUM, tested_type, tested_type, 40, 3000,
                               3000);
  problem.transform = CUREDUCE_TRANSFORM_SQUARE;
  ck_assert_msg(cureduce_tune_problems(context, &problem, 1, 0, 1) == CUREDUCE_STATUS_OK, "%s",
                cureduce_last_error_detail());
  size_t element = cureduce_dtype_size(tested_type), count = (size_t)cureduce_problem_extent(&problem);
  unsigned char *host = malloc(count * element);
  ck_assert(host);
  cureduce_ref_fill_rounding(tested_type, host, count);
  harness_upload(&gpu, input_buffer, host, count * element);
  run r = {.context = context, .problem = problem, .input = input_buffer, .host = host, .rounding = true,
           .expected_origin = CUREDUCE_PLAN_TUNED};
  execute_and_check(&r);
  problem.transform = CUREDUCE_TRANSFORM_NONE;
  cureduce_plan_info info = new_plan_info(context, &problem);
  ck_assert_msg(info.origin == CUREDUCE_PLAN_HEURISTIC, "the untransformed sum took %s", info.spec);
  /* A whole array with a user map: tuned for its size bucket, for its expression alone. */
  cureduce_problem whole;
  cureduce_problem_init(&whole, CUREDUCE_OP_SUM, tested_type, tested_type, count);
  set_transform(&whole, CUREDUCE_TRANSFORM_EXPRESSION, false);
  ck_assert_msg(cureduce_tune_problems(context, &whole, 1, 0, 1) == CUREDUCE_STATUS_OK, "%s",
                cureduce_last_error_detail());
  r.problem = whole;
  execute_and_check(&r);
  whole.expression = predicate_text();
  info = new_plan_info(context, &whole);
  ck_assert_msg(info.origin == CUREDUCE_PLAN_HEURISTIC, "another expression took %s", info.spec);
  free(host);
  cureduce_context_destroy(context);
  ck_assert(harness_remove_tree(folder));
}
END_TEST

/* Maps of two inputs tuned: the dot products of 40 rows of 3000 and of a whole array tuned by
 * cureduce_tune_problems (the tuner's own x and y), then right through their tuned plans, a class
 * of their own (the rows' plain sum keeps the heuristic); and the rows tuned on first use, on the
 * caller's x and y, right through that first execution, tuned for the next plan. */
START_TEST(test_tuned_pairs) {
  char *folder = harness_temporary_folder(), *first_use_folder = harness_temporary_folder();
  ck_assert(folder && first_use_folder);
  cureduce_context *context = harness_context_in(folder, CUREDUCE_TUNING_CACHED);
  cureduce_problem rows, whole;
  cureduce_problem_init_matrix(&rows, CUREDUCE_LAYOUT_ROWS, CUREDUCE_OP_SUM, tested_type, tested_type, 40, 3000, 3000);
  rows.transform = CUREDUCE_TRANSFORM_PRODUCT;
  size_t element = cureduce_dtype_size(tested_type), count = (size_t)cureduce_problem_extent(&rows);
  cureduce_problem_init(&whole, CUREDUCE_OP_SUM, tested_type, tested_type, count);
  whole.transform = CUREDUCE_TRANSFORM_PRODUCT;
  cureduce_problem problems[] = {rows, whole};
  ck_assert_msg(cureduce_tune_problems(context, problems, 2, 0, 1) == CUREDUCE_STATUS_OK, "%s",
                cureduce_last_error_detail());
  unsigned char *x = malloc(count * element), *y = malloc(count * element);
  ck_assert(x && y);
  cureduce_ref_fill_rounding(tested_type, x, count);
  cureduce_ref_fill_rounding(tested_type, y, count);
  harness_upload(&gpu, input_buffer, x, count * element);
  harness_upload(&gpu, second_at(0), y, count * element);
  for (size_t i = 0; i < 2; i++) {
    run r = {.context = context, .problem = problems[i], .input = input_buffer, .host = x, .second = second_at(0),
             .host_second = y, .rounding = true, .expected_origin = CUREDUCE_PLAN_TUNED};
    execute_and_check(&r);
  }
  rows.transform = CUREDUCE_TRANSFORM_NONE;
  ck_assert_int_eq(new_plan_info(context, &rows).origin, CUREDUCE_PLAN_HEURISTIC);
  cureduce_context_destroy(context);
  rows.transform = CUREDUCE_TRANSFORM_PRODUCT;
  context = harness_context_in(first_use_folder, CUREDUCE_TUNING_ON_FIRST_USE);
  run r = {.context = context, .problem = rows, .input = input_buffer, .host = x, .second = second_at(0),
           .host_second = y, .rounding = true, .expected_origin = CUREDUCE_PLAN_HEURISTIC};
  execute_and_check(&r);
  ck_assert_int_eq(new_plan_info(context, &rows).origin, CUREDUCE_PLAN_TUNED);
  cureduce_context_destroy(context);
  free(x);
  free(y);
  ck_assert(harness_remove_tree(folder) && harness_remove_tree(first_use_folder));
}
END_TEST

/* The results of one plan of the problem on the input, downloaded. */
static void results_of(const cureduce_problem *problem, unsigned char *got, size_t bytes) {
  cureduce_plan *plan;
  ck_assert_msg(cureduce_plan_create(&plan, gpu.context, problem, NULL) == CUREDUCE_STATUS_OK, "%s",
                cureduce_last_error_detail());
  ck_assert(gpu.cu->cuMemsetD8(output_buffer, poison_byte, bytes) == CUDA_SUCCESS);
  const int64_t *begin = (const int64_t *)(uintptr_t)offsets_buffer;
  cureduce_status status =
      problem->layout == CUREDUCE_LAYOUT_SEGMENTS
          ? cureduce_plan_execute_segments(plan, (const void *)(uintptr_t)input_buffer, begin, begin + max_segments,
                                           (void *)(uintptr_t)output_buffer, NULL, 0, NULL)
          : cureduce_plan_execute(plan, (const void *)(uintptr_t)input_buffer, (void *)(uintptr_t)output_buffer, NULL,
                                  0, NULL);
  ck_assert_msg(status == CUREDUCE_STATUS_OK, "%s", cureduce_last_error_detail());
  harness_download(&gpu, got, output_buffer, bytes);
  cureduce_plan_destroy(plan);
}

/* "x * x" written by the caller gives the built-in square's bits: the same kernel but its map. */
START_TEST(test_expression_matches_builtin) {
  size_t element = cureduce_dtype_size(tested_type);
  const size_t n = (1 << 20) + 3;
  unsigned char *host = malloc(n * element), *builtin = malloc(4096 * 16), *written = malloc(4096 * 16);
  ck_assert(host && builtin && written);
  cureduce_ref_fill_rounding(tested_type, host, n);
  harness_upload(&gpu, input_buffer, host, n * element);
  static const cureduce_op ops[] = {CUREDUCE_OP_SUM, CUREDUCE_OP_MAX, CUREDUCE_OP_ARGMIN};
  for (size_t o = 0; o < 3; o++)
    for (int layout = 0; layout < 3; layout++) {
      cureduce_dtype outputs[2];
      outputs_of(ops[o], CUREDUCE_TRANSFORM_SQUARE, outputs);
      cureduce_problem problem;
      if (layout == 0)
        cureduce_problem_init(&problem, ops[o], tested_type, outputs[1], n);
      else if (layout == 1)
        cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_ROWS, ops[o], tested_type, outputs[1], 33, 5000, 5003);
      else
        cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_COLUMNS, ops[o], tested_type, outputs[1], 5000, 33, 35);
      size_t bytes = (size_t)cureduce_problem_results(&problem) * cureduce_result_bytes(ops[o], outputs[1]);
      set_transform(&problem, CUREDUCE_TRANSFORM_SQUARE, false);
      results_of(&problem, builtin, bytes);
      set_transform(&problem, CUREDUCE_TRANSFORM_EXPRESSION, false);
      results_of(&problem, written, bytes);
      ck_assert_msg(memcmp(builtin, written, bytes) == 0, "%s of x * x, layout %d: not the built-in square's bits",
                    cureduce_op_name(ops[o]), layout);
    }
  free(host);
  free(builtin);
  free(written);
}
END_TEST

/* An expression that does not compile: COMPILE_FAILED, NVRTC's message placed in the expression,
 * and the numbered source holding it; no plan. */
START_TEST(test_expression_compile_error) {
  cureduce_problem problem;
  cureduce_problem_init(&problem, CUREDUCE_OP_SUM, tested_type, tested_type, 1000);
  problem.transform = CUREDUCE_TRANSFORM_EXPRESSION;
  problem.expression = "x + no_such_name";
  cureduce_plan *plan = NULL;
  ck_assert_int_eq(cureduce_plan_create(&plan, gpu.context, &problem, NULL), CUREDUCE_STATUS_COMPILE_FAILED);
  const char *detail = cureduce_last_error_detail();
  ck_assert_msg(strstr(detail, "expression(1)") && strstr(detail, "no_such_name") && strstr(detail, "--- source ---"),
                "%.3000s", detail);
  ck_assert_ptr_null(plan);
}
END_TEST

/* ---- the statistics: mean, variances, standard deviations, logsumexp ----------------------------- */

/* One whole array of n elements at `offset`, already on the device and the host, through the
 * shortcut with its result brought back to the host (the mean of a variance in it too). */
static void check_shortcut(cureduce_op op, cureduce_dtype output, const unsigned char *data, size_t n, size_t offset) {
  cureduce_problem problem;
  cureduce_problem_init(&problem, op, tested_type, output, n);
  cureduce_ref_result expected = expected_of(&problem, data, NULL, n, false, (unsigned)n); /* its plan unseen */
  cureduce_value got;
  memset(&got, poison_byte, sizeof got);
  ck_assert_msg(cureduce_reduce_to_host(gpu.context, op, tested_type,
                                        (const void *)(uintptr_t)(input_buffer + offset * cureduce_dtype_size(tested_type)),
                                        n, output, &got, NULL) == CUREDUCE_STATUS_OK,
                "%s", cureduce_last_error_detail());
  char why[256];
  ck_assert_msg(cureduce_ref_matches(op, output, &got, &expected, why, sizeof why), "cureduce_reduce_to_host %s of %zu: %s",
                cureduce_op_name(op), n, why);
}

/* Loop index: the operation, mean to logsumexp. Whole arrays (1 to 2^20 + 3 elements, aligned and
 * one element off) through the heuristic's plan and the shortcut; every spec the tuner may pick at
 * the largest size for the variance and logsumexp into their accumulator type (each spec a kernel
 * to compile: the moments share one accumulator, and the loads are gpu-reduce's to sweep); rows,
 * columns and segments (empty ones among them) through the heuristic's plan for each kind of
 * finish (finish_kind); zero elements: EMPTY_INPUT for the moments, -inf for logsumexp. */
START_TEST(test_statistics) {
  cureduce_op op = (cureduce_op)_i;
  static const struct {
    size_t n, offset;
  } sizes[] = {{1, 0}, {1001, 0}, {(1 << 20) + 3, 1}};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    cureduce_problem problem;
    cureduce_problem_init(&problem, op, tested_type, tested_type, sizes[s].n);
    check_problem(problem, sizes[s].offset, sizes[s].n, NULL, NULL, false);
  }
  size_t element = cureduce_dtype_size(tested_type), n = sizes[2].n, offset = sizes[2].offset;
  unsigned char *host = malloc(n * element);
  ck_assert(host);
  cureduce_ref_fill(op, tested_type, host, n);
  harness_upload(&gpu, input_buffer + offset * element, host, n * element);
  cureduce_dtype outputs[2];
  int output_count = outputs_of(op, CUREDUCE_TRANSFORM_NONE, outputs);
  for (int o = 0; o < output_count; o++) {
    check_shortcut(op, outputs[o], host, n, offset);
    if (o + 1 != output_count || (op != CUREDUCE_OP_VARIANCE && op != CUREDUCE_OP_LOGSUMEXP))
      continue;
    cureduce_problem problem;
    cureduce_problem_init(&problem, op, tested_type, outputs[o], n);
    run r = {.problem = problem, .input = input_buffer + offset * element, .host = host};
    cureduce_tune_job job = {.op = op, .input = tested_type, .output = outputs[o]};
    cureduce_spec specs[64];
    run_pinned(r, specs, cureduce_tune_space(&job, &gpu.context->info, false, specs, 64));
  }
  free(host);
  cureduce_value got;
  ck_assert_int_eq(cureduce_reduce_to_host(gpu.context, op, tested_type, (const void *)(uintptr_t)input_buffer, 0,
                                           tested_type, &got, NULL),
                   op == CUREDUCE_OP_LOGSUMEXP ? CUREDUCE_STATUS_OK : CUREDUCE_STATUS_EMPTY_INPUT);
  if (op == CUREDUCE_OP_LOGSUMEXP)
    ck_assert(isinf(cureduce_ref_value_as_double(tested_type, &got)) && cureduce_ref_value_as_double(tested_type, &got) < 0);
  if (!finish_kind(op))
    return;
  static const struct {
    cureduce_layout layout;
    uint64_t rows, cols, leading;
  } matrices[] = {{CUREDUCE_LAYOUT_ROWS, 1000, 7, 7},          {CUREDUCE_LAYOUT_ROWS, 33, 5000, 5003},
                  {CUREDUCE_LAYOUT_ROWS, 2, 100000, 100000},   {CUREDUCE_LAYOUT_COLUMNS, 333, 3, 5},
                  {CUREDUCE_LAYOUT_COLUMNS, 3000, 64, 64},     {CUREDUCE_LAYOUT_COLUMNS, 5001, 2, 2},
                  {CUREDUCE_LAYOUT_COLUMNS, 4099, 1, 1},       /* these two packed: a shift a column */
                  {CUREDUCE_LAYOUT_COLUMNS, 1, 5001, 5001}};   /* one row: rows of one element */
  for (size_t m = 0; m < sizeof matrices / sizeof matrices[0]; m++) {
    cureduce_problem problem;
    cureduce_problem_init_matrix(&problem, matrices[m].layout, op, tested_type, tested_type, matrices[m].rows,
                                 matrices[m].cols, matrices[m].leading);
    check_problem(problem, 0, (size_t)cureduce_problem_extent(&problem), NULL, NULL, false);
  }
  int64_t begin[max_segments], end[max_segments];
  size_t elements = draw_segments(begin, end);
  harness_upload(&gpu, offsets_buffer, begin, sizeof begin);
  harness_upload(&gpu, offsets_buffer + max_segments * 8, end, sizeof end);
  cureduce_problem problem;
  cureduce_problem_init_segments(&problem, op, tested_type, tested_type, max_segments);
  check_problem(problem, 0, elements, begin, end, false);
}
END_TEST

/* ---- maps of two inputs: the dot product and a distance ------------------------------------------ */

/* Loop index: the transform, product or pair_expression (the distance |x - y|). Whole arrays of 1,
 * 1001 and 2^20 + 3 elements, y at x's alignment and one element off it (read element by element),
 * for sum, max, argmax and the sample standard deviation, each output type, through the heuristic's
 * plan; the sum (the dot product) into f32 also through every spec the tuner may pick; data that
 * rounds besides, and for the product data whose products cancel in pairs (x_i y_i = -x_(i-1) y_(i-1)
 * (1 + t), |t| < 2^-12), so that the dot product is a small remainder of large terms, checked within
 * gamma(d + 1) sum|x_i y_i|. */
START_TEST(test_pairs) {
  cureduce_transform transform = (cureduce_transform)_i;
  static const size_t sizes[] = {1, 1001, (1 << 20) + 3};
  static const cureduce_op ops[] = {CUREDUCE_OP_SUM, CUREDUCE_OP_MAX, CUREDUCE_OP_ARGMAX, CUREDUCE_OP_SAMPLE_STD};
  size_t element = cureduce_dtype_size(tested_type);
  unsigned char *x = malloc(max_elements * element), *y = malloc(max_elements * element);
  ck_assert(x && y);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int kind = 0; kind < 3; kind++) { /* exact grid, rounding, cancelling */
      size_t n = sizes[s];
      if (kind == 0) {
        cureduce_ref_fill(CUREDUCE_OP_SUM, tested_type, x, n);
        cureduce_ref_fill(CUREDUCE_OP_SUM, tested_type, y, n + 1);
      } else {
        cureduce_ref_fill_rounding(tested_type, x, n);
        cureduce_ref_fill_rounding(tested_type, y, n + 1);
      }
      if (kind == 2) /* x_i y_i = -x_(i-1) y_(i-1) (1 + t), |t| < 2^-12: the pairs cancel */
        for (size_t i = 1; i < n; i += 2) {
          double before = cureduce_ref_float_at(tested_type, x, i - 1) * cureduce_ref_float_at(tested_type, y, i - 1);
          cureduce_ref_put_float(tested_type, y, i,
                                 -before * (1 + ldexp(cureduce_ref_random_unit(), -12)) /
                                     cureduce_ref_float_at(tested_type, x, i));
        }
      /* y at x's alignment (both at the buffers' starts), and one element further on */
      harness_upload(&gpu, input_buffer, x, n * element);
      harness_upload(&gpu, input_buffer + max_elements * element, y, (n + 1) * element);
      for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        if (kind == 2 && ops[o] != CUREDUCE_OP_SUM)
          continue;
        cureduce_dtype outputs[2];
        int output_count = outputs_of(ops[o], transform, outputs);
        for (int out = 0; out < output_count; out++)
          for (int shifted = 0; shifted < 2; shifted++) {
            cureduce_problem problem;
            cureduce_problem_init(&problem, ops[o], tested_type, outputs[out], n);
            set_transform(&problem, transform, false);
            run r = {.problem = problem, .input = input_buffer, .host = x,
                     .second = second_at(shifted), .host_second = y + shifted * element,
                     .rounding = kind > 0, .expected_origin = CUREDUCE_PLAN_HEURISTIC};
            execute_and_check(&r);
            if (ops[o] != CUREDUCE_OP_SUM || s + 1 != sizeof sizes / sizeof sizes[0] || out != output_count - 1 ||
                kind != 1 || shifted)
              continue;
            cureduce_tune_job job = {.op = ops[o], .input = tested_type, .output = outputs[out], .transform = transform,
                                     .expression = cureduce_problem_expression(&problem)};
            cureduce_spec specs[64];
            run_pinned(r, specs, cureduce_tune_space(&job, &gpu.context->info, false, specs, 64));
          }
      }
    }
  free(x);
  free(y);
}
END_TEST

/* Loop index: the transform, product or pair_expression (the distance |x - y|). Rows (compiled
 * short rows, rows of two, run-time lengths, padded, split), columns and segments (empty ones among
 * them) of x, with y laid out alike at x's alignment and one element off it (element by element;
 * the sample standard deviation at x's alone, its element path is test_pairs'), for the dot
 * product, argmax and the sample standard deviation, each output type, through the
 * heuristic's plan (test_tuned_pairs tunes them); the dot product into the accumulator type also
 * through every spec cureduce_shape_tune_space gives for one shape of each family. */
START_TEST(test_pair_shapes) {
  cureduce_transform transform = (cureduce_transform)_i;
  static const struct {
    cureduce_layout layout;
    uint64_t rows, cols, leading;
    bool pinned;
  } matrices[] = {{CUREDUCE_LAYOUT_ROWS, 1000, 7, 7, true},        {CUREDUCE_LAYOUT_ROWS, 2000, 2, 2, false},
                  {CUREDUCE_LAYOUT_ROWS, 33, 5000, 5003, false},   {CUREDUCE_LAYOUT_ROWS, 2, 100000, 100000, true},
                  {CUREDUCE_LAYOUT_COLUMNS, 333, 3, 5, true},      {CUREDUCE_LAYOUT_COLUMNS, 3000, 64, 64, false},
                  {CUREDUCE_LAYOUT_COLUMNS, 5001, 2, 2, false}}; /* packed */
  static const cureduce_op ops[] = {CUREDUCE_OP_SUM, CUREDUCE_OP_ARGMAX, CUREDUCE_OP_SAMPLE_STD};
  int64_t begin[max_segments], end[max_segments];
  size_t elements = draw_segments(begin, end);
  harness_upload(&gpu, offsets_buffer, begin, sizeof begin);
  harness_upload(&gpu, offsets_buffer + max_segments * 8, end, sizeof end);
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
    for (size_t y_offset = 0; y_offset < (ops[o] == CUREDUCE_OP_SAMPLE_STD ? 1 : 2); y_offset++) {
      bool space = ops[o] == CUREDUCE_OP_SUM && transform == CUREDUCE_TRANSFORM_PRODUCT && y_offset == 0;
      cureduce_problem problem;
      for (size_t m = 0; m < sizeof matrices / sizeof matrices[0]; m++) {
        cureduce_problem_init_matrix(&problem, matrices[m].layout, ops[o], tested_type, tested_type, matrices[m].rows,
                                     matrices[m].cols, matrices[m].leading);
        set_transform(&problem, transform, false);
        check_problem_at(problem, 0, y_offset, (size_t)cureduce_problem_extent(&problem), NULL, NULL,
                         space && matrices[m].pinned);
      }
      cureduce_problem_init_segments(&problem, ops[o], tested_type, tested_type, max_segments);
      set_transform(&problem, transform, false);
      check_problem_at(problem, 0, y_offset, elements, begin, end, space);
    }
}
END_TEST

/* A pair plan's calls: cureduce_plan_execute refuses it, cureduce_plan_execute_pair checks y (NULL,
 * misaligned) and refuses a plan of one input; the same for segments, whose plans of each kind
 * take their own entry point alone; nothing is written. */
START_TEST(test_pair_calls) {
  cureduce_problem problem;
  cureduce_problem_init(&problem, CUREDUCE_OP_SUM, tested_type, tested_type, 1000);
  problem.transform = CUREDUCE_TRANSFORM_PRODUCT;
  cureduce_plan *pair, *single;
  ck_assert(cureduce_plan_create(&pair, gpu.context, &problem, NULL) == CUREDUCE_STATUS_OK);
  problem.transform = CUREDUCE_TRANSFORM_NONE;
  ck_assert(cureduce_plan_create(&single, gpu.context, &problem, NULL) == CUREDUCE_STATUS_OK);
  const void *x = (const void *)(uintptr_t)input_buffer;
  void *out = (void *)(uintptr_t)output_buffer;
  ck_assert(gpu.cu->cuMemsetD8(output_buffer, poison_byte, 16) == CUDA_SUCCESS);
  ck_assert_int_eq(cureduce_plan_execute(pair, x, out, NULL, 0, NULL), CUREDUCE_STATUS_INVALID_ARGUMENT);
  ck_assert(strstr(cureduce_last_error_detail(), "cureduce_plan_execute_pair"));
  ck_assert_int_eq(cureduce_plan_execute_pair(pair, x, NULL, out, NULL, 0, NULL), CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(strstr(cureduce_last_error_detail(), "y is NULL"));
  ck_assert_int_eq(cureduce_plan_execute_pair(pair, x, (const char *)x + 1, out, NULL, 0, NULL),
                   CUREDUCE_STATUS_MISALIGNED_POINTER);
  ck_assert_int_eq(cureduce_plan_execute_pair(single, x, x, out, NULL, 0, NULL), CUREDUCE_STATUS_INVALID_ARGUMENT);
  /* segments: each of the two entry points refuses the other's plans; y NULL with segments */
  cureduce_plan *pair_segments, *single_segments;
  cureduce_problem_init_segments(&problem, CUREDUCE_OP_SUM, tested_type, tested_type, 4);
  ck_assert(cureduce_plan_create(&single_segments, gpu.context, &problem, NULL) == CUREDUCE_STATUS_OK);
  problem.transform = CUREDUCE_TRANSFORM_PRODUCT;
  ck_assert(cureduce_plan_create(&pair_segments, gpu.context, &problem, NULL) == CUREDUCE_STATUS_OK);
  const int64_t *begin = (const int64_t *)(uintptr_t)offsets_buffer, *end = begin + max_segments;
  ck_assert_int_eq(cureduce_plan_execute_segments(pair_segments, x, begin, end, out, NULL, 0, NULL),
                   CUREDUCE_STATUS_INVALID_ARGUMENT);
  ck_assert(strstr(cureduce_last_error_detail(), "cureduce_plan_execute_pair_segments"));
  ck_assert_int_eq(cureduce_plan_execute_pair_segments(single_segments, x, x, begin, end, out, NULL, 0, NULL),
                   CUREDUCE_STATUS_INVALID_ARGUMENT);
  ck_assert_int_eq(cureduce_plan_execute_pair(pair_segments, x, x, out, NULL, 0, NULL), CUREDUCE_STATUS_INVALID_ARGUMENT);
  ck_assert_int_eq(cureduce_plan_execute_pair_segments(pair_segments, x, NULL, begin, end, out, NULL, 0, NULL),
                   CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(strstr(cureduce_last_error_detail(), "y is NULL"));
  unsigned char got[16];
  harness_download(&gpu, got, output_buffer, sizeof got);
  for (size_t i = 0; i < sizeof got; i++)
    ck_assert_int_eq(got[i], poison_byte);
  cureduce_plan_destroy(pair);
  cureduce_plan_destroy(single);
  cureduce_plan_destroy(pair_segments);
  cureduce_plan_destroy(single_segments);
}
END_TEST

/* Unit noise: the sum of four uniforms in [-sqrt(3), sqrt(3)), centred, of variance 4. */
static double noise(void) {
  double total = 0;
  for (int i = 0; i < 4; i++)
    total += (2 * cureduce_ref_random_unit() - 1) * 1.7320508075688772;
  return total / 2;
}

/* Planted cases at 2^20 + 3 elements, each through the heuristic's plan of every statistic (the
 * reference checks the documented semantics; these make the data reach them): the variances of
 * unit noise about a mean of 1e8 (1e6 for f32 and 1000 for 16-bit types, whose precision stops
 * there: f32 holds 1e8 + noise as 1e8 alone), where the sum of squares formula would lose every
 * digit (for f32 in its double accumulator, about a tenth of the variance); logsumexp of values
 * near +1e4 and near -1e4 (each exp of its own underflows or overflows); the largest element alone
 * at the end, the rest 40 below it; a NaN; +inf; -inf everywhere. */
START_TEST(test_statistics_planted) {
  const size_t n = (1 << 20) + 3;
  size_t element = cureduce_dtype_size(tested_type);
  unsigned char *host = malloc(n * element);
  ck_assert(host);
  double mean = element == 2 ? 1000.0 : element == 4 ? 1e6 : 1e8;
  for (int plant = 0; plant < 7; plant++) {
    for (size_t i = 0; i < n; i++) {
      double x = plant == 0   ? mean + noise()
                 : plant == 1 ? 1e4 + 40 * cureduce_ref_random_unit()
                 : plant == 2 ? -1e4 - 40 * cureduce_ref_random_unit()
                 : plant == 6 ? -INFINITY
                              : 8 * cureduce_ref_random_unit() - 48;
      cureduce_ref_put_float(tested_type, host, i, x);
    }
    if (plant == 3)
      cureduce_ref_put_float(tested_type, host, n - 1, 0.5);
    if (plant == 4 || plant == 5)
      cureduce_ref_put_float(tested_type, host, (size_t)cureduce_ref_random_range(0, (int64_t)n - 1),
                             plant == 4 ? NAN : INFINITY);
    for (int op = CUREDUCE_OP_MEAN; op <= CUREDUCE_OP_LOGSUMEXP; op++)
      check_planted((cureduce_op)op, CUREDUCE_TRANSFORM_NONE, host, n);
  }
  free(host);
}
END_TEST

static void open_gpu(void) {
  gpu = harness_gpu_open();
  input_buffer = harness_device_alloc(&gpu, (size_t)max_elements * 8 * 2);
  offsets_buffer = harness_device_alloc(&gpu, 2 * max_segments * 8);
  output_buffer = harness_device_alloc(&gpu, max_result_bytes + guard_bytes);
  scratch = harness_device_alloc(&gpu, scratch_bytes);
}
static void close_gpu(void) {
  CUdeviceptr buffers[] = {input_buffer, offsets_buffer, output_buffer, scratch};
  for (size_t i = 0; i < 4; i++)
    gpu.cu->cuMemFree(buffers[i]);
  harness_gpu_close(&gpu);
}

int main(int argc, char **argv) {
  int type = argc == 2 ? cureduce_dtype_from_name(argv[1]) : -1;
  if (type < 0 || !cureduce_dtype_is_float((cureduce_dtype)type)) {
    fprintf(stderr, "usage: %s TYPE   (f16, bf16, f32, f64: transforms take floats)\n", argv[0]);
    return 2;
  }
  tested_type = (cureduce_dtype)type;
  harness_split_into_shards();
  Suite *suite = suite_create("gpu-transforms");
  TCase *transforms = tcase_create("transforms");
  tcase_set_timeout(transforms, 900);
  tcase_add_unchecked_fixture(transforms, open_gpu, close_gpu);
  /* the transforms of one input; those of two, test_pairs */
  harness_add_loop_test(transforms, test_whole_arrays, CUREDUCE_TRANSFORM_NONE + 1, CUREDUCE_TRANSFORM_PRODUCT);
  harness_add_loop_test(transforms, test_shapes, CUREDUCE_TRANSFORM_NONE, CUREDUCE_TRANSFORM_PRODUCT);
  harness_add_test(transforms, test_norm2);
  harness_add_loop_test(transforms, test_statistics, CUREDUCE_OP_MEAN, CUREDUCE_OP_LOGSUMEXP + 1);
  harness_add_test(transforms, test_statistics_planted);
  harness_add_loop_test(transforms, test_pairs, CUREDUCE_TRANSFORM_PRODUCT, CUREDUCE_TRANSFORM_PAIR_EXPRESSION + 1);
  harness_add_loop_test(transforms, test_pair_shapes, CUREDUCE_TRANSFORM_PRODUCT, CUREDUCE_TRANSFORM_PAIR_EXPRESSION + 1);
  harness_add_test(transforms, test_pair_calls);
  harness_add_test(transforms, test_planted_semantics);
  harness_add_test(transforms, test_expression_matches_builtin);
  harness_add_test(transforms, test_expression_compile_error);
  harness_add_test(transforms, test_tuned_transform_is_its_own_class);
  harness_add_test(transforms, test_tuned_pairs);
  suite_add_tcase(suite, transforms);
  return harness_run(suite, true);
}
