/* Rows, columns and segments of one input type (argv[1]) against the host reference: every
 * operation that shapes take and each output type it allows, over shapes from no rows to 2^22
 * elements (rows and columns of 1 to 2^20 elements with odd lengths, leading dimensions with
 * padding, empty rows, segments empty, reversed, overlapping and up to 2^20 long), matrix starts
 * aligned and one element off, through
 *   library   the heuristic's plan, executed in the stream's workspace slot;
 *   caller    the same plan in a workspace of the test's own, filled with garbage;
 *   pinned    each family pinned in a few configurations (groups of 1 to 32, compiled and
 *             run-time row lengths, one and several splits), for sum and argmax on the smaller
 *             shapes (pin_on), and for sums into the accumulator type every spec the tuner may
 *             pick for the shape (cureduce_shape_tune_space); exact_sum (rows, columns and
 *             segments of float inputs, bit for bit) likewise, in the tuner's specs and two
 *             block sizes;
 *   tuned     sums of shapes tuned by cureduce_tune_problems, then plans for other shapes of
 *             their classes; and argmax tuned on first use, whose first execution tunes (in the
 *             caller's workspace or the stream's slot, filled with garbage first) and whose plan
 *             then runs the tuned choice in the workspace it first said it needed;
 * on fresh random data, every result and the guard bytes after them poisoned before each run.
 * Float sums run twice: on data whose sums are exact (a dropped or doubled element shows
 * bitwise), and on data whose sums round, within gamma(depth) sum|x| for a depth that bounds
 * every shaped kernel's evaluation tree (shaped_depth). Empty rows, columns and segments must
 * give the documented identity. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "harness.h"
#include "problem.h"
#include "plan.h"
#include "shape.h"

static cureduce_dtype tested_type;
static const harness_gpu *shared_gpu;

enum { poison_byte = 0xA5, guard_bytes = 64 };

typedef struct shape {
  cureduce_layout layout;
  uint64_t rows, cols, leading;
} shape;

static const shape matrices[] = {
    {CUREDUCE_LAYOUT_ROWS, 0, 10, 10},           {CUREDUCE_LAYOUT_ROWS, 1, 1, 1},
    {CUREDUCE_LAYOUT_ROWS, 5, 0, 3},             {CUREDUCE_LAYOUT_ROWS, 1000, 2, 2},
    {CUREDUCE_LAYOUT_ROWS, 333, 3, 5},           {CUREDUCE_LAYOUT_ROWS, 129, 7, 7},
    {CUREDUCE_LAYOUT_ROWS, 65, 16, 16},          {CUREDUCE_LAYOUT_ROWS, 17, 31, 40},
    {CUREDUCE_LAYOUT_ROWS, 1025, 64, 64},        {CUREDUCE_LAYOUT_ROWS, 100, 100, 101},
    {CUREDUCE_LAYOUT_ROWS, 9, 1000, 1000},       {CUREDUCE_LAYOUT_ROWS, 3, 5000, 5003},
    {CUREDUCE_LAYOUT_ROWS, 2, 70001, 70001},     {CUREDUCE_LAYOUT_ROWS, 1, (1 << 20) + 3, (1 << 20) + 3},
    {CUREDUCE_LAYOUT_ROWS, 1 << 20, 2, 2},       {CUREDUCE_LAYOUT_ROWS, 3, 1 << 20, 1 << 20},
    {CUREDUCE_LAYOUT_COLUMNS, 0, 5, 5},          {CUREDUCE_LAYOUT_COLUMNS, 7, 0, 0},
    {CUREDUCE_LAYOUT_COLUMNS, 1, 1, 1},          {CUREDUCE_LAYOUT_COLUMNS, 1000, 2, 2},
    {CUREDUCE_LAYOUT_COLUMNS, 333, 3, 5},        {CUREDUCE_LAYOUT_COLUMNS, 70001, 1, 1},
    {CUREDUCE_LAYOUT_COLUMNS, 5, 1000, 1003},    {CUREDUCE_LAYOUT_COLUMNS, 2, 70001, 70001},
    {CUREDUCE_LAYOUT_COLUMNS, 3000, 64, 64},     {CUREDUCE_LAYOUT_COLUMNS, 1 << 16, 17, 17},
    {CUREDUCE_LAYOUT_COLUMNS, 1 << 20, 3, 4},    {CUREDUCE_LAYOUT_COLUMNS, 1 << 10, 1 << 12, 1 << 12},
    /* packed columns (rows back to back, several to a load), rows left after the last whole load;
     * one row: rows of one element on its transpose, or tiles (of one element a thread where a
     * spec is pinned, and, through the plan, whose pitch for one row is the length rounded up to
     * 16 bytes whatever it was given (cureduce_problem_canonical), of 8 or 16 bytes, whose warps
     * stage their results in shared memory: through the plan alone, past pin_on's size) */
    {CUREDUCE_LAYOUT_COLUMNS, 100003, 2, 2},     {CUREDUCE_LAYOUT_COLUMNS, 1, 100003, 100007},
    {CUREDUCE_LAYOUT_COLUMNS, 1, 300007, 300016},
};

/* Segments: how many, within an input of how many elements. */
static const struct {
  uint64_t segments, elements;
} segment_sets[] = {{1, 1000}, {3, 1 << 12}, {1000, 1 << 18}, {5000, 1 << 21}, {40, (1 << 20) + 77}};

/* ---- the reference ---------------------------------------------------------------------------- */

static bool is_float_type(cureduce_dtype type) { return type <= CUREDUCE_F64; }

/* An empty row's result, as the header documents it. */
static cureduce_ref_result empty_result(cureduce_op op, cureduce_dtype output) {
  cureduce_ref_result r = {.value = {.index = -1}};
  bool is_max = op == CUREDUCE_OP_MAX || op == CUREDUCE_OP_ARGMAX;
  bool is_arg = op == CUREDUCE_OP_ARGMIN || op == CUREDUCE_OP_ARGMAX;
  if (op == CUREDUCE_OP_SUM || op == CUREDUCE_OP_PROD || op == CUREDUCE_OP_EXACT_SUM) {
    if (is_float_type(output))
      cureduce_ref_store_float(output, op == CUREDUCE_OP_PROD ? 1.0L : 0.0L, &r.value);
    else
      r.value.value.u64 = op == CUREDUCE_OP_PROD; /* 1 in the low byte of any integer's bits */
    return r;
  }
  if (is_float_type(output)) {
    cureduce_ref_store_float(output, is_max ? -INFINITY : INFINITY, &r.value);
  } else {
    size_t bits = 8 * cureduce_dtype_size(output);
    bool is_signed = output == CUREDUCE_I8 || output == CUREDUCE_I32 || output == CUREDUCE_I64;
    uint64_t all = bits == 64 ? ~0ull : (1ull << bits) - 1, top = 1ull << (bits - 1);
    r.value.value.u64 = is_signed ? (is_max ? top : all ^ top) : (is_max ? 0 : all);
  }
  (void)is_arg; /* argmin/argmax: the same value, index -1 */
  return r;
}

/* The most additions an element meets in a shaped kernel: its thread's chain (at most the row's,
 * column's or segment's length, plus the unroll accumulators and the identities), the folds of a
 * group or block (5 + 5 shuffle levels, or 10 tree levels down a tile), and the last block's fold
 * of `splits` partials followed by a block fold (10 more). */
static unsigned shaped_depth(uint64_t length, unsigned splits) {
  return (unsigned)(length + 16 + 2 + 10 + splits + 10 + 4);
}

/* ---- running ---------------------------------------------------------------------------------- */

typedef enum mode { MODE_LIBRARY, MODE_CALLER, MODE_PINNED } mode;

typedef struct run {
  const harness_gpu *gpu;
  cureduce_context *context; /* the plan's: the harness's unless a test tunes in a context of its own */
  cureduce_plan *plan;       /* a plan of the test's to execute, else one made for the run */
  cureduce_problem problem;
  mode mode;
  const char *spec;    /* MODE_PINNED */
  CUdeviceptr input;   /* the matrix's first element, or the segments' element 0 */
  CUdeviceptr begin, end;
  CUdeviceptr output;  /* room for the results and the guard */
  CUdeviceptr scratch; /* a caller workspace */
  size_t scratch_bytes;
  unsigned splits;     /* of the plan that ran */
} run;

static size_t results_bytes(const cureduce_problem *p) {
  return cureduce_problem_results(p) * cureduce_result_bytes(p->op, p->output_type);
}

static void execute(run *r) {
  cureduce_plan *plan = r->plan;
  cureduce_status status = CUREDUCE_STATUS_OK;
  if (!plan)
    status = cureduce_plan_create(&plan, r->context ? r->context : r->gpu->context, &r->problem, r->spec);
  ck_assert_msg(status == CUREDUCE_STATUS_OK, "plan %s: %s", r->spec ? r->spec : "(heuristic)",
                cureduce_last_error_detail());
  cureduce_plan_info info;
  ck_assert(cureduce_plan_describe(plan, &info) == CUREDUCE_STATUS_OK);
  cureduce_spec ran;
  ck_assert(cureduce_spec_parse(info.spec, &ran) == CUREDUCE_STATUS_OK);
  r->splits = ran.splits;
  void *workspace = NULL;
  if (r->mode != MODE_LIBRARY || info.workspace_bytes > 132096) {
    ck_assert_msg(info.workspace_bytes <= r->scratch_bytes, "%s wants %zu bytes", info.spec, info.workspace_bytes);
    ck_assert(r->gpu->cu->cuMemsetD8(r->scratch, 0xA5, r->scratch_bytes) == CUDA_SUCCESS);
    workspace = (void *)(uintptr_t)r->scratch;
  }
  const void *in = (const void *)(uintptr_t)r->input;
  void *out = (void *)(uintptr_t)r->output;
  status = r->problem.layout == CUREDUCE_LAYOUT_SEGMENTS
               ? cureduce_plan_execute_segments(plan, in, (const int64_t *)(uintptr_t)r->begin,
                                                (const int64_t *)(uintptr_t)r->end, out, workspace, r->scratch_bytes,
                                                NULL)
               : cureduce_plan_execute(plan, in, out, workspace, r->scratch_bytes, NULL);
  ck_assert_msg(status == CUREDUCE_STATUS_OK, "%s: %s", info.spec, cureduce_last_error_detail());
  if (plan != r->plan)
    cureduce_plan_destroy(plan);
}

/* Poisons, runs, and checks every result and the guard. */
static void check_run(run *r, const unsigned char *host, const int64_t *begin, const int64_t *end, bool rounding) {
  const cureduce_problem *p = &r->problem;
  size_t bytes = results_bytes(p), result_bytes = cureduce_result_bytes(p->op, p->output_type);
  ck_assert(r->gpu->cu->cuMemsetD8(r->output, poison_byte, bytes + guard_bytes) == CUDA_SUCCESS);
  execute(r);
  unsigned char *got = malloc(bytes + guard_bytes), *gathered = malloc(
      (size_t)(p->layout == CUREDUCE_LAYOUT_COLUMNS ? p->rows : p->layout == CUREDUCE_LAYOUT_ROWS ? p->cols : 1u << 21) *
          cureduce_dtype_size(p->input_type) + 16);
  ck_assert(got && gathered);
  harness_download(r->gpu, got, r->output, bytes + guard_bytes);
  for (size_t b = bytes; b < bytes + guard_bytes; b++)
    ck_assert_msg(got[b] == poison_byte, "%s wrote past its %zu result bytes", r->spec ? r->spec : "heuristic", bytes);
  for (uint64_t i = 0; i < cureduce_problem_results(p); i++) {
    size_t length = cureduce_ref_gather(p, host, begin, end, i, gathered);
    cureduce_ref_result expected =
        length == 0 ? empty_result(p->op, p->output_type)
        : rounding  ? cureduce_ref_expected_sum(p->input_type, p->output_type, gathered, length,
                                                shaped_depth(length, r->splits))
                    : cureduce_ref_expected(p->op, p->input_type, p->output_type, gathered, length);
    cureduce_value value = {.index = -1};
    memcpy(&value, got + i * result_bytes, result_bytes);
    char why[256];
    ck_assert_msg(cureduce_ref_matches(p->op, p->output_type, &value, &expected, why, sizeof why),
                  "%s %s %s:%s->%s rows %llu cols %llu ld %llu, result %llu (%zu elements)%s: %s",
                  r->mode == MODE_PINNED ? r->spec : r->mode == MODE_CALLER ? "caller workspace" : "library workspace",
                  p->layout == CUREDUCE_LAYOUT_ROWS ? "rows" : p->layout == CUREDUCE_LAYOUT_COLUMNS ? "columns" : "segments",
                  cureduce_op_name(p->op), cureduce_dtype_name(p->input_type), cureduce_dtype_name(p->output_type),
                  (unsigned long long)p->rows, (unsigned long long)p->cols, (unsigned long long)p->leading_dimension,
                  (unsigned long long)i, length, rounding ? " (data that rounds)" : "", why);
  }
  free(got);
  free(gathered);
}

/* ---- the families, pinned ---------------------------------------------------------------------- */

enum { max_pinned = 10 + CUREDUCE_SHAPE_SPACE_MAX };

/* Variants of the heuristic spec that cover each family of the layout in configurations the tuner
 * does not pick; with `space`, first every spec the tuner may pick for the shape on this GPU (of
 * the problem as plans and the tuner take it: cureduce_problem_canonical). */
static int pinned_specs(const cureduce_problem *given, bool space, char texts[max_pinned][CUREDUCE_SPEC_TEXT_MAX]) {
  const cureduce_problem canonical = cureduce_problem_canonical(given), *p = &canonical;
  const cureduce_device_info *device = &shared_gpu->context->info;
  cureduce_spec base = cureduce_shape_heuristic(p, 132, 2048), variants[max_pinned];
  int count = !space ? 0
                     : (int)cureduce_shape_tune_space(
                           p, device->sm_count, device->max_threads_per_sm, false,
                           cureduce_shape_workspace_limit(p, device->sm_count, device->max_threads_per_sm), variants,
                           CUREDUCE_SHAPE_SPACE_MAX);
  size_t element = cureduce_dtype_size(p->input_type);
  if (p->op == CUREDUCE_OP_EXACT_SUM) { /* a block a row, or its warps: the fewest and the most loads in flight */
    static const struct {
      unsigned block, unroll;
    } exact[] = {{64, 1}, {512, 8}};
    for (int e = 0; e < 2; e++) {
      variants[count] = base;
      variants[count].block = (uint16_t)exact[e].block;
      variants[count++].unroll = (uint8_t)exact[e].unroll;
    }
  } else if (p->layout == CUREDUCE_LAYOUT_ROWS || p->layout == CUREDUCE_LAYOUT_SEGMENTS) {
    bool rows = p->layout == CUREDUCE_LAYOUT_ROWS;
    cureduce_spec groups = base, blocks = base;
    groups.strategy = rows ? CUREDUCE_STRATEGY_ROW_GROUPS : CUREDUCE_STRATEGY_SEGMENT_GROUPS;
    groups.cols = 0, groups.splits = 1, groups.vector_bytes = 16, groups.unroll = 4;
    blocks.strategy = rows ? CUREDUCE_STRATEGY_ROW_BLOCKS : CUREDUCE_STRATEGY_SEGMENT_BLOCKS;
    blocks.group = 0, blocks.cols = 0, blocks.vector_bytes = 16, blocks.unroll = 2;
    static const unsigned group_sizes[] = {1, 8, 32};
    for (int g = 0; g < 3; g++)
      variants[count] = groups, variants[count++].group = (uint16_t)group_sizes[g];
    blocks.splits = 1, variants[count++] = blocks;
    blocks.splits = 3, variants[count++] = blocks;
    if (rows && p->cols * element <= CUREDUCE_COMPILED_ROW_BYTES_MAX && p->cols > 0) {
      cureduce_spec compiled = groups;
      compiled.cols = (uint32_t)p->cols, compiled.group = 1, compiled.vector_bytes = (uint8_t)element;
      compiled.unroll = 3;
      variants[count++] = compiled;
      compiled.group = 4, compiled.vector_bytes = 16, variants[count++] = compiled;
      compiled.group = 1, variants[count++] = compiled; /* rows shorter than 16 bytes: several a load */
    }
  } else {
    /* The last block folds a column's splits with a warp of lanes (group 4, 3 splits), a few (group
     * 32 of 16 bytes) or one: group 0 is as wide as the block (one thread high, no fold down it),
     * its 11 splits folded as a round of eight partials in flight and three one at a time */
    static const struct {
      unsigned group, splits, vector_bytes;
    } tiles[] = {{1, 1, 16}, {4, 3, 0}, {32, 1, 0}, {32, 5, 16}, {0, 11, 16}};
    for (int t = 0; t < 5; t++) {
      cureduce_spec tile = base; /* tiles whatever the heuristic took: packed columns, rows of one element */
      tile.strategy = CUREDUCE_STRATEGY_COLUMN_TILES, tile.cols = 0;
      tile.group = (uint16_t)(tiles[t].group ? tiles[t].group : base.block), tile.splits = (uint16_t)tiles[t].splits;
      tile.vector_bytes = (uint8_t)(tiles[t].vector_bytes ? tiles[t].vector_bytes : element);
      tile.unroll = (uint8_t)(t + 1);
      variants[count++] = tile;
    }
  }
  for (int i = 0; i < count; i++)
    cureduce_spec_format(&variants[i], texts[i]);
  harness_compile_ahead(shared_gpu, variants, (size_t)count);
  return count;
}

/* ---- the sweeps --------------------------------------------------------------------------------- */

static CUdeviceptr scratch, output_buffer;
static const size_t scratch_bytes = 64u << 20;

/* Every output type, data kind and mode of one problem on one input. */
static void check_problem(cureduce_problem problem, CUdeviceptr input, const unsigned char *host, size_t count,
                          CUdeviceptr begin, CUdeviceptr end, const int64_t *host_begin, const int64_t *host_end,
                          bool pinned) {
  cureduce_dtype accumulator;
  ck_assert(cureduce_accumulator_type(problem.op, tested_type, &accumulator) == CUREDUCE_STATUS_OK);
  cureduce_dtype outputs[2] = {tested_type, accumulator};
  run r = {.gpu = shared_gpu, .input = input, .begin = begin, .end = end, .output = output_buffer,
           .scratch = scratch, .scratch_bytes = scratch_bytes};
  bool sums_round = problem.op == CUREDUCE_OP_SUM && is_float_type(tested_type);
  unsigned char *data = (unsigned char *)host;
  size_t element = cureduce_dtype_size(tested_type);
  for (int rounding = 0; rounding < (sums_round ? 2 : 1); rounding++) {
    if (rounding)
      cureduce_ref_fill_rounding(tested_type, data, count);
    else
      cureduce_ref_fill(problem.op, tested_type, data, count);
    harness_upload(shared_gpu, input, data, count * element);
    for (int o = 0; o < (accumulator == tested_type ? 1 : 2); o++) {
      problem.output_type = outputs[o];
      r.problem = problem;
      r.spec = NULL;
      for (int m = MODE_LIBRARY; m <= MODE_CALLER; m++) {
        r.mode = (mode)m;
        check_run(&r, data, host_begin, host_end, rounding);
      }
      /* The results one past an aligned start, as aligned as a result must be: stores of several
       * results at once (16 bytes a thread, or a warp's staged in shared memory) fall back. Once,
       * on the first data: where the results go does not depend on it. */
      if (!rounding) {
        r.mode = MODE_LIBRARY;
        r.output = output_buffer + cureduce_result_bytes(problem.op, problem.output_type);
        check_run(&r, data, host_begin, host_end, rounding);
        r.output = output_buffer;
      }
      if (!pinned)
        continue;
      char texts[max_pinned][CUREDUCE_SPEC_TEXT_MAX];
      /* The tuner's space: for sums (and exact sums) into the accumulator type, where the families'
       * loads, folds and splits are what differs; the argmax and narrow-output kernels share that code. */
      bool sums = problem.op == CUREDUCE_OP_SUM || problem.op == CUREDUCE_OP_EXACT_SUM;
      int specs = pinned_specs(&problem, sums && problem.output_type == accumulator, texts);
      r.mode = MODE_PINNED;
      for (int s = 0; s < specs; s++) {
        r.spec = texts[s];
        check_run(&r, data, host_begin, host_end, rounding);
      }
    }
  }
}

static void check_matrix(cureduce_op op, const shape *s, size_t offset_elements, bool pinned) {
  size_t element = cureduce_dtype_size(tested_type);
  cureduce_problem problem;
  cureduce_problem_init_matrix(&problem, s->layout, op, tested_type, tested_type, s->rows, s->cols, s->leading);
  size_t extent = (size_t)cureduce_problem_extent(&problem), count = extent + offset_elements + 1;
  unsigned char *host = malloc(count * element);
  ck_assert(host);
  CUdeviceptr input = harness_device_alloc(shared_gpu, count * element);
  check_problem(problem, input + offset_elements * element, host + offset_elements * element, extent + 1, 0, 0, NULL,
                NULL, pinned);
  shared_gpu->cu->cuMemFree(input);
  free(host);
}

/* Lengths from none to 2^17 (a few up to the input's end), some begins past their ends, some
 * segments overlapping others. */
static void draw_segments(uint64_t segments, uint64_t elements, int64_t *begin, int64_t *end) {
  for (uint64_t i = 0; i < segments; i++) {
    int64_t kind = cureduce_ref_random_range(0, 99), length;
    if (kind < 15)
      length = 0;
    else if (kind < 20)
      length = -cureduce_ref_random_range(1, 50); /* end before begin: empty */
    else if (kind < 65)
      length = cureduce_ref_random_range(1, 64);
    else if (kind < 95)
      length = cureduce_ref_random_range(65, 5000);
    else /* long, within the input */
      length = cureduce_ref_random_range((int64_t)elements < 5001 ? 1 : 5001, (int64_t)elements);
    if (length > (int64_t)elements)
      length = (int64_t)elements;
    int64_t span = length > 0 ? length : 0;
    begin[i] = cureduce_ref_random_range(length < 0 ? -length : 0, (int64_t)elements - span);
    end[i] = begin[i] + length;
  }
}

/* Segments drawn within an input of `elements` elements, their offsets uploaded (begin, then end),
 * with room for the input on the device and on the host. */
typedef struct drawn_segments {
  int64_t *begin, *end;
  unsigned char *host;
  CUdeviceptr input, offsets;
} drawn_segments;

static drawn_segments draw_and_upload_segments(uint64_t count, uint64_t elements) {
  drawn_segments d = {malloc(count * 8), malloc(count * 8), malloc(elements * cureduce_dtype_size(tested_type)), 0, 0};
  ck_assert(d.begin && d.end && d.host);
  draw_segments(count, elements, d.begin, d.end);
  d.input = harness_device_alloc(shared_gpu, elements * cureduce_dtype_size(tested_type));
  d.offsets = harness_device_alloc(shared_gpu, 2 * count * 8);
  harness_upload(shared_gpu, d.offsets, d.begin, count * 8);
  harness_upload(shared_gpu, d.offsets + count * 8, d.end, count * 8);
  return d;
}

static void free_drawn_segments(drawn_segments *d) {
  shared_gpu->cu->cuMemFree(d->input);
  shared_gpu->cu->cuMemFree(d->offsets);
  free(d->begin), free(d->end), free(d->host);
}

static void check_segments(cureduce_op op, uint64_t segments, uint64_t elements, bool pinned) {
  drawn_segments d = draw_and_upload_segments(segments, elements);
  cureduce_problem problem;
  cureduce_problem_init_segments(&problem, op, tested_type, tested_type, segments);
  check_problem(problem, d.input, d.host, elements, d.offsets, d.offsets + segments * 8, d.begin, d.end, pinned);
  free_drawn_segments(&d);
}

/* The pinned families on the shapes small enough to run many of, at the aligned start, for sum
 * and argmax (a plain fold and an indexed one: what the families do differs in their loads and
 * folds, not in the operation's algebra, which the plans' sweep of every operation covers); the
 * rest through the plan. Each pinned configuration is a kernel of its own to compile. */
static bool pin_on(cureduce_op op, uint64_t rows, uint64_t cols, size_t offset) {
  bool pinned_op = op == CUREDUCE_OP_SUM || op == CUREDUCE_OP_ARGMAX || op == CUREDUCE_OP_EXACT_SUM;
  return pinned_op && offset == 0 && rows * (cols ? cols : 1) <= (1u << 18);
}

/* The shapes of norm2, the moments and logsumexp are gpu-transforms' (the fused computations);
 * exact_sum's are here, for float inputs. */
static bool swept_here(cureduce_op op) {
  return op == CUREDUCE_OP_EXACT_SUM ? is_float_type(tested_type) : !cureduce_op_is_float_only(op);
}

/* A test for each operation and shape (and set of segments), so that the shards share them out
 * (the exact sums of the larger shapes take the longest). */
enum {
  matrix_count = sizeof matrices / sizeof matrices[0],
  segment_set_count = sizeof segment_sets / sizeof segment_sets[0],
};

START_TEST(test_rows_and_columns) {
  cureduce_op op = (cureduce_op)(_i / matrix_count);
  const shape *s = &matrices[_i % matrix_count];
  if (!swept_here(op))
    return;
  for (size_t offset = 0; offset < 2; offset++)
    check_matrix(op, s, offset, pin_on(op, s->rows, s->cols, offset));
}
END_TEST

START_TEST(test_segments) {
  cureduce_op op = (cureduce_op)(_i / segment_set_count);
  uint64_t segments = segment_sets[_i % segment_set_count].segments;
  uint64_t elements = segment_sets[_i % segment_set_count].elements;
  if (swept_here(op))
    check_segments(op, segments, elements, pin_on(op, 1, elements, 0));
}
END_TEST

/* segment_blocks takes a column of segments CUREDUCE_BLOCK at a time, each block picking out the
 * ones it takes (row_blocks.cu); the sets above fill no column past its first batch. 40,000
 * segments in blocks of 128 under g1 (a column an SM: on 132 SMs, 303 segments, three batches)
 * and 3 splits (128 % 3 != 0: the one-block segments' turns carry on from batch to batch), sums
 * (on data that rounds too) and argmax. Within 2^14 elements: the long ones (draw_segments) still
 * take several blocks, and the host's references stay short (2^16 read 70 million elements a run). */
START_TEST(test_segment_batches) {
  enum { segments = 40000, elements = 1 << 14 };
  drawn_segments d = draw_and_upload_segments(segments, elements);
  static const cureduce_op ops[] = {CUREDUCE_OP_SUM, CUREDUCE_OP_ARGMAX};
  for (int k = 0; k < 2; k++)
    for (int rounding = 0; rounding < (ops[k] == CUREDUCE_OP_SUM && is_float_type(tested_type) ? 2 : 1); rounding++) {
      cureduce_problem problem;
      cureduce_problem_init_segments(&problem, ops[k], tested_type, tested_type, segments);
      if (rounding)
        cureduce_ref_fill_rounding(tested_type, d.host, elements);
      else
        cureduce_ref_fill(problem.op, tested_type, d.host, elements);
      harness_upload(shared_gpu, d.input, d.host, elements * cureduce_dtype_size(tested_type));
      cureduce_spec batches = cureduce_shape_heuristic(&problem, 132, 2048);
      ck_assert(batches.strategy == CUREDUCE_STRATEGY_SEGMENT_BLOCKS);
      batches.block = 128, batches.blocks_per_sm = 1, batches.splits = 3;
      char text[CUREDUCE_SPEC_TEXT_MAX];
      cureduce_spec_format(&batches, text);
      run r = {.gpu = shared_gpu, .problem = problem, .mode = MODE_PINNED, .spec = text, .input = d.input,
               .begin = d.offsets, .end = d.offsets + segments * 8, .output = output_buffer, .scratch = scratch,
               .scratch_bytes = scratch_bytes};
      check_run(&r, d.host, d.begin, d.end, rounding);
    }
  free_drawn_segments(&d);
}
END_TEST

/* Sums of 1-byte columns add a thread's bytes into 16-bit lanes and widen them every 256 rows
 * (column_tiles.cu): tiles 32 threads high over 2^17 rows give each thread 4096 rows, 16 widenings,
 * whose lanes would hold sums up to 4096 * 255 if they were not widened. The plan's splits never
 * leave a thread that many rows of the suite's shapes; pinned single-split tiles do, one of 16-byte
 * loads (a tile a thread wide) and one of 8-byte loads (two threads). */
START_TEST(test_byte_columns_widened) {
  if (cureduce_dtype_size(tested_type) != 1)
    return;
  enum { rows = 1 << 17, cols = 16 };
  cureduce_dtype accumulator;
  ck_assert(cureduce_accumulator_type(CUREDUCE_OP_SUM, tested_type, &accumulator) == CUREDUCE_STATUS_OK);
  cureduce_problem problem;
  cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_OP_SUM, tested_type, accumulator, rows,
                               cols, cols);
  unsigned char *host = malloc((size_t)rows * cols);
  ck_assert(host);
  cureduce_ref_fill(CUREDUCE_OP_SUM, tested_type, host, (size_t)rows * cols);
  CUdeviceptr input = harness_device_alloc(shared_gpu, (size_t)rows * cols);
  harness_upload(shared_gpu, input, host, (size_t)rows * cols);
  static const struct {
    unsigned block, group, vector_bytes;
  } tiles[] = {{32, 1, 16}, {64, 2, 8}};
  for (int t = 0; t < 2; t++) {
    cureduce_spec tile = cureduce_shape_heuristic(&problem, 132, 2048);
    tile.block = (uint16_t)tiles[t].block, tile.group = (uint16_t)tiles[t].group;
    tile.vector_bytes = (uint8_t)tiles[t].vector_bytes, tile.unroll = 8, tile.splits = 1;
    char text[CUREDUCE_SPEC_TEXT_MAX];
    cureduce_spec_format(&tile, text);
    run r = {.gpu = shared_gpu, .problem = problem, .mode = MODE_PINNED, .spec = text, .input = input,
             .output = output_buffer, .scratch = scratch, .scratch_bytes = scratch_bytes};
    check_run(&r, host, NULL, NULL, false);
    ck_assert_msg(r.splits == 1, "%s ran with %u splits: its threads no longer take 4096 rows", text, r.splits);
  }
  shared_gpu->cu->cuMemFree(input);
  free(host);
}
END_TEST

/* argmin, argmax, min and max of 8- and 16-bit columns fold keys in lanes, each above a tag of
 * its row within a chunk of the thread's rows (column_tiles.cu): 256 rows for 8-bit keys, 65536
 * for 16-bit. Columns of few distinct values (a tie in every column: the first row of the extreme
 * must win) with, planted at two random rows, one before `boundary` and one at or after it, the
 * type's largest or smallest value, or for floats NaNs (the first wins), infinities of a sign, or
 * only zeros of random signs (-0 below +0). */
static void plant_keyed_column(unsigned char *host, uint64_t col, uint64_t rows, uint64_t cols, uint64_t boundary) {
  uint64_t first = (uint64_t)cureduce_ref_random_range(0, (int64_t)boundary - 1);
  uint64_t second = (uint64_t)cureduce_ref_random_range((int64_t)boundary, (int64_t)rows - 1);
  uint64_t at[2] = {first * cols + col, second * cols + col};
  int kind = (int)(col % 6);
  if (!is_float_type(tested_type)) {
    unsigned char largest = tested_type == CUREDUCE_I8 ? 0x7f : 0xff, smallest = largest + 1;
    unsigned char extreme = kind % 2 ? smallest : largest;
    for (int k = 0; k < 2 && kind < 4; k++)
      host[at[k]] = extreme;
    return;
  }
  const double specials[] = {NAN, INFINITY, -INFINITY, NAN};
  if (kind < 4) {
    for (int k = 0; k < 2; k++)
      cureduce_ref_put_float(tested_type, host, at[k], specials[kind]);
  } else if (kind == 4) {
    for (uint64_t r = 0; r < rows; r++)
      cureduce_ref_put_float(tested_type, host, r * cols + col, cureduce_ref_random_range(0, 1) ? 0.0 : -0.0);
  }
}

/* The four operations on a rows x cols matrix of such columns, through the heuristic and each of
 * `count` tiles (the heuristic's spec with its load bytes, unroll, block, group and splits). */
typedef struct {
  uint8_t vector_bytes, unroll;
  uint16_t block, group, splits;
} keyed_tile;
static void check_keyed_columns(uint64_t rows, uint64_t cols, uint64_t boundary, const keyed_tile *tiles, int count) {
  enum { most_tiles = 8 };
  ck_assert_int_le(count, most_tiles);
  size_t element = cureduce_dtype_size(tested_type), elements = (size_t)(rows * cols);
  unsigned char *host = malloc(elements * element);
  ck_assert(host);
  for (size_t i = 0; i < elements; i++) {
    int64_t few = cureduce_ref_random_range(-3, 3);
    if (is_float_type(tested_type))
      cureduce_ref_put_float(tested_type, host, i, (double)few / 2);
    else
      host[i] = (unsigned char)(few + 64);
  }
  for (uint64_t c = 0; c < cols; c++)
    plant_keyed_column(host, c, rows, cols, boundary);
  CUdeviceptr input = harness_device_alloc(shared_gpu, elements * element);
  harness_upload(shared_gpu, input, host, elements * element);
  static const cureduce_op ops[] = {CUREDUCE_OP_ARGMIN, CUREDUCE_OP_ARGMAX, CUREDUCE_OP_MIN, CUREDUCE_OP_MAX};
  for (int o = 0; o < 4; o++) {
    cureduce_problem problem;
    cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_COLUMNS, ops[o], tested_type, tested_type, rows, cols,
                                 cols);
    run r = {.gpu = shared_gpu, .problem = problem, .mode = MODE_LIBRARY, .input = input, .output = output_buffer,
             .scratch = scratch, .scratch_bytes = scratch_bytes};
    check_run(&r, host, NULL, NULL, false);
    cureduce_spec specs[most_tiles];
    char texts[most_tiles][CUREDUCE_SPEC_TEXT_MAX];
    cureduce_spec heuristic = cureduce_shape_heuristic(&problem, 132, 2048);
    for (int t = 0; t < count; t++) {
      specs[t] = heuristic;
      specs[t].vector_bytes = tiles[t].vector_bytes, specs[t].unroll = tiles[t].unroll;
      specs[t].block = tiles[t].block, specs[t].group = tiles[t].group, specs[t].splits = tiles[t].splits;
      specs[t].blocks_per_sm = (uint16_t)(tiles[t].block < 64 ? 32 : 2048 / tiles[t].block);
      cureduce_spec_format(&specs[t], texts[t]);
    }
    harness_compile_ahead(shared_gpu, specs, (size_t)count);
    r.mode = MODE_PINNED;
    for (int t = 0; t < count; t++) {
      r.spec = texts[t];
      check_run(&r, host, NULL, NULL, false);
    }
  }
  shared_gpu->cu->cuMemFree(input);
  free(host);
}

/* Tiles of 4-, 8- and 16-byte loads, one split and three (the last block's fold takes the splits
 * in order), whose threads take a few rows each; then tiles one thread high, whose threads walk
 * every row: 8-bit keys through a dozen chunks, and 16-bit keys, in columns of 68537 rows with a
 * planted pair on each side of row 65536, through two. */
START_TEST(test_keyed_columns) {
  if (cureduce_dtype_size(tested_type) > 2)
    return;
  static const keyed_tile few_rows[] = {{4, 4, 256, 4, 1},  {4, 4, 256, 4, 3},  {8, 4, 256, 4, 1},
                                        {8, 4, 256, 4, 3},  {16, 4, 256, 4, 1}, {16, 4, 256, 4, 3},
                                        {4, 4, 64, 64, 1}, {16, 16, 32, 32, 1}};
  check_keyed_columns(3001, 48, (uint64_t)cureduce_ref_random_range(1, 3000), few_rows,
                      (int)(sizeof few_rows / sizeof few_rows[0]));
  static const keyed_tile every_row[] = {{4, 4, 32, 32, 1}, {16, 8, 32, 32, 1}};
  check_keyed_columns(65536 + 3001, 16, 65536, every_row, (int)(sizeof every_row / sizeof every_row[0]));
}
END_TEST

/* argmin and argmax of 32-bit keys keep each column's largest key and the row where it first came
 * (column_tiles.cu, CUREDUCE_KEY_ROW_COLUMNS): a later row takes them only with a larger key, and
 * a thread whose every key is the lowest one holds its first row. Columns of few values (a tie in
 * each), every third one all the element whose key is the lowest (argmax: the type's smallest
 * value, for f32 -inf, whose key is not the lowest but ties throughout; argmin: the largest), every
 * third but one such with one other value planted: through the heuristic, and tiles of one and
 * three splits and one thread high over every row. */
static void check_key_row_columns(cureduce_op op, uint64_t rows, uint64_t cols) {
  size_t elements = (size_t)(rows * cols);
  uint32_t *host = malloc(elements * 4);
  ck_assert(host);
  bool argmax = op == CUREDUCE_OP_ARGMAX, f32 = tested_type == CUREDUCE_F32;
  uint32_t lowest_key = f32 ? (argmax ? 0xff800000u : 0x7f800000u) /* -inf, +inf */
                        : tested_type == CUREDUCE_I32 ? (argmax ? 0x80000000u : 0x7fffffffu)
                                                      : (argmax ? 0u : 0xffffffffu);
  for (size_t i = 0; i < elements; i++) {
    int64_t few = cureduce_ref_random_range(-3, 3);
    if (f32)
      cureduce_ref_put_float(tested_type, host, i, (double)few / 2);
    else
      host[i] = (uint32_t)(few + 64);
  }
  for (uint64_t c = 0; c < cols; c++) {
    if (c % 3 == 2)
      continue;
    for (uint64_t r = 0; r < rows; r++)
      host[r * cols + c] = lowest_key;
    if (c % 3 == 1)
      host[(uint64_t)cureduce_ref_random_range(0, (int64_t)rows - 1) * cols + c] = host[c + 2 < cols ? c + 1 : 2];
  }
  CUdeviceptr input = harness_device_alloc(shared_gpu, elements * 4);
  harness_upload(shared_gpu, input, host, elements * 4);
  cureduce_problem problem;
  cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_COLUMNS, op, tested_type, tested_type, rows, cols, cols);
  run r = {.gpu = shared_gpu, .problem = problem, .mode = MODE_LIBRARY, .input = input, .output = output_buffer,
           .scratch = scratch, .scratch_bytes = scratch_bytes};
  check_run(&r, (unsigned char *)host, NULL, NULL, false);
  static const struct {
    uint16_t block, group, splits;
  } tiles[] = {{256, 16, 1}, {256, 16, 3}, {64, 64, 1}};
  cureduce_spec specs[3];
  char texts[3][CUREDUCE_SPEC_TEXT_MAX];
  for (int t = 0; t < 3; t++) {
    specs[t] = cureduce_shape_heuristic(&problem, 132, 2048);
    specs[t].vector_bytes = 16, specs[t].unroll = 4, specs[t].block = tiles[t].block;
    specs[t].group = tiles[t].group, specs[t].splits = tiles[t].splits;
    specs[t].blocks_per_sm = (uint16_t)(2048 / tiles[t].block);
    cureduce_spec_format(&specs[t], texts[t]);
  }
  harness_compile_ahead(shared_gpu, specs, 3);
  r.mode = MODE_PINNED;
  for (int t = 0; t < 3; t++) {
    r.spec = texts[t];
    check_run(&r, (unsigned char *)host, NULL, NULL, false);
  }
  shared_gpu->cu->cuMemFree(input);
  free(host);
}

START_TEST(test_key_row_columns) {
  if (cureduce_dtype_size(tested_type) != 4)
    return;
  check_key_row_columns(CUREDUCE_OP_ARGMAX, 3001, 48);
  check_key_row_columns(CUREDUCE_OP_ARGMIN, 3001, 48);
}
END_TEST

/* What exact_sum of a shape does not do, exact partials, is refused, not run some other way. */
START_TEST(test_exact_partials_of_shapes_refused) {
  if (!is_float_type(tested_type))
    return;
  for (int layout = CUREDUCE_LAYOUT_ROWS; layout <= CUREDUCE_LAYOUT_COLUMNS; layout++) {
    cureduce_problem partials;
    cureduce_problem_init_matrix(&partials, (cureduce_layout)layout, CUREDUCE_OP_EXACT_SUM, tested_type, CUREDUCE_I64,
                                 4, 4, 4);
    cureduce_plan *plan = NULL;
    ck_assert_int_eq(cureduce_plan_create(&plan, shared_gpu->context, &partials, NULL), CUREDUCE_STATUS_UNSUPPORTED);
    ck_assert_ptr_null(plan);
  }
}
END_TEST

/* ---- tuned shapes ------------------------------------------------------------------------------ */

/* A run of `problem` in `context` on fresh data that rounds (sums of floats) or that the reference
 * fills for the operation; segments: back to back, lengths from 0 to 1000. */
static void check_in(cureduce_context *context, cureduce_plan *plan, cureduce_problem problem, mode m) {
  bool segments = problem.layout == CUREDUCE_LAYOUT_SEGMENTS;
  size_t element = cureduce_dtype_size(tested_type), count = segments ? 0 : (size_t)cureduce_problem_extent(&problem);
  int64_t *begin = NULL, *end = NULL;
  if (segments) {
    begin = malloc(problem.rows * 8), end = malloc(problem.rows * 8);
    ck_assert(begin && end);
    for (uint64_t i = 0; i < problem.rows; i++)
      begin[i] = (int64_t)count, count += (size_t)cureduce_ref_random_range(0, 1000), end[i] = (int64_t)count;
  }
  unsigned char *host = malloc(count * element + 16);
  ck_assert(host);
  bool rounding = problem.op == CUREDUCE_OP_SUM && is_float_type(tested_type);
  if (rounding)
    cureduce_ref_fill_rounding(tested_type, host, count);
  else
    cureduce_ref_fill(problem.op, tested_type, host, count);
  CUdeviceptr input = harness_device_alloc(shared_gpu, count * element + 16), offsets = 0;
  harness_upload(shared_gpu, input, host, count * element);
  if (segments) {
    offsets = harness_device_alloc(shared_gpu, 2 * problem.rows * 8);
    harness_upload(shared_gpu, offsets, begin, problem.rows * 8);
    harness_upload(shared_gpu, offsets + problem.rows * 8, end, problem.rows * 8);
  }
  run r = {.gpu = shared_gpu, .context = context, .plan = plan, .problem = problem, .mode = m, .input = input,
           .begin = offsets, .end = offsets + problem.rows * 8, .output = output_buffer, .scratch = scratch,
           .scratch_bytes = scratch_bytes};
  check_run(&r, host, begin, end, rounding);
  shared_gpu->cu->cuMemFree(input);
  if (offsets)
    shared_gpu->cu->cuMemFree(offsets);
  free(host);
  free(begin);
  free(end);
}

static cureduce_problem problem_of(cureduce_layout layout, cureduce_op op, uint64_t rows, uint64_t cols) {
  cureduce_problem p;
  if (layout == CUREDUCE_LAYOUT_SEGMENTS)
    cureduce_problem_init_segments(&p, op, tested_type, tested_type, rows);
  else
    cureduce_problem_init_matrix(&p, layout, op, tested_type, tested_type, rows, cols, cols);
  return p;
}

/* Shapes tuned by the tuner (quick), then plans for other shapes of each class: tuned, and right.
 * A row tuned unpadded serves the same row cut from a padded matrix, and a row unpadded: each is
 * planned and tuned at the pitch of whole vectors (cureduce_problem_canonical). */
START_TEST(test_tuned_shapes) {
  const cureduce_op op = CUREDUCE_OP_SUM;
  static const struct {
    cureduce_layout layout;
    uint64_t rows, cols, other_rows, other_leading; /* other_*: a shape of the same class (0: unpadded) */
  } tuned[] = {{CUREDUCE_LAYOUT_ROWS, 3000, 7, 2100, 0},   {CUREDUCE_LAYOUT_ROWS, 600, 300, 1000, 0},
               {CUREDUCE_LAYOUT_ROWS, 40, 70001, 33, 0},   {CUREDUCE_LAYOUT_COLUMNS, 4000, 300, 2500, 0},
               {CUREDUCE_LAYOUT_SEGMENTS, 2000, 500, 1500, 0}, {CUREDUCE_LAYOUT_COLUMNS, 1, 100003, 1, 100007},
               {CUREDUCE_LAYOUT_COLUMNS, 1, 65539, 1, 0}};
  enum { count = sizeof tuned / sizeof tuned[0] };
  char *folder = harness_temporary_folder();
  ck_assert(folder);
  cureduce_context *context = harness_context_in(folder, CUREDUCE_TUNING_CACHED);
  cureduce_problem problems[count];
  for (int i = 0; i < count; i++)
    problems[i] = problem_of(tuned[i].layout, op, tuned[i].rows, tuned[i].cols);
  /* The segments are timed at the matrices' row length: 500 elements each. */
  ck_assert_msg(cureduce_tune_problems(context, problems, count, 500, 1) == CUREDUCE_STATUS_OK, "%s",
                cureduce_last_error_detail());
  ck_assert_str_eq(cureduce_last_error_detail(), "");
  for (int i = 0; i < count; i++) {
    cureduce_problem canonical = cureduce_problem_canonical(&problems[i]);
    cureduce_tune_record key = cureduce_tunedb_key(&canonical);
    ck_assert(cureduce_plan_tuned_record(context, &key, NULL));
    cureduce_problem other = problem_of(tuned[i].layout, op, tuned[i].other_rows, tuned[i].cols);
    if (tuned[i].other_leading)
      other.leading_dimension = tuned[i].other_leading;
    canonical = cureduce_problem_canonical(&other);
    cureduce_tune_record other_key = cureduce_tunedb_key(&canonical);
    ck_assert(other_key.bucket == key.bucket && other_key.cols_class == key.cols_class);
    cureduce_plan *plan;
    ck_assert(cureduce_plan_create(&plan, context, &other, NULL) == CUREDUCE_STATUS_OK);
    cureduce_plan_info info;
    ck_assert(cureduce_plan_describe(plan, &info) == CUREDUCE_STATUS_OK);
    ck_assert_msg(info.origin == CUREDUCE_PLAN_TUNED, "%s is not tuned", info.spec);
    check_in(context, plan, other, MODE_LIBRARY);
    check_in(context, plan, other, MODE_CALLER);
    cureduce_plan_destroy(plan);
  }
  cureduce_context_destroy(context);
  ck_assert(harness_remove_tree(folder));
}
END_TEST

/* Tuning on first use: a plan made untuned tunes at its first execution (in the caller's garbage
 * workspace or the stream's slot) and gives right results then and after, with the tuned choice
 * and the workspace it said at first; a later plan of the class is tuned when made. */
START_TEST(test_tuning_on_first_use) {
  const cureduce_op op = CUREDUCE_OP_ARGMAX;
  static const struct {
    cureduce_layout layout;
    uint64_t rows, cols;
    mode first;
  } shapes[] = {{CUREDUCE_LAYOUT_ROWS, 1000, 37, MODE_LIBRARY},
                {CUREDUCE_LAYOUT_ROWS, 30, 50000, MODE_CALLER},
                {CUREDUCE_LAYOUT_COLUMNS, 3000, 200, MODE_CALLER},
                {CUREDUCE_LAYOUT_SEGMENTS, 3000, 0, MODE_CALLER}};
  char *folder = harness_temporary_folder();
  ck_assert(folder);
  cureduce_context *context = harness_context_in(folder, CUREDUCE_TUNING_ON_FIRST_USE);
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    cureduce_problem problem = problem_of(shapes[i].layout, op, shapes[i].rows, shapes[i].cols);
    cureduce_plan *plan;
    ck_assert(cureduce_plan_create(&plan, context, &problem, NULL) == CUREDUCE_STATUS_OK);
    cureduce_plan_info before, after;
    ck_assert(cureduce_plan_describe(plan, &before) == CUREDUCE_STATUS_OK);
    ck_assert_int_eq(before.origin, CUREDUCE_PLAN_HEURISTIC);
    check_in(context, plan, problem, shapes[i].first);
    ck_assert(cureduce_plan_describe(plan, &after) == CUREDUCE_STATUS_OK);
    ck_assert_msg(after.origin == CUREDUCE_PLAN_TUNED, "%s: not tuned at its first execution", before.spec);
    ck_assert_uint_eq(after.workspace_bytes, before.workspace_bytes);
    check_in(context, plan, problem, MODE_LIBRARY);
    check_in(context, plan, problem, MODE_CALLER);
    cureduce_plan_destroy(plan);
    ck_assert(cureduce_plan_create(&plan, context, &problem, NULL) == CUREDUCE_STATUS_OK);
    ck_assert(cureduce_plan_describe(plan, &after) == CUREDUCE_STATUS_OK);
    ck_assert_int_eq(after.origin, CUREDUCE_PLAN_TUNED);
    cureduce_plan_destroy(plan);
  }
  cureduce_context_destroy(context);
  ck_assert(harness_remove_tree(folder));
}
END_TEST

static harness_gpu gpu;
static void open_gpu(void) {
  gpu = harness_gpu_open();
  shared_gpu = &gpu;
  scratch = harness_device_alloc(&gpu, scratch_bytes);
  /* the most results (2^20 argmin records of 16 bytes), one result on, and the guard */
  output_buffer = harness_device_alloc(&gpu, (((size_t)1 << 20) + 1) * 16 + guard_bytes);
}
static void close_gpu(void) {
  gpu.cu->cuMemFree(scratch);
  gpu.cu->cuMemFree(output_buffer);
  harness_gpu_close(&gpu);
}

int main(int argc, char **argv) {
  int type = argc == 2 ? cureduce_dtype_from_name(argv[1]) : -1;
  if (type < 0) {
    fprintf(stderr, "usage: %s TYPE   (f16, bf16, f32, f64, i8, u8, i32, u32, i64, u64)\n", argv[0]);
    return 2;
  }
  tested_type = (cureduce_dtype)type;
  harness_split_into_shards();
  Suite *suite = suite_create("gpu-shapes");
  TCase *shapes = tcase_create("shapes");
  tcase_set_timeout(shapes, 900);
  tcase_add_unchecked_fixture(shapes, open_gpu, close_gpu);
  harness_add_loop_test(shapes, test_rows_and_columns, 0, CUREDUCE_OP_COUNT * matrix_count);
  harness_add_loop_test(shapes, test_segments, 0, CUREDUCE_OP_COUNT * segment_set_count);
  harness_add_test(shapes, test_segment_batches);
  harness_add_test(shapes, test_byte_columns_widened);
  harness_add_test(shapes, test_keyed_columns);
  harness_add_test(shapes, test_key_row_columns);
  harness_add_test(shapes, test_exact_partials_of_shapes_refused);
  harness_add_test(shapes, test_tuned_shapes);
  harness_add_test(shapes, test_tuning_on_first_use);
  suite_add_tcase(suite, shapes);
  return harness_run(suite, true);
}
