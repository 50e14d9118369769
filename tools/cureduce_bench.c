/* cureduce-bench: times the library against CUB on the same buffer in the same process, and,
 * with --ladder, every rung of the classic reduce ladder. Every timed configuration is first
 * checked: against the host reference up to 2^24 elements, against CUB's result beyond. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Beyond the public API: the bench launches the shortcut's own kernel by hand to measure the
 * library's host overhead (plan.h, execute.h, workspace.h), runs the teaching ladder (ladder.h),
 * times the read-ceiling kernel (compiler.h, templates.h), and uses the library's run-time driver
 * table for its buffers and events (context.h), so it links neither libcuda nor cudart. */
#include "compiler.h"
#include "context.h"
#include "dtype.h"
#include "execute.h"
#include "ladder.h"
#include "plan.h"
#include "reference.h"
#include "templates.h"
#include "bench_shapes.h"
#include "bench_support.h"
#include "tool_options.h"
#include "workspace.h"
#ifdef CUREDUCE_HAVE_CUB
#include "cub_baseline.h"
#endif
#ifdef CUREDUCE_HAVE_CUBLAS
#include "cublas_baseline.h"
#endif

static void usage(FILE *out) {
  fputs("usage: cureduce-bench [options]\n"
        "\n"
        "Times cureduce against CUB's DeviceReduce on the same buffer in the same process, with the\n"
        "device's read ceiling measured in the same run, and prints a table. Default: f32 sum and\n"
        "max at n = 2^8, 2^10, ..., 2^30.\n"
        "\n"
        "  --ladder          time every rung of the classic reduce ladder instead (default: f32 sum\n"
        "                    at n = 2^24 and 2^28)\n"
        "  --shapes          time rows and columns of every cols = 2^1 ... 2^k of each total size\n"
        "                    (--sizes, default 2^20 and 2^28 elements), then ragged segments of that\n"
        "                    total (heavy-tailed lengths, a tenth empty), against CUB's\n"
        "                    DeviceSegmentedReduce for sums (CUB has no columns: its columns say -);\n"
        "                    each shape's effective GB/s (read + written) and %ceil against its\n"
        "                    floor: reads at the run's read ceiling, writes at what the run's\n"
        "                    device-to-device copy adds for them (the copy rate when written = read)\n"
        "                    (default: f32 sum); with --transform, of the mapped values (a batch of\n"
        "                    dot products with product: x and y read, both counted), CUB's column\n"
        "                    then -, every result checked against the host reference\n"
        "  --layouts LIST    with --shapes: which of rows, columns, segments (default all three)\n",
        out);
  fputs("  --cols LIST       with --shapes: only matrices of these column counts (powers of two),\n"
        "                    e.g. 2^16,2^20 (default every one)\n"
        "  --spec TEXT       pin this configuration to every call it fits, e.g.\n"
        "                    mean:f64->f64/single_pass/b256/u8/v16/g5, or with --shapes\n"
        "                    sum:f32->f32/column_tiles/b256/u8/v16/g8/t256/c0/s1 (a shape it\n"
        "                    does not fit gets a # line saying why, another operation or type a\n"
        "                    line on stderr; a text that does not parse is refused at once);\n"
        "                    up to 8 times: each call then runs under each, a row each, on the\n"
        "                    same data and beside one CUB figure, `plan` among them for each\n"
        "                    plan's own choice; default: each plan's own\n"
        "  --ops LIST        operations, e.g. sum,max (sum, prod, min, max, argmin, argmax;\n"
        "                    float types only: exact_sum, norm2, mean, variance, sample_variance,\n"
        "                    std, sample_std, logsumexp, which CUB has no column for but norm2's\n"
        "                    cuBLAS line)\n"
        "  --transform NAME  fuse a map before the operation: abs, square, nonzero or product (float\n"
        "                    types only; sum of abs is L1, max of abs amax, argmax of abs i?amax;\n"
        "                    product reads two inputs of n elements, x and y, and its sum is the dot\n"
        "                    product, against cuBLAS's ?dot, its GB/s counting both); every\n"
        "                    result is checked against the host reference at every n, and CUB's\n"
        "                    column is TransformReduce (ArgMax over a transform iterator) with the\n"
        "                    same map for L1, amax, i?amax, the sum of squares and the count of\n"
        "                    nonzeros, timed only (its types are the float accumulator's); with\n"
        "                    abs, cuBLAS's ?asum and I?amax (f32, f64) on a line after the row\n"
        "                    (table and --csv, as a # comment), as ?nrm2 after norm2's rows\n"
        "  --expression TEXT  fuse a map of your own, e.g. 'x * x' (CUREDUCE_TRANSFORM_EXPRESSION):\n"
        "                    its rows are not checked (the test suites check user maps) and CUB\n"
        "                    has no column; time it beside --transform square to compare\n"
        "  --types LIST      input types, e.g. f32,bf16\n"
        "  --all             every input type\n"
        "  --sizes LIST      element counts, e.g. 2^20,1000000\n"
        "  --reps N          timed calls per figure, median taken (default 200)\n"
        "  --data KIND       exact: values on a coarse grid, whose float sums are exact and whose\n"
        "                    extremes tie often (default); random: full-mantissa floats and random\n"
        "                    integers, mostly distinct (float sums and products of more than 2^24\n"
        "                    elements are then checked against nothing: their rounding depends on order);\n"
        "                    planted: the random data of float types with one element twice as large\n"
        "                    as any other at 5n/8 and its negation at 3n/8, the call's only maximum\n"
        "                    and minimum (integer types are refused: random integers reach their limits)\n"
        "  --l2 MODE         hot: inputs that fit in L2 stay there (default); flushed: a buffer twice\n"
        "                    the L2 is written before every timed single call (not timed)\n"
        "  --offset BYTES    start the input this many bytes (a multiple of the element size) past\n"
        "                    a 256-byte boundary: a misaligned start\n"
        "  --csv             comma-separated rows instead of the table\n"
        "  --json            one JSON object instead of the table\n"
        "  --device N        CUDA device ordinal (default 0)\n"
        "  -h, --help        this text\n"
        "\n",
        out);
  fputs("Columns: us, the median of event-timed single calls; b2b us, the mean of calls enqueued\n"
        "back to back; GB/s and %ceil from the median, %b2b from the back-to-back mean (the launch\n"
        "latency left out), both against the read ceiling (the plain streaming kernel over at least\n"
        "2 GiB, back to back); %strm, the same kernel's back-to-back time over the row's own bytes\n"
        "over the row's b2b time: 100 is as fast as a bare read of the same size, which pays the\n"
        "same ramp-up and last wave; CUB us and CUB/cr, CUB's median over cureduce's, for every\n"
        "operation (Sum, a multiply Reduce for prod, Min, Max, ArgMin, ArgMax; plain Sum beside\n"
        "exact_sum, as CUB 3.0.1 has no gpu_to_gpu determinism). exact_sum is checked bit for bit\n"
        "at every n. spec, the configuration that ran: the plan's, or cureduce_reduce's choice for\n"
        "the size (tuned or heuristic). The comparison ends with the host overhead: the CPU time to\n"
        "enqueue one cureduce_reduce against one bare cuLaunchKernel of the same kernel and grid.\n",
        out);
}

enum { max_list = 32, max_specs = 8 };

typedef enum format { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON } format;

typedef struct options {
  bool ladder, shapes, random_data, planted, flush_l2;
  cureduce_transform transform; /* --transform; none by default */
  const char *expression;       /* --expression */
  size_t offset;
  format format;
  int device, reps;
  int ops[max_list], op_count;
  int types[max_list], type_count;
  size_t sizes[max_list];
  int size_count;
  int layouts[max_list], layout_count; /* --shapes: which layouts; none named, all */
  const char *specs[max_specs];        /* --spec: each pinned to every call in turn, NULL the plan's own */
  int spec_count;
  uint64_t cols_mask;                  /* --cols: bit k for 2^k columns; 0: every count */
} options;

/* A comma list of sizes. */
static bool parse_sizes(const char *text, size_t *sizes, int *count) {
  char copy[1024];
  snprintf(copy, sizeof copy, "%s", text);
  *count = 0;
  for (char *item = strtok(copy, ","); item; item = strtok(NULL, ","))
    if (*count >= max_list || !cureduce_tool_parse_size(item, &sizes[(*count)++]))
      return false;
  return *count > 0;
}

/* --cols: a comma list of column counts, each a power of two from 2 to 2^63. */
static bool parse_cols(const char *text, uint64_t *mask) {
  size_t cols[max_list];
  int count;
  if (!parse_sizes(text, cols, &count))
    return false;
  for (int i = 0; i < count; i++) {
    if (cols[i] < 2 || (cols[i] & (cols[i] - 1)))
      return false;
    *mask |= (uint64_t)1 << __builtin_ctzll(cols[i]);
  }
  return true;
}

/* One option and its argument (optarg) into o; false, with *why, for a bad value. */
static bool parse_option(int c, void *into, const char **why) {
  options *o = into;
  bool ok = true;
  switch (c) {
  case 'D':
    ok = strcmp(optarg, "exact") == 0 || strcmp(optarg, "random") == 0 || strcmp(optarg, "planted") == 0;
    o->planted = strcmp(optarg, "planted") == 0;
    o->random_data = o->planted || strcmp(optarg, "random") == 0;
    *why = "--data takes exact, random or planted";
    break;
  case 'L':
    ok = strcmp(optarg, "hot") == 0 || strcmp(optarg, "flushed") == 0;
    o->flush_l2 = strcmp(optarg, "flushed") == 0;
    *why = "--l2 takes hot or flushed";
    break;
  case 'O': {
    int offset;
    ok = cureduce_tool_parse_int(optarg, 0, &offset) && offset < 256;
    o->offset = ok ? (size_t)offset : 0;
    *why = "--offset takes a number of bytes below 256";
    break;
  }
  case 'T': {
    int transform = cureduce_transform_from_name(optarg);
    ok = transform > CUREDUCE_TRANSFORM_NONE && !cureduce_transform_has_expression((cureduce_transform)transform) &&
         !o->expression;
    o->transform = (cureduce_transform)(ok ? transform : 0);
    *why = "--transform takes abs, square, nonzero or product (a map of your own: --expression, instead of "
           "--transform)";
    break;
  }
  case 'E':
    ok = !o->transform;
    o->expression = optarg, o->transform = CUREDUCE_TRANSFORM_EXPRESSION;
    *why = "--expression instead of --transform, not both";
    break;
  case 'P': { /* refused here, not call by call: a typo would leave every row of the table out */
    static char spec_why[512]; /* a parse error says what it found in a line */
    cureduce_spec parsed;
    bool own = strcmp(optarg, "plan") == 0; /* the plan's own choice, beside pinned ones */
    ok = o->spec_count < max_specs && (own || cureduce_spec_parse(optarg, &parsed) == CUREDUCE_STATUS_OK);
    snprintf(spec_why, sizeof spec_why, "--spec: %s",
             o->spec_count < max_specs ? cureduce_last_error_detail() : "at most 8 of them");
    if (ok)
      o->specs[o->spec_count++] = own ? NULL : optarg;
    *why = spec_why;
    break;
  }
  case 'C':
    ok = parse_cols(optarg, &o->cols_mask);
    *why = "--cols takes a comma list of column counts, powers of two from 2, e.g. 2^16,2^20";
    break;
  case 'l': o->ladder = true; break;
  case 'S': o->shapes = true; break;
  case 'Y':
    ok = cureduce_tool_parse_names(optarg, cureduce_tool_layout_from_name, o->layouts, max_list, &o->layout_count);
    *why = "--layouts takes a comma list of rows, columns, segments";
    break;
  case 'c': o->format = FORMAT_CSV; break;
  case 'j': o->format = FORMAT_JSON; break;
  case 'o':
    ok = cureduce_tool_parse_names(optarg, cureduce_op_from_name, o->ops, max_list, &o->op_count);
    *why = "--ops takes a comma list of operations (see --help)";
    break;
  case 't':
    ok = cureduce_tool_parse_names(optarg, cureduce_dtype_from_name, o->types, max_list, &o->type_count);
    *why = "--types takes a comma list of f16, bf16, f32, f64, i8, u8, i32, u32, i64, u64";
    break;
  case 's':
    ok = parse_sizes(optarg, o->sizes, &o->size_count);
    *why = "--sizes takes a comma list of element counts above 0, e.g. 2^20,1000003";
    break;
  case 'a':
    for (o->type_count = 0; o->type_count < CUREDUCE_DTYPE_COUNT; o->type_count++)
      o->types[o->type_count] = o->type_count;
    break;
  case 'r':
    ok = cureduce_tool_parse_int(optarg, 1, &o->reps);
    *why = "--reps takes a number of calls, at least 1";
    break;
  case 'd':
    ok = cureduce_tool_parse_int(optarg, 0, &o->device);
    *why = "--device takes a device ordinal, 0 or more";
    break;
  case 'h': usage(stdout); exit(0);
  default: ok = false;
  }
  return ok;
}

/* Why the options do not go together, or NULL when they do. */
static const char *options_conflict(const void *from) {
  const options *o = from;
  if ((o->ladder || o->shapes) && o->format == FORMAT_JSON)
    return "--json does not go with --ladder or --shapes (use --csv)";
  if (o->ladder && o->shapes)
    return "--ladder and --shapes are two different tables: one at a time";
  if (o->shapes && (o->flush_l2 || o->random_data || o->offset))
    return "--shapes takes --ops, --types, --sizes, --layouts, --cols, --spec, --reps and --csv (its data "
           "are the exact grid)";
  if (o->layout_count && !o->shapes)
    return "--layouts goes with --shapes";
  if (o->spec_count && o->ladder)
    return "--spec goes with the whole-array comparison or --shapes, not --ladder";
  if (o->cols_mask && !o->shapes)
    return "--cols goes with --shapes";
  if (o->transform && o->ladder)
    return "--transform and --expression go with the whole-array comparison or --shapes, not --ladder";
  if (o->shapes && o->transform == CUREDUCE_TRANSFORM_EXPRESSION)
    return "--shapes checks every result, and the host has no account of a map of your own: "
           "--expression goes with the whole-array comparison";
  return NULL;
}

/* Defaults for what the options left out; 2 for an offset or data that a type cannot take. */
static int complete_options(options *o) {
  if (!o->op_count)
    o->op_count = o->ladder || o->shapes ? 1 : 2, o->ops[0] = CUREDUCE_OP_SUM, o->ops[1] = CUREDUCE_OP_MAX;
  if (!o->type_count)
    o->type_count = 1, o->types[0] = CUREDUCE_F32;
  for (int t = 0; t < o->type_count; t++)
    if (o->offset % cureduce_dtype_size((cureduce_dtype)o->types[t]) != 0) {
      fprintf(stderr, "cureduce-bench: --offset %zu is not a multiple of %s's %zu bytes\n", o->offset,
              cureduce_dtype_name((cureduce_dtype)o->types[t]), cureduce_dtype_size((cureduce_dtype)o->types[t]));
      return 2;
    }
  for (int t = 0; o->planted && t < o->type_count; t++)
    if (o->types[t] > CUREDUCE_F64) {
      fprintf(stderr, "cureduce-bench: --data planted takes float types: random %s values already reach the "
                      "type's limits, so no planted one could be the only extreme\n",
              cureduce_dtype_name((cureduce_dtype)o->types[t]));
      return 2;
    }
  if (!o->size_count) {
    if (o->ladder || o->shapes)
      o->size_count = 2, o->sizes[0] = (size_t)1 << (o->ladder ? 24 : 20), o->sizes[1] = (size_t)1 << 28;
    else
      for (int e = 8; e <= 30; e += 2)
        o->sizes[o->size_count++] = (size_t)1 << e;
  }
  return 0;
}

static int parse_options(int argc, char **argv, options *o) {
  static const struct option long_options[] = {
      {"ladder", no_argument, NULL, 'l'},      {"ops", required_argument, NULL, 'o'},
      {"types", required_argument, NULL, 't'}, {"all", no_argument, NULL, 'a'},
      {"sizes", required_argument, NULL, 's'}, {"reps", required_argument, NULL, 'r'},
      {"csv", no_argument, NULL, 'c'},         {"json", no_argument, NULL, 'j'},
      {"device", required_argument, NULL, 'd'}, {"help", no_argument, NULL, 'h'},
      {"data", required_argument, NULL, 'D'},   {"l2", required_argument, NULL, 'L'},
      {"offset", required_argument, NULL, 'O'}, {"shapes", no_argument, NULL, 'S'},
      {"layouts", required_argument, NULL, 'Y'}, {"transform", required_argument, NULL, 'T'},
      {"expression", required_argument, NULL, 'E'}, {"spec", required_argument, NULL, 'P'},
      {"cols", required_argument, NULL, 'C'},
      {NULL, 0, NULL, 0}};
  *o = (options){.reps = 200, .op_count = 0, .type_count = 0, .size_count = 0};
  const cureduce_tool_command_line line = {"cureduce-bench", "h", long_options, parse_option, options_conflict};
  if (!cureduce_tool_parse_command_line(&line, argc, argv, o))
    return 2;
  return complete_options(o);
}

/* ---- the device side ------------------------------------------------------------------------ */

typedef struct bench {
  cureduce_context *context;
  const cureduce_driver *cu;
  CUstream stream;
  CUevent start, stop;
  CUdeviceptr input, output, scratch, cub_temp;
  size_t input_bytes, scratch_bytes, cub_temp_bytes;
  size_t used_bytes;  /* the part of the input any reduction of the run reads: the rest only streams */
  CUdeviceptr data;   /* where the reductions start: input + the --offset */
  CUdeviceptr flush;  /* --l2 flushed: written before every timed single call */
  size_t flush_bytes;
  CUmodule stream_module;
  CUfunction stream_kernel; /* the plain streaming kernel of the read ceiling */
  double ceiling_gbps;
  uint64_t seed; /* the data's, printed in the header: CUREDUCE_TEST_SEED replays it */
} bench;

/* A kernel launched by hand: the read-ceiling kernel, and the plan's kernel as the host-overhead
 * baseline. */
typedef struct raw_launch {
  CUfunction function;
  unsigned grid, block;
  void **parameters;
} raw_launch;

/* What one timed call enqueues. */
typedef struct call {
  enum { CALL_LIBRARY, CALL_PLAN, CALL_SPEC, CALL_CUB, CALL_CUBLAS, CALL_RAW } kind;
  cureduce_op op;
  cureduce_transform transform;
  cureduce_dtype input, output;
  size_t n;
  const cureduce_plan *plan; /* CALL_PLAN: a transformed problem's (the shortcut takes none) */
  cureduce_spec spec;        /* CALL_SPEC */
  const raw_launch *raw;     /* CALL_RAW */
} call;

#ifdef CUREDUCE_HAVE_CUB
/* CUB's reduction of the call's operation, transform and type; -1 where it has none to compare. */
static int cub_run(const call *c, const void *in, void *out, void *temp, size_t *temp_bytes, void *stream) {
  return c->transform ? cureduce_cub_transform_reduce(c->op, c->transform, c->input, in, c->n, out, temp, temp_bytes,
                                                      stream)
                      : cureduce_cub_reduce(c->op, c->input, in, c->n, out, temp, temp_bytes, stream);
}
#endif

/* Whether CUB has a figure for the call's (operation, transform, type). */
static bool cub_covers(const call *c) {
#ifdef CUREDUCE_HAVE_CUB
  size_t bytes = 0;
  return cub_run(c, NULL, NULL, NULL, &bytes, NULL) == 0;
#else
  (void)c;
  return false;
#endif
}


/* Where y of a map of two inputs lies: after x's n elements, at the next 256-byte boundary. */
static size_t second_offset(const call *c) { return (c->n * cureduce_dtype_size(c->input) + 255) & ~(size_t)255; }
static void *second_of(const bench *b, const call *c) { return (void *)(uintptr_t)(b->data + second_offset(c)); }

/* The bytes a call reads: n elements, of x and y for a map of two inputs. */
static size_t read_bytes(const call *c) {
  return c->n * cureduce_dtype_size(c->input) * cureduce_transform_inputs(c->transform);
}

/* The bytes of the input buffer a call spans: x, and y from second_offset for a map of two inputs. */
static size_t spanned_bytes(const call *c) {
  size_t x = c->n * cureduce_dtype_size(c->input);
  return cureduce_transform_is_pair(c->transform) ? second_offset(c) + x : x;
}

static void enqueue(bench *b, const call *c) {
  void *in = (void *)(uintptr_t)b->data, *out = (void *)(uintptr_t)b->output;
  cureduce_status status = CUREDUCE_STATUS_OK;
  switch (c->kind) {
  case CALL_LIBRARY: status = cureduce_reduce(b->context, c->op, c->input, in, c->n, c->output, out, b->stream); break;
  case CALL_PLAN:
    status = cureduce_transform_is_pair(c->transform)
                 ? cureduce_plan_execute_pair(c->plan, in, second_of(b, c), out, NULL, 0, b->stream)
                 : cureduce_plan_execute(c->plan, in, out, NULL, 0, b->stream);
    break;
  case CALL_SPEC:
    status = cureduce_ladder_run(b->context, &c->spec, in, c->n, out, b->stream, (void *)(uintptr_t)b->scratch);
    break;
  case CALL_CUB:
#ifdef CUREDUCE_HAVE_CUB
    if (cub_run(c, in, out, (void *)(uintptr_t)b->cub_temp, &b->cub_temp_bytes, b->stream) != 0) {
      fprintf(stderr, "cureduce-bench: CUB failed\n");
      exit(1);
    }
#endif
    break;
  case CALL_CUBLAS:
#ifdef CUREDUCE_HAVE_CUBLAS
    if (cureduce_cublas_run(c->op, c->transform, c->input, in, second_of(b, c), c->n, out, b->stream) != 0)
      cureduce_bench_fail("cuBLAS");
#endif
    break;
  case CALL_RAW:
    cureduce_bench_check_cuda(b->cu->cuLaunchKernel(c->raw->function, c->raw->grid, 1, 1, c->raw->block, 1, 1, 0, b->stream,
                                     c->raw->parameters, NULL),
               "cuLaunchKernel");
    break;
  }
  if (status != CUREDUCE_STATUS_OK)
    cureduce_bench_fail("reduction");
}

static double gbps(size_t bytes, double us) { return us > 0 ? (double)bytes / (us * 1e-6) / 1e9 : 0; }

static void enqueue_call(void *b, const void *c) { enqueue(b, c); }
static cureduce_bench_timer timer_of(const bench *b) { return (cureduce_bench_timer){b->cu, b->stream, b->start, b->stop}; }

/* Median of `reps` event-timed single calls, in microseconds, after a warm-up; with --l2 flushed,
 * each call after writing a buffer twice the L2's size, outside the timed region. */
static double time_median(bench *b, const call *c, int reps) {
  for (int i = 0; i < 10; i++)
    enqueue(b, c);
  cureduce_bench_timer timer = timer_of(b);
  float *times = malloc((size_t)reps * sizeof *times);
  for (int i = 0; i < reps; i++) {
    if (b->flush)
      cureduce_bench_check_cuda(b->cu->cuMemsetD32Async(b->flush, (unsigned)i, b->flush_bytes / 4, b->stream), "cuMemsetD32Async");
    times[i] = cureduce_bench_elapsed_ms(&timer, enqueue_call, b, c, 1);
  }
  double median = 1000.0 * cureduce_bench_median(times, reps);
  free(times);
  return median;
}

/* Mean of `reps` calls enqueued back to back, in microseconds. */
static double time_back_to_back(bench *b, const call *c, int reps) {
  cureduce_bench_timer timer = timer_of(b);
  return 1000.0 * cureduce_bench_elapsed_ms(&timer, enqueue_call, b, c, reps) / reps;
}

/* Random data of the type over the first `bytes` of the buffer: a 64 MiB random block, repeated.
 * --data exact: the grid whose float sums are exact (extremes tie often); random: full-mantissa
 * floats (no NaN) and random integers. */
static void fill_input(bench *b, cureduce_dtype type, bool random_data, size_t bytes) {
  size_t block = (size_t)64 << 20, element = cureduce_dtype_size(type);
  void *host = malloc(block);
  if (random_data && type <= CUREDUCE_F64)
    cureduce_ref_fill_rounding(type, host, block / element);
  else
    cureduce_ref_fill(random_data ? CUREDUCE_OP_MIN : CUREDUCE_OP_SUM, type, host, block / element);
  for (size_t offset = 0; offset < bytes; offset += block)
    cureduce_bench_check_cuda(b->cu->cuMemcpyHtoD(b->input + offset, host, offset + block <= bytes ? block : bytes - offset),
               "cuMemcpyHtoD");
  free(host);
}

/* --data planted: the call's input x with one element twice as large as any of the random data at
 * 5n/8 and its negation at 3n/8, each the only one of its kind, which the call's argmax and argmin
 * must find there; the elements they replace are kept, to be put back (the buffer serves every
 * size). */
typedef struct planted_elements {
  size_t at[2];
  unsigned char kept[2][8];
} planted_elements;

static planted_elements plant_extremes(bench *b, const call *c) {
  const size_t element = cureduce_dtype_size(c->input);
  planted_elements p = {.at = {c->n * 5 / 8, c->n * 3 / 8}};
  for (int e = 0; e < 2; e++) {
    unsigned char planted[8];
    cureduce_ref_put_float(c->input, planted, 0, (e ? -1 : 1) * cureduce_ref_rounding_bound(c->input));
    cureduce_bench_check_cuda(b->cu->cuMemcpyDtoH(p.kept[e], b->data + p.at[e] * element, element), "cuMemcpyDtoH");
    cureduce_bench_check_cuda(b->cu->cuMemcpyHtoD(b->data + p.at[e] * element, planted, element), "cuMemcpyHtoD");
  }
  return p;
}

static void unplant_extremes(bench *b, const call *c, const planted_elements *p) {
  const size_t element = cureduce_dtype_size(c->input);
  for (int e = 1; e >= 0; e--) /* the reverse order: where n = 1 puts both at one element, its first value returns */
    cureduce_bench_check_cuda(b->cu->cuMemcpyHtoD(b->data + p->at[e] * element, p->kept[e], element), "cuMemcpyHtoD");
}

/* Reads the result of one call back. */
static cureduce_value run_once(bench *b, const call *c) {
  cureduce_bench_check_cuda(b->cu->cuMemsetD8(b->output, 0xA5, sizeof(cureduce_value)), "cuMemsetD8");
  enqueue(b, c);
  cureduce_bench_check_cuda(b->cu->cuStreamSynchronize(b->stream), "cuStreamSynchronize");
  cureduce_value v = {.index = -1};
  cureduce_bench_check_cuda(b->cu->cuMemcpyDtoH(&v, b->output, cureduce_result_size(c->op, c->output)), "cuMemcpyDtoH");
  return v;
}

/* The host reference of the call on its input data (x, then y at second_offset for a map of two
 * inputs), mapped first where it has a transform (the call's output is then the accumulator type of
 * the mapped values). */
static cureduce_ref_result reference_of(const call *c, const unsigned char *host) {
  return cureduce_ref_expected_mapped(c->op, c->transform, c->input, c->output, host,
                                      cureduce_transform_is_pair(c->transform) ? host + second_offset(c) : NULL, c->n);
}

/* Checks one configuration before timing it: against the host reference up to 2^24 elements
 * (the block pattern repeats, so the host reads the data back), else against CUB's result, which
 * must be the same bits where the result does not depend on the order of the operations: integers,
 * extremes and their indices, and float sums of the exact data. Returns what it compared with;
 * "-" for a float sum or product of random data past 2^24. */
static const char *verify(bench *b, const call *c, bool have_cub, bool random_data) {
  cureduce_value got = run_once(b, c);
  if (c->transform == CUREDUCE_TRANSFORM_EXPRESSION)
    return "-"; /* the caller's map: the host has no account of it */
  char why[256];
  /* exact sums: every bit, at any n; transforms: CUB's types differ (cub_transform.cu); norm2, the
   * moments and logsumexp: CUB has none */
  if (c->n <= (size_t)1 << 24 || cureduce_op_is_float_only(c->op) || c->transform) {
    size_t bytes = spanned_bytes(c);
    unsigned char *host = malloc(bytes ? bytes : 1);
    if (!host)
      cureduce_bench_fail("no host memory for the reference");
    cureduce_bench_check_cuda(b->cu->cuMemcpyDtoH(host, b->data, bytes), "cuMemcpyDtoH");
    cureduce_ref_result expected = reference_of(c, host);
    free(host);
    if (!cureduce_ref_matches(c->op, c->output, &got, &expected, why, sizeof why)) {
      fprintf(stderr, "cureduce-bench: WRONG RESULT for n = %zu: %s\n", c->n, why);
      exit(1);
    }
    return "host";
  }
  bool order_matters = c->input <= CUREDUCE_F64 && (c->op == CUREDUCE_OP_PROD || (c->op == CUREDUCE_OP_SUM && random_data));
  if (!have_cub || order_matters)
    return "-";
  call cub = *c;
  cub.kind = CALL_CUB;
  cureduce_value want = run_once(b, &cub);
  if (memcmp(&got.value, &want.value, cureduce_dtype_size(c->output)) != 0 ||
      (cureduce_op_is_arg(c->op) && got.index != want.index)) {
    fprintf(stderr, "cureduce-bench: result for n = %zu differs from CUB's (index %lld, CUB's %lld)\n", c->n,
            (long long)got.index, (long long)want.index);
    exit(1);
  }
  return "CUB";
}

/* Loads the plain streaming kernel (kernel_templates/read_ceiling.cu) that the read ceiling and
 * the stream column time. */
static void load_stream_kernel(bench *b) {
  const cureduce_template_set *templates;
  cureduce_binary binary;
  if (cureduce_templates_get(&templates) != CUREDUCE_STATUS_OK ||
      cureduce_nvrtc_compile(cureduce_template_find(templates, "read_ceiling.cu"), "read_ceiling.cu",
                             b->context->info.arch, &binary) != CUREDUCE_STATUS_OK)
    cureduce_bench_fail("compiling the read-ceiling kernel");
  cureduce_bench_check_cuda(b->cu->cuModuleLoadData(&b->stream_module, binary.data), "cuModuleLoadData");
  free(binary.data);
  cureduce_bench_check_cuda(b->cu->cuModuleGetFunction(&b->stream_kernel, b->stream_module, "cureduce_read_ceiling"),
             "cuModuleGetFunction");
}

/* The mean of back-to-back streams over the first `bytes` of the input buffer (rounded up to
 * whole 16-byte loads), after a warm-up. */
static double stream_us(bench *b, size_t bytes, int reps) {
  unsigned long long vectors = (bytes + 15) / 16;
  CUdeviceptr sink = b->output;
  void *parameters[] = {&b->input, &vectors, &sink};
  raw_launch stream = {b->stream_kernel, (unsigned)b->context->info.sm_count * 8, 256, parameters};
  call c = {.kind = CALL_RAW, .raw = &stream};
  time_median(b, &c, 1);
  return time_back_to_back(b, &c, reps);
}

/* The read ceiling: the streaming kernel over the whole input buffer, back to back. */
static double measure_ceiling(bench *b, int reps) { return gbps(b->input_bytes, stream_us(b, b->input_bytes, reps)); }

/* ---- the tables ---------------------------------------------------------------------------- */

/* The clocks the driver reports (the maxima; nvidia-smi shows the current ones). */
static void device_clocks(const bench *b, int *sm_mhz, int *memory_mhz) {
  int sm_khz = 0, memory_khz = 0;
  b->cu->cuDeviceGetAttribute(&sm_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, b->context->device);
  b->cu->cuDeviceGetAttribute(&memory_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, b->context->device);
  *sm_mhz = sm_khz / 1000;
  *memory_mhz = memory_khz / 1000;
}

static const char *l2_text(const options *o) {
  return o->flush_l2 ? "flushed before every single call (b2b calls are not)" : "hot when the input fits";
}
static const char *data_text(const options *o) {
  if (o->planted)
    return "planted (random, one maximum at 5n/8 and one minimum at 3n/8)";
  return o->random_data ? "random (full-mantissa floats, mostly distinct)" : "exact (a coarse grid: exact float sums, many ties)";
}

static void print_header(const options *o, const bench *b) {
  char version[32] = "n/a";
#ifdef CUREDUCE_HAVE_CUB
  int v = cureduce_cub_version();
  snprintf(version, sizeof version, "%d.%d.%d", v / 100000, v / 100 % 1000, v % 100);
#endif
  int driver = 0, nvrtc = 0, sm_mhz, memory_mhz;
  b->cu->cuDriverGetVersion(&driver);
  cureduce_nvrtc_version(&nvrtc);
  device_clocks(b, &sm_mhz, &memory_mhz);
  const cureduce_device_info *d = &b->context->info;
  if (o->format == FORMAT_JSON) {
    printf("{\"gpu\": \"%s\", \"arch\": %d, \"sms\": %d, \"driver\": \"%d.%d\", \"nvrtc\": \"%d.%d\", "
           "\"cub\": \"%s\", \"cureduce\": \"%s\", \"max_sm_mhz\": %d, \"max_memory_mhz\": %d, "
           "\"read_ceiling_gbps\": %.1f, \"reps\": %d, \"l2\": \"%s\", \"data\": \"%s\", \"offset_bytes\": %zu, "
           "\"seed\": %" PRIu64 ",\n \"rows\": [",
           d->name, d->arch, d->sm_count, driver / 1000, driver % 1000 / 10, nvrtc / 1000, nvrtc % 1000 / 10, version,
           cureduce_version_string(), sm_mhz, memory_mhz, b->ceiling_gbps, o->reps, l2_text(o), data_text(o), o->offset,
           b->seed);
    return;
  }
  printf("# %s, sm_%d, %d SMs, clocks up to %d MHz (SM) and %d MHz (memory); CUDA driver %d.%d, NVRTC %d.%d, "
         "CUB %s; cureduce %s\n",
         d->name, d->arch, d->sm_count, sm_mhz, memory_mhz, driver / 1000, driver % 1000 / 10, nvrtc / 1000,
         nvrtc % 1000 / 10, version, cureduce_version_string());
  printf("# read ceiling (16-byte loads, %.2f GB buffer, back to back): %.0f GB/s; median of %d; L2 %s; data %s (seed %" PRIu64
         "); input %zu bytes past a 256-byte boundary\n",
         (double)b->input_bytes / 1e9, b->ceiling_gbps, o->reps, l2_text(o), data_text(o), b->seed, o->offset);
}

static int compare_floats_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* cureduce_reduce's configuration for the call's size bucket, as it ran it (made and published at
 * its first call). */
static const cureduce_choice *shortcut_choice(bench *b, const call *c) {
  const cureduce_choice *choice;
  cureduce_plancache_key key = {.op = c->op, .input = c->input, .output = c->output, .bucket = cureduce_size_bucket(c->n)};
  if (cureduce_plan_choice(b->context, &key, &choice) != CUREDUCE_STATUS_OK)
    cureduce_bench_fail("looking up cureduce_reduce's configuration");
  return choice;
}

/* The configuration a call of the comparison ran: its plan's, or the shortcut's. */
static void spec_that_ran(bench *b, const call *c, char text[CUREDUCE_SPEC_TEXT_MAX]) {
  if (c->kind != CALL_PLAN) {
    cureduce_spec_format(&shortcut_choice(b, c)->spec, text);
    return;
  }
  cureduce_plan_info info;
  if (cureduce_plan_describe(c->plan, &info) != CUREDUCE_STATUS_OK)
    cureduce_bench_fail("describing a plan");
  snprintf(text, CUREDUCE_SPEC_TEXT_MAX, "%s", info.spec);
}

/* One row of the comparison. */
typedef struct row {
  const call *c;
  double us, b2b_us, cub_us; /* cub_us 0: no CUB figure */
  double stream_b2b_us;      /* the plain streaming kernel over the same bytes, back to back */
  const char *checked;
  char spec[CUREDUCE_SPEC_TEXT_MAX]; /* the configuration that ran */
} row;

static void print_row(const options *o, const bench *b, const row *r, bool first) {
  size_t bytes = read_bytes(r->c);
  double rate = gbps(bytes, r->us), ceiling = 100 * rate / b->ceiling_gbps;
  double b2b_ceiling = 100 * gbps(bytes, r->b2b_us) / b->ceiling_gbps;
  double ratio = r->cub_us > 0 ? r->cub_us / r->us : NAN, of_stream = 100 * r->stream_b2b_us / r->b2b_us;
  const char *type = cureduce_dtype_name(r->c->input);
  char op[32]; /* "sum", or with a transform "sum:abs" */
  snprintf(op, sizeof op, "%s%s%s", cureduce_op_name(r->c->op), r->c->transform ? ":" : "",
           r->c->transform ? cureduce_transform_name(r->c->transform) : "");
  switch (o->format) {
  case FORMAT_TABLE: {
    char cub[16] = "-", cub_ratio[16] = "-"; /* CUB has no such reduction */
    if (r->cub_us > 0) {
      snprintf(cub, sizeof cub, "%.2f", r->cub_us);
      snprintf(cub_ratio, sizeof cub_ratio, "%.3f", ratio);
    }
    printf("%-14s %-5s %12zu %9.2f %9.2f %8.1f %6.1f %6.1f %6.1f %9s %8s %6s  %s\n", op, type, r->c->n, r->us,
           r->b2b_us, rate, ceiling, b2b_ceiling, of_stream, cub, cub_ratio, r->checked, r->spec);
    break;
  }
  case FORMAT_CSV:
    printf("%s,%s,%zu,%.2f,%.2f,%.1f,%.1f,%.1f,%.2f,%.1f,%.2f,%.3f,%s,%s\n", op, type, r->c->n, r->us, r->b2b_us, rate,
           ceiling, b2b_ceiling, r->stream_b2b_us, of_stream, r->cub_us, ratio, r->checked, r->spec);
    break;
  case FORMAT_JSON: {
    char cub[32] = "null", cub_ratio[32] = "null";
    if (r->cub_us > 0) {
      snprintf(cub, sizeof cub, "%.2f", r->cub_us);
      snprintf(cub_ratio, sizeof cub_ratio, "%.3f", ratio);
    }
    printf("%s\n  {\"op\": \"%s\", \"type\": \"%s\", \"n\": %zu, \"us\": %.2f, \"b2b_us\": %.2f, \"gbps\": %.1f, "
           "\"pct_ceiling\": %.1f, \"pct_ceiling_b2b\": %.1f, \"stream_b2b_us\": %.2f, \"pct_stream\": %.1f, "
           "\"cub_us\": %s, \"cub_over_cureduce\": %s, \"checked\": \"%s\", \"spec\": \"%s\"}",
           first ? "" : ",", op, type, r->c->n, r->us, r->b2b_us, rate, ceiling, b2b_ceiling, r->stream_b2b_us,
           of_stream, cub, cub_ratio, r->checked, r->spec);
    break;
  }
  }
  fflush(stdout);
}

static void print_comparison_header(const options *o) {
  if (o->format == FORMAT_CSV)
    printf("op,type,n,us,b2b_us,gbps,pct_ceiling,pct_ceiling_b2b,stream_b2b_us,pct_stream,cub_us,cub_over_cureduce,"
           "checked,spec\n");
  else if (o->format == FORMAT_TABLE)
    printf("%-14s %-5s %12s %9s %9s %8s %6s %6s %6s %9s %8s %6s  %s\n", "op", "type", "n", "us", "b2b us", "GB/s",
           "%ceil", "%b2b", "%strm", "CUB us", "CUB/cr", "check", "spec");
}

/* cuBLAS's counterpart of a transformed row, where it has one: its median on a line of its own
 * (a # comment in CSV; JSON leaves it out). */
static void compare_cublas(const options *o, bench *b, const call *c, double cureduce_us) {
#ifdef CUREDUCE_HAVE_CUBLAS
  const char *name = cureduce_cublas_name(c->op, c->transform, c->input);
  if (!name || o->format == FORMAT_JSON)
    return;
  call blas = *c;
  blas.kind = CALL_CUBLAS;
  double us = time_median(b, &blas, o->reps);
  printf("%s  cuBLAS %-6s %12zu %9.2f us, %8.1f GB/s, cuBLAS/cr %.3f\n", o->format == FORMAT_CSV ? "#" : "", name,
         c->n, us, gbps(read_bytes(c), us), us / cureduce_us);
#else
  (void)o, (void)b, (void)c, (void)cureduce_us;
#endif
}

/* What a call's rows are set beside, timed once for all its specs: CUB's median (0: none) and the
 * plain streaming kernel over the same bytes, back to back. */
typedef struct call_baselines {
  double cub_us, stream_b2b_us;
} call_baselines;

/* One row: call `c` under `spec` (NULL: the library's own choice, or the plan's for a map),
 * checked, timed and printed beside the call's baselines; returns its median in microseconds, 0
 * where the spec does not fit it (a line on stderr says why). */
static double time_row(const options *o, bench *b, bool have_cub, call c, const char *spec,
                       const call_baselines *baselines, bool first) {
  cureduce_plan *plan = NULL;
  if (c.kind == CALL_PLAN) {
    cureduce_problem problem;
    cureduce_problem_init(&problem, c.op, c.input, c.output, c.n);
    problem.transform = o->transform, problem.expression = o->expression;
    if (cureduce_plan_create(&plan, b->context, &problem, spec) != CUREDUCE_STATUS_OK) {
      if (!spec)
        cureduce_bench_fail("planning a reduction");
      fprintf(stderr, "cureduce-bench: %s %s n = %zu skipped: --spec %s does not fit it (%s)\n",
              cureduce_op_name(c.op), cureduce_dtype_name(c.input), c.n, spec, cureduce_last_error_detail());
      return 0;
    }
    c.plan = plan;
  }
  planted_elements planted = o->planted ? plant_extremes(b, &c) : (planted_elements){0};
  row r = {.c = &c, .checked = verify(b, &c, have_cub, o->random_data), .cub_us = baselines->cub_us,
           .stream_b2b_us = baselines->stream_b2b_us};
  r.us = time_median(b, &c, o->reps);
  r.b2b_us = time_back_to_back(b, &c, o->reps);
  spec_that_ran(b, &c, r.spec);
  print_row(o, b, &r, first);
  compare_cublas(o, b, &c, r.us);
  cureduce_plan_destroy(plan);
  if (o->planted)
    unplant_extremes(b, &c, &planted);
  return r.us;
}

/* Times every (type, op, size) of the run, under each --spec, against CUB and the streaming kernel
 * (timed once for all of a call's specs); returns the CUB/cureduce ratios, `ratios` holding one a
 * row. */
static int compare_all(const options *o, bench *b, bool have_cub, double *ratios) {
  int ratio_count = 0, rows = 0;
  for (int t = 0; t < o->type_count; t++) {
    fill_input(b, (cureduce_dtype)o->types[t], o->random_data, b->used_bytes);
    for (int p = 0; p < o->op_count; p++)
      for (int s = 0; s < o->size_count; s++) {
        cureduce_op op = (cureduce_op)o->ops[p];
        cureduce_dtype type = (cureduce_dtype)o->types[t], output;
        if (cureduce_accumulator_type(op, cureduce_mapped_type(o->transform, type), &output) != CUREDUCE_STATUS_OK ||
            cureduce_check_transform_types(op, o->transform, type, output) != CUREDUCE_STATUS_OK)
          continue; /* exact_sum of an integer type, a transform of one */
        call c = {.kind = o->transform || o->spec_count ? CALL_PLAN : CALL_LIBRARY, .op = op, .transform = o->transform,
                  .input = type, .output = output, .n = o->sizes[s]};
        const size_t spans = spanned_bytes(&c) + o->offset;
        if (spans > b->input_bytes) { /* allocate() sized the buffer for every call */
          fprintf(stderr, "cureduce-bench: %s %s n = %zu skipped: it spans %zu bytes, the buffer holds %zu\n",
                  cureduce_op_name(op), cureduce_dtype_name(type), c.n, spans, b->input_bytes);
          continue;
        }
        if (o->random_data && op == CUREDUCE_OP_PROD && type <= CUREDUCE_F64)
          continue; /* products of random floats overflow: nothing to time */
        call_baselines baselines = {.stream_b2b_us = stream_us(b, read_bytes(&c), o->reps)};
        if (have_cub && cub_covers(&c)) {
          call cub = c;
          cub.kind = CALL_CUB;
          baselines.cub_us = time_median(b, &cub, o->reps);
        }
        for (int k = 0; k < (o->spec_count ? o->spec_count : 1); k++) {
          double us = time_row(o, b, have_cub, c, o->spec_count ? o->specs[k] : NULL, &baselines, rows == 0);
          rows += us > 0;
          if (us > 0 && baselines.cub_us > 0)
            ratios[ratio_count++] = baselines.cub_us / us;
        }
      }
  }
  return ratio_count;
}

static double seconds_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* CPU microseconds to enqueue one call: the median over batches of 64 calls, each batch begun on
 * a drained stream so that the launch queue never fills and blocks. */
static double host_us(bench *b, const call *c) {
  enum { batches = 51, batch = 64 };
  double per_call[batches];
  for (int k = 0; k < batches; k++) {
    cureduce_bench_check_cuda(b->cu->cuStreamSynchronize(b->stream), "cuStreamSynchronize");
    double start = seconds_now();
    for (int i = 0; i < batch; i++)
      enqueue(b, c);
    per_call[k] = (seconds_now() - start) * 1e6 / batch;
  }
  cureduce_bench_check_cuda(b->cu->cuStreamSynchronize(b->stream), "cuStreamSynchronize");
  qsort(per_call, batches, sizeof per_call[0], compare_floats_double);
  return per_call[batches / 2];
}

/* The library's CPU cost per call over a bare cuLaunchKernel of the very kernel and grid it
 * launches (f32 sum of 2^20, a multi-block single pass), with and without its pointer checks. */
static void report_host_overhead(const options *o, bench *b) {
  size_t n = (size_t)1 << 20;
  n = n * 4 <= b->input_bytes - (b->data - b->input) ? n : (b->input_bytes - (b->data - b->input)) / 4;
  call c = {.kind = CALL_LIBRARY, .op = CUREDUCE_OP_SUM, .input = CUREDUCE_F32, .output = CUREDUCE_F32, .n = n};
  const cureduce_choice *plan = shortcut_choice(b, &c);
  CUdeviceptr slot;
  if (cureduce_workspace_slot(&b->context->workspace, b->stream, &slot) != CUREDUCE_STATUS_OK)
    cureduce_bench_fail("planning the host-overhead run");
  /* The shortcut's kernel launched by hand, with the arguments cureduce_launch_single_pass gives it. */
  cureduce_kernel_arguments arguments = cureduce_single_pass_arguments(&plan->spec, b->data, n, b->output, slot, 0);
  cureduce_kernel_arguments_point(&arguments);
  raw_launch kernel = {plan->kernel, cureduce_grid_for(&plan->spec, b->context->info.sm_count, n, true),
                       plan->spec.block, arguments.pointers};
  call bare = c;
  bare.kind = CALL_RAW;
  bare.raw = &kernel;
  cureduce_value library = run_once(b, &c), by_hand = run_once(b, &bare);
  if (memcmp(&library.value, &by_hand.value, 4) != 0)
    cureduce_bench_fail("the bare launch does not reproduce the library's result");
  double bare_us = host_us(b, &bare), checked_us = host_us(b, &c);
  bool saved = b->context->check_pointers;
  b->context->check_pointers = false;
  double unchecked_us = host_us(b, &c);
  b->context->check_pointers = saved;
  if (o->format == FORMAT_JSON) {
    printf(",\n \"host_overhead\": {\"n\": %zu, \"bare_launch_us\": %.3f, \"cureduce_reduce_us\": %.3f, "
           "\"without_pointer_checks_us\": %.3f}",
           n, bare_us, checked_us, unchecked_us);
    return;
  }
  const char *mark = o->format == FORMAT_CSV ? "# " : "";
  printf("%shost overhead, f32 sum of %zu (CPU time to enqueue one call, median of 51 batches of 64):\n", mark, n);
  printf("%s  bare cuLaunchKernel, same kernel and grid     %6.2f us\n", mark, bare_us);
  printf("%s  cureduce_reduce (pointer checks, the default) %6.2f us  (%+.2f)\n", mark, checked_us,
         checked_us - bare_us);
  printf("%s  cureduce_reduce, check_pointers = 0           %6.2f us  (%+.2f)\n", mark, unchecked_us,
         unchecked_us - bare_us);
}

static int run_comparison(const options *o, bench *b, bool have_cub) {
  print_comparison_header(o);
  size_t calls = (size_t)o->type_count * o->op_count * o->size_count * (o->spec_count ? o->spec_count : 1);
  double *ratios = malloc(sizeof(double) * (calls ? calls : 1));
  if (!ratios)
    cureduce_bench_fail("allocating the ratios");
  int ratio_count = compare_all(o, b, have_cub, ratios);
  if (o->format == FORMAT_JSON)
    printf("\n ]");
  report_host_overhead(o, b);
  qsort(ratios, (size_t)ratio_count, sizeof ratios[0], compare_floats_double);
  if (o->format == FORMAT_JSON) {
    if (ratio_count)
      printf(",\n \"summary\": {\"rows\": %d, \"worst\": %.3f, \"median\": %.3f}}\n", ratio_count, ratios[0],
             ratios[ratio_count / 2]);
    else
      printf(",\n \"summary\": null}\n");
  } else if (ratio_count) {
    printf("summary: CUB/cureduce over %d rows: worst %.3f, median %.3f\n", ratio_count, ratios[0],
           ratios[ratio_count / 2]);
  } else {
    printf("summary: no CUB column (built without CUDA/CUB, or no covered operation)\n");
  }
  free(ratios);
  return 0;
}

/* One row of the ladder table. */
static void print_ladder_row(const options *o, const bench *b, const char *rung, const char *name, const char *what,
                             size_t n, size_t bytes, double us, double previous_us, double rung0_us) {
  double rate = gbps(bytes, us);
  if (o->format == FORMAT_CSV)
    printf("%s,%s,\"%s\",%zu,%.2f,%.1f,%.1f,%.2f,%.1f\n", rung, name, what, n, us, rate, 100 * rate / b->ceiling_gbps,
           previous_us > 0 ? previous_us / us : NAN, rung0_us > 0 ? rung0_us / us : NAN);
  else
    printf("%-5s %-26s %-44s %10.1f %8.1f %6.1f %7.2f %8.1f\n", rung, name, what, us, rate,
           100 * rate / b->ceiling_gbps, previous_us > 0 ? previous_us / us : NAN, rung0_us > 0 ? rung0_us / us : NAN);
  fflush(stdout);
}

static int run_ladder(const options *o, bench *b, bool have_cub) {
  cureduce_op op = (cureduce_op)o->ops[0];
  cureduce_dtype type = (cureduce_dtype)o->types[0], output;
  cureduce_accumulator_type(op, type, &output);
  fill_input(b, type, false, b->used_bytes);
  if (o->format == FORMAT_CSV)
    printf("rung,strategy,what,n,us,gbps,pct_ceiling,speedup_previous,speedup_rung0\n");
  for (int s = 0; s < o->size_count; s++) {
    size_t n = o->sizes[s], bytes = n * cureduce_dtype_size(type);
    if (bytes > b->input_bytes)
      continue;
    if (o->format != FORMAT_CSV)
      printf("\n%s of %zu %s (%.1f MB)\n%-5s %-26s %-44s %10s %8s %6s %7s %8s\n", cureduce_op_name(op), n,
             cureduce_dtype_name(type), bytes / 1e6, "rung", "strategy", "what changed", "us", "GB/s", "%ceil", "x prev",
             "x rung0");
    double previous = 0, rung0 = 0;
    for (int strategy = CUREDUCE_STRATEGY_RUNG0; strategy < CUREDUCE_STRATEGY_COUNT; strategy++) {
      call c = {.kind = CALL_SPEC, .op = op, .input = type, .output = output, .n = n,
                .spec = cureduce_spec_for_strategy((cureduce_strategy)strategy, op, type, output,
                                                    b->context->info.max_threads_per_sm)};
      verify(b, &c, have_cub, false);
      double us = time_median(b, &c, o->reps);
      char rung[8];
      snprintf(rung, sizeof rung, "%d", strategy - CUREDUCE_STRATEGY_RUNG0);
      print_ladder_row(o, b, rung, cureduce_strategy_name((cureduce_strategy)strategy),
                       cureduce_strategy_description((cureduce_strategy)strategy), n, bytes, us, previous, rung0);
      previous = us;
      if (strategy == CUREDUCE_STRATEGY_RUNG0)
        rung0 = us;
    }
    call single = {.kind = CALL_SPEC, .op = op, .input = type, .output = output, .n = n,
                   .spec = cureduce_spec_for_strategy(CUREDUCE_STRATEGY_SINGLE_PASS, op, type, output,
                                                       b->context->info.max_threads_per_sm)};
    verify(b, &single, have_cub, false);
    double us = time_median(b, &single, o->reps);
    print_ladder_row(o, b, "11+", "single_pass", "rung 11 with the single-pass finish", n, bytes, us, previous, rung0);
    previous = us;
    call library = {.kind = CALL_LIBRARY, .op = op, .input = type, .output = output, .n = n};
    us = time_median(b, &library, o->reps);
    print_ladder_row(o, b, "12", "(the library's plan)", "what cureduce_reduce runs", n, bytes, us, previous, rung0);
    if (have_cub) {
      call cub = library;
      cub.kind = CALL_CUB;
      print_ladder_row(o, b, "CUB", "DeviceReduce", "CUB, same buffer, same process", n, bytes,
                       time_median(b, &cub, o->reps), 0, rung0);
    }
  }
  return 0;
}

static int run_shapes(const options *o, bench *b, bool have_cub) {
  cureduce_shapes_run run = {.context = b->context, .cu = b->cu, .stream = b->stream, .start = b->start,
                             .stop = b->stop, .read_gbps = b->ceiling_gbps, .reps = o->reps, .have_cub = have_cub,
                             .csv = o->format == FORMAT_CSV, .ops = o->ops, .types = o->types,
                             .op_count = o->op_count, .type_count = o->type_count, .totals = o->sizes,
                             .total_count = o->size_count, .cols_mask = o->cols_mask ? o->cols_mask : UINT64_MAX,
                             .transform = o->transform, .specs = o->specs, .spec_count = o->spec_count};
  for (int l = 0; l < o->layout_count; l++)
    run.layouts |= 1u << o->layouts[l];
  if (!o->layout_count)
    run.layouts = 1u << CUREDUCE_LAYOUT_ROWS | 1u << CUREDUCE_LAYOUT_COLUMNS | 1u << CUREDUCE_LAYOUT_SEGMENTS;
  return cureduce_bench_shapes(&run);
}

/* Device memory for the largest input of the run, the ladder's scratch and CUB's temp storage. */
static void allocate(const options *o, bench *b, bool have_cub) {
  size_t largest = 0, scratch = 0;
  for (int s = 0; s < o->size_count; s++)
    for (int t = 0; t < o->type_count; t++) {
      call c = {.transform = o->transform, .input = (cureduce_dtype)o->types[t], .n = o->sizes[s]};
      size_t bytes = spanned_bytes(&c);
      largest = bytes > largest ? bytes : largest;
      for (int strategy = 0; o->ladder && strategy < CUREDUCE_STRATEGY_COUNT; strategy++) {
        cureduce_spec spec = cureduce_spec_for_strategy((cureduce_strategy)strategy, (cureduce_op)o->ops[0],
                                                         (cureduce_dtype)o->types[t], (cureduce_dtype)o->types[t], 2048);
        size_t need = cureduce_ladder_scratch_bytes(&spec, b->context->info.sm_count, o->sizes[s]) * 2;
        scratch = need > scratch ? need : scratch;
      }
    }
  /* The read ceiling streams the whole input buffer: at least 2 GiB where the device has it, so
   * that its fixed costs (launch, ramp-up, the last wave) stay under 1% and the percentages do not
   * depend on the sizes of the run (over 0.54 GB an H200 measured 4313 GB/s, over 2.15 GB 4503). */
  b->used_bytes = (largest + o->offset + 15) & ~(size_t)15;
  size_t ceiling_floor = (size_t)1 << 31;
  b->input_bytes = b->used_bytes > ceiling_floor ? b->used_bytes : ceiling_floor;
  if (b->cu->cuMemAlloc(&b->input, b->input_bytes) != CUDA_SUCCESS) {
    b->input_bytes = b->used_bytes;
    cureduce_bench_check_cuda(b->cu->cuMemAlloc(&b->input, b->input_bytes), "cuMemAlloc (input)");
  }
  b->data = b->input + o->offset;
  if (o->flush_l2) {
    int l2 = 0;
    cureduce_bench_check_cuda(b->cu->cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, b->context->device),
               "cuDeviceGetAttribute");
    b->flush_bytes = 2 * (size_t)l2;
    cureduce_bench_check_cuda(b->cu->cuMemAlloc(&b->flush, b->flush_bytes), "cuMemAlloc (L2 flush)");
  }
  cureduce_bench_check_cuda(b->cu->cuMemAlloc(&b->output, sizeof(cureduce_value)), "cuMemAlloc (output)");
  if (scratch)
    cureduce_bench_check_cuda(b->cu->cuMemAlloc(&b->scratch, scratch), "cuMemAlloc (ladder scratch)");
#ifdef CUREDUCE_HAVE_CUB
  if (have_cub) {
    size_t most = 0;
    for (int p = 0; p < o->op_count; p++)
      for (int t = 0; t < o->type_count; t++) {
        size_t bytes = 0;
        call c = {.op = (cureduce_op)o->ops[p], .transform = o->transform, .input = (cureduce_dtype)o->types[t],
                  .n = largest};
        cub_run(&c, NULL, NULL, NULL, &bytes, NULL);
        most = bytes > most ? bytes : most;
      }
    b->cub_temp_bytes = most;
    cureduce_bench_check_cuda(b->cu->cuMemAlloc(&b->cub_temp, most ? most : 16), "cuMemAlloc (CUB temp)");
  }
#endif
  (void)have_cub;
}

int main(int argc, char **argv) {
  options o;
  int bad = parse_options(argc, argv, &o);
  if (bad)
    return bad;
  cureduce_settings settings;
  cureduce_default_settings(&settings);
  settings.device = o.device;
  bench b = {0};
  cureduce_status status = cureduce_context_create(&b.context, &settings);
  if (status != CUREDUCE_STATUS_OK) {
    printf("cureduce-bench: no GPU to time on (%s)\n", cureduce_last_error_detail());
    return status == CUREDUCE_STATUS_NO_DRIVER || status == CUREDUCE_STATUS_NO_DEVICE ? 77 : 1;
  }
  cureduce_driver_get(&b.cu);
  cureduce_bench_check_cuda(b.cu->cuCtxPushCurrent(b.context->primary), "cuCtxPushCurrent");
  cureduce_bench_check_cuda(b.cu->cuStreamCreate(&b.stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  cureduce_bench_check_cuda(b.cu->cuEventCreate(&b.start, CU_EVENT_DEFAULT), "cuEventCreate");
  cureduce_bench_check_cuda(b.cu->cuEventCreate(&b.stop, CU_EVENT_DEFAULT), "cuEventCreate");
#ifdef CUREDUCE_HAVE_CUB
  bool have_cub = true;
#else
  bool have_cub = false;
#endif
  b.seed = cureduce_ref_seed();
  allocate(&o, &b, have_cub);
  fill_input(&b, CUREDUCE_U32, true, b.input_bytes); /* all of it, for the read ceiling */
  load_stream_kernel(&b);
  b.ceiling_gbps = measure_ceiling(&b, 50);
  print_header(&o, &b);
  int code = o.ladder ? run_ladder(&o, &b, have_cub) : o.shapes ? run_shapes(&o, &b, have_cub) : run_comparison(&o, &b, have_cub);
  cureduce_release_stream(b.context, b.stream);
  b.cu->cuStreamDestroy(b.stream);
  CUcontext popped;
  b.cu->cuCtxPopCurrent(&popped);
  b.cu->cuModuleUnload(b.stream_module);
  cureduce_context_destroy(b.context);
  return code;
}
