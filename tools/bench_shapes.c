#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_shapes.h"
#include "bench_support.h"
#include "dtype.h"
#include "problem.h"
#include "reference.h"
#ifdef CUREDUCE_HAVE_CUB
#include "cub_baseline.h"
#endif

/* One shape of the table: rows or columns of a dense matrix, or ragged segments, of `elements`
 * elements (of x, and of y as many for a map of two inputs). */
typedef struct shape_case {
  cureduce_problem problem;
  size_t elements, read_bytes, write_bytes;
} shape_case;

/* What the run shares: the device buffers and the host copy of the data. */
typedef struct shapes_state {
  const cureduce_shapes_run *run;
  CUdeviceptr input, second, output, workspace, offsets, cub_temp; /* second: y of a map of two inputs */
  size_t input_bytes, output_bytes, workspace_bytes, cub_temp_bytes;
  unsigned char *host, *host_second; /* the inputs as uploaded */
  int64_t *begin, *end;    /* the ragged segments' offsets, on the host */
  uint64_t segments;
  double copy_gbps;        /* device-to-device copy, read and write bytes counted */
  int failures;
} shapes_state;


/* ---- timing ------------------------------------------------------------------------------------ */

/* The median of single event-timed calls and the mean of calls back to back, in microseconds;
 * three of each for a call over 20 ms (CUB's segmented reduce of short rows takes 150 ms). */
static void time_calls(shapes_state *s, cureduce_bench_enqueue enqueue, const void *what, double *median_us,
                       double *b2b_us) {
  const cureduce_shapes_run *r = s->run;
  cureduce_bench_timer timer = {r->cu, r->stream, r->start, r->stop};
  int reps = cureduce_bench_elapsed_ms(&timer, enqueue, s, what, 1) > 20.0f ? 3 : r->reps;
  for (int i = 0; i < 2; i++)
    enqueue(s, what);
  float *times = malloc((size_t)reps * sizeof *times);
  for (int i = 0; i < reps; i++)
    times[i] = cureduce_bench_elapsed_ms(&timer, enqueue, s, what, 1);
  *median_us = 1000.0 * cureduce_bench_median(times, reps);
  free(times);
  *b2b_us = 1000.0 * cureduce_bench_elapsed_ms(&timer, enqueue, s, what, reps) / reps;
}

static void enqueue_copy(void *state, const void *what) {
  shapes_state *s = state;
  size_t half = *(const size_t *)what;
  cureduce_bench_check_cuda(s->run->cu->cuMemcpyDtoDAsync(s->input + half, s->input, half, s->run->stream), "cuMemcpyDtoDAsync");
}

/* The copy ceiling: half the input buffer copied onto the other half, back to back. */
static double measure_copy(shapes_state *s) {
  size_t half = s->input_bytes / 2 & ~(size_t)255;
  double median, b2b;
  time_calls(s, enqueue_copy, &half, &median, &b2b);
  return 2.0 * (double)half / (b2b * 1e3);
}

/* A plan, and whether it runs in the stream's slot (its workspace fits one, as the default calls
 * do) or in the bench's workspace. */
typedef struct plan_call {
  cureduce_plan *plan;
  const shape_case *shape;
  bool in_slot;
} plan_call;

static void enqueue_plan(void *state, const void *what) {
  shapes_state *s = state;
  const plan_call *c = what;
  void *in = (void *)(uintptr_t)s->input, *y = (void *)(uintptr_t)s->second, *out = (void *)(uintptr_t)s->output;
  void *workspace = c->in_slot ? NULL : (void *)(uintptr_t)s->workspace;
  const int64_t *begin = (const int64_t *)(uintptr_t)s->offsets, *end = begin + s->segments;
  bool segments = c->shape->problem.layout == CUREDUCE_LAYOUT_SEGMENTS;
  bool pair = cureduce_transform_is_pair(c->shape->problem.transform);
  size_t bytes = s->workspace_bytes;
  CUstream stream = s->run->stream;
  cureduce_status status =
      segments && pair ? cureduce_plan_execute_pair_segments(c->plan, in, y, begin, end, out, workspace, bytes, stream)
      : segments       ? cureduce_plan_execute_segments(c->plan, in, begin, end, out, workspace, bytes, stream)
      : pair           ? cureduce_plan_execute_pair(c->plan, in, y, out, workspace, bytes, stream)
                       : cureduce_plan_execute(c->plan, in, out, workspace, bytes, stream);
  if (status != CUREDUCE_STATUS_OK)
    cureduce_bench_fail("cureduce_plan_execute");
}

#ifdef CUREDUCE_HAVE_CUB
static void enqueue_cub(void *state, const void *what) {
  shapes_state *s = state;
  const cureduce_problem *p = &((const shape_case *)what)->problem;
  bool segments = p->layout == CUREDUCE_LAYOUT_SEGMENTS;
  if (cureduce_cub_segmented_sum(p->input_type, (const void *)(uintptr_t)s->input, p->rows, p->cols,
                                 p->leading_dimension, segments ? (const int64_t *)(uintptr_t)s->offsets : NULL,
                                 segments ? (const int64_t *)(uintptr_t)(s->offsets + 8 * s->segments) : NULL,
                                 (void *)(uintptr_t)s->output, (void *)(uintptr_t)s->cub_temp, &s->cub_temp_bytes,
                                 s->run->stream) != 0)
    cureduce_bench_fail("CUB's segmented reduce");
}
#endif

/* ---- checking ------------------------------------------------------------------------------------ */

/* Threads for the check: the host's cores, at most 64. */
static unsigned check_threads(void) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores < 1 ? 1 : cores > 64 ? 64 : (unsigned)cores;
}

/* Runs the plan once and compares every result with the host reference (the data are the exact
 * grid: plain sums are exact, so every bit must match, and mapped ones within the reference's
 * rounding bound), the output poisoned before the run. */
static bool results_match(shapes_state *s, const plan_call *c) {
  const cureduce_problem *p = &c->shape->problem;
  uint64_t results = cureduce_problem_results(p);
  size_t result_bytes = cureduce_result_bytes(p->op, p->output_type);
  cureduce_bench_check_cuda(s->run->cu->cuMemsetD8(s->output, 0xA5, results * result_bytes), "cuMemsetD8");
  enqueue_plan(s, c);
  unsigned char *got = malloc(results * result_bytes);
  if (!got)
    cureduce_bench_fail("no host memory for the check");
  cureduce_bench_check_cuda(s->run->cu->cuStreamSynchronize(s->run->stream), "cuStreamSynchronize");
  cureduce_bench_check_cuda(s->run->cu->cuMemcpyDtoH(got, s->output, results * result_bytes), "cuMemcpyDtoH");
  cureduce_ref_results check = {p, s->host, cureduce_transform_is_pair(p->transform) ? s->host_second : NULL,
                                s->begin, s->end, got, 0};
  cureduce_ref_check verdict = cureduce_ref_check_results(&check, check_threads());
  if (!verdict.ok)
    fprintf(stderr, "cureduce-bench: WRONG RESULT %llu of the shape: %s\n", (unsigned long long)verdict.wrong,
            verdict.why);
  free(got);
  return verdict.ok;
}

/* ---- the table ----------------------------------------------------------------------------------- */

static const char *layout_name(cureduce_layout layout) {
  return layout == CUREDUCE_LAYOUT_ROWS ? "rows" : layout == CUREDUCE_LAYOUT_COLUMNS ? "columns" : "segments";
}

static void print_header(const shapes_state *s) {
  const cureduce_shapes_run *r = s->run;
  printf("# shapes: effective bytes = input read + results written; ceiling time = read / read ceiling + "
         "written * (2 / copy ceiling - 1 / read ceiling) (the read ceiling for small results, the copy rate when "
         "written = read); read ceiling %.0f GB/s, copy ceiling %.0f GB/s (read + write counted), "
         "both this run; us = median of %d single calls, b2b = mean back to back\n",
         r->read_gbps, s->copy_gbps, r->reps);
  if (r->csv)
    printf("layout,op,type,total,rows,cols,us,b2b_us,effective_gbps,pct_ceiling,cub_us,cub_b2b_us,cub_over_cureduce,spec\n");
  else
    printf("%-8s %-12s %-5s %6s %10s %10s %9s %9s %8s %6s %9s %9s %7s  %s\n", "layout", "op", "type", "total", "rows",
           "cols", "us", "b2b us", "eff GB/s", "%ceil", "CUB us", "CUB b2b", "CUB/cr", "spec");
}

/* A shape's floor: its reads at the read ceiling, and each byte written at what a copy's write
 * costs beyond its read (a copy of B bytes reads B/2 and writes B/2 in B / copy rate). Small
 * results: the read ceiling; results as large as the input: the copy rate. (The copy rate as a
 * floor for every shape, below the read ceiling, let read-only shapes pass 100%.) */
static double shape_floor_us(const shapes_state *s, const shape_case *c) {
  double read_us = 1 / (s->run->read_gbps * 1e3), write_us = fmax(2 / (s->copy_gbps * 1e3) - read_us, 0); /* a byte */
  return (double)c->read_bytes * read_us + (double)c->write_bytes * write_us;
}

static void print_case(const shapes_state *s, const shape_case *c, double us, double b2b, double cub_us,
                       double cub_b2b, const char *spec) {
  const cureduce_problem *p = &c->problem;
  double bytes = (double)(c->read_bytes + c->write_bytes), floor_us = shape_floor_us(s, c);
  double total = (double)c->elements;
  char exponent[16], cub[32], cub2[32], ratio[16], op[32]; /* op: "sum", or with a transform "sum:product" */
  snprintf(exponent, sizeof exponent, "2^%d", (int)lround(log2(total)));
  snprintf(op, sizeof op, "%s%s%s", cureduce_op_name(p->op), p->transform ? ":" : "",
           p->transform ? cureduce_transform_name(p->transform) : "");
  snprintf(cub, sizeof cub, cub_us > 0 ? "%.2f" : "-", cub_us);
  snprintf(cub2, sizeof cub2, cub_b2b > 0 ? "%.2f" : "-", cub_b2b);
  snprintf(ratio, sizeof ratio, cub_us > 0 ? "%.2f" : "-", cub_us / us);
  const char *type = cureduce_dtype_name(p->input_type);
  if (s->run->csv)
    printf("%s,%s,%s,%.0f,%llu,%llu,%.2f,%.2f,%.1f,%.1f,%s,%s,%s,%s\n", layout_name(p->layout), op, type, total,
           (unsigned long long)p->rows, (unsigned long long)p->cols, us, b2b, bytes / (b2b * 1e3),
           100 * floor_us / b2b, cub, cub2, ratio, spec);
  else
    printf("%-8s %-12s %-5s %6s %10llu %10llu %9.2f %9.2f %8.0f %6.1f %9s %9s %7s  %s\n", layout_name(p->layout), op,
           type, exponent, (unsigned long long)p->rows, (unsigned long long)p->cols, us, b2b, bytes / (b2b * 1e3),
           100 * floor_us / b2b, cub, cub2, ratio, spec);
  fflush(stdout);
}

/* A plan the bench cannot run (`what` failed, `why`): the end of the run for the plan's own
 * choice (`spec` NULL), a `#` line for a pinned spec that does not fit this shape. */
static void refuse_case(const shape_case *c, const char *spec, const char *what, const char *why) {
  if (!spec)
    cureduce_bench_fail(what);
  const cureduce_problem *p = &c->problem;
  printf("# %s %s %s rows %llu cols %llu: %s refused: %s\n", layout_name(p->layout), cureduce_op_name(p->op),
         cureduce_dtype_name(p->input_type), (unsigned long long)p->rows, (unsigned long long)p->cols, spec, why);
  fflush(stdout);
}

/* Checks, times and prints one shape under `spec` (NULL: the plan's own choice) beside CUB's
 * figures. */
static void run_spec(shapes_state *s, const shape_case *c, const char *spec, double cub_us, double cub_b2b) {
  plan_call call = {NULL, c, false};
  if (cureduce_plan_create(&call.plan, s->run->context, &c->problem, spec) != CUREDUCE_STATUS_OK) {
    refuse_case(c, spec, "cureduce_plan_create", cureduce_last_error_detail());
    return;
  }
  cureduce_plan_info info;
  cureduce_plan_describe(call.plan, &info);
  if (info.workspace_bytes > s->workspace_bytes) {
    cureduce_plan_destroy(call.plan);
    refuse_case(c, spec, "a plan's workspace is larger than the bench's", "its workspace is larger than the bench's");
    return;
  }
  call.in_slot = info.workspace_bytes <= CUREDUCE_SLOT_BYTES;
  if (!results_match(s, &call))
    s->failures++;
  double us, b2b;
  time_calls(s, enqueue_plan, &call, &us, &b2b);
  print_case(s, c, us, b2b, cub_us, cub_b2b, info.spec);
  cureduce_plan_destroy(call.plan);
}

/* One shape under each of the run's specs (or the plan's own choice), against CUB timed once. */
static void run_case(shapes_state *s, const shape_case *c) {
  double cub_us = 0, cub_b2b = 0;
#ifdef CUREDUCE_HAVE_CUB
  /* CUB's segmented reduce is of plain sums of rows or segments: it has no columns */
  if (s->run->have_cub && c->problem.op == CUREDUCE_OP_SUM && !c->problem.transform &&
      c->problem.layout != CUREDUCE_LAYOUT_COLUMNS)
    time_calls(s, enqueue_cub, c, &cub_us, &cub_b2b);
#endif
  for (int k = 0; k < (s->run->spec_count ? s->run->spec_count : 1); k++)
    run_spec(s, c, s->run->spec_count ? s->run->specs[k] : NULL, cub_us, cub_b2b);
}

/* The output the table gives (op, type) under the run's transform: sums and products into their
 * accumulator type, the rest the input type, a map's results all into the mapped values'
 * accumulator type; false where the library refuses the pair (a transform of an integer type). */
static bool output_of(const shapes_state *s, cureduce_op op, cureduce_dtype type, cureduce_dtype *output) {
  cureduce_transform transform = s->run->transform;
  if (cureduce_accumulator_type(op, cureduce_mapped_type(transform, type), output) != CUREDUCE_STATUS_OK)
    return false;
  if (!transform && op != CUREDUCE_OP_SUM && op != CUREDUCE_OP_PROD)
    *output = type;
  return cureduce_check_transform_types(op, transform, type, *output) == CUREDUCE_STATUS_OK;
}

/* The problem's bytes: `elements` of x (and of y for a map of two inputs) read, its results written. */
static void count_bytes(shape_case *c, size_t elements) {
  const cureduce_problem *p = &c->problem;
  c->elements = elements;
  c->read_bytes = elements * cureduce_dtype_size(p->input_type) * cureduce_transform_inputs(p->transform);
  c->write_bytes = cureduce_problem_results(p) * cureduce_result_bytes(p->op, p->output_type);
}

static shape_case matrix_case(const shapes_state *s, cureduce_layout layout, cureduce_op op, cureduce_dtype type,
                              cureduce_dtype output, uint64_t rows, uint64_t cols) {
  shape_case c;
  cureduce_problem_init_matrix(&c.problem, layout, op, type, output, rows, cols, cols);
  c.problem.transform = s->run->transform;
  count_bytes(&c, rows * cols);
  return c;
}

/* Heavy-tailed segment lengths totalling `total` elements, one after another: a tenth empty, the
 * rest Pareto with shape 1.5 and mean about 4096, at most 2^22. */
static uint64_t draw_ragged(shapes_state *s, size_t total) {
  uint64_t count = 0, at = 0, capacity = total / 64 + 16;
  s->begin = realloc(s->begin, capacity * 8), s->end = realloc(s->end, capacity * 8);
  while (at < total && count < capacity) {
    double u = 1.0 - cureduce_ref_random_unit();
    uint64_t length = cureduce_ref_random_range(0, 9) == 0 ? 0 : (uint64_t)(1365.0 / pow(u, 1.0 / 1.5));
    length = length > ((uint64_t)1 << 22) ? (uint64_t)1 << 22 : length;
    length = length > total - at ? total - at : length;
    s->begin[count] = (int64_t)at, s->end[count] = (int64_t)(at + length);
    at += length, count++;
  }
  return count;
}

static void run_segments(shapes_state *s, cureduce_op op, cureduce_dtype type, cureduce_dtype output, size_t total) {
  s->segments = draw_ragged(s, total);
  cureduce_bench_check_cuda(s->run->cu->cuMemcpyHtoD(s->offsets, s->begin, 8 * s->segments), "cuMemcpyHtoD");
  cureduce_bench_check_cuda(s->run->cu->cuMemcpyHtoD(s->offsets + 8 * s->segments, s->end, 8 * s->segments), "cuMemcpyHtoD");
  shape_case c;
  cureduce_problem_init_segments(&c.problem, op, type, output, s->segments);
  c.problem.transform = s->run->transform;
  count_bytes(&c, total);
  run_case(s, &c);
}

/* Every rows and columns shape of `total` elements (cols = 2^1 ... total), then ragged segments,
 * of the layouts the run times; nothing where the library refuses (op, type) the transform, or
 * the layout (exact sums of columns), which a line says. */
static void run_totals(shapes_state *s, cureduce_op op, cureduce_dtype type, size_t total) {
  cureduce_dtype output;
  if (!output_of(s, op, type, &output))
    return;
  for (int layout = CUREDUCE_LAYOUT_ROWS; layout <= CUREDUCE_LAYOUT_COLUMNS; layout++)
    for (size_t cols = 2, bit = 1; cols <= total && (s->run->layouts >> layout & 1u); cols *= 2, bit++) {
      if (!(s->run->cols_mask >> bit & 1u))
        continue;
      shape_case c = matrix_case(s, (cureduce_layout)layout, op, type, output, total / cols, cols);
      if (cureduce_problem_check(&c.problem) == CUREDUCE_STATUS_UNSUPPORTED) {
        printf("# %s: %s\n", layout_name((cureduce_layout)layout), cureduce_last_error_detail());
        break;
      }
      run_case(s, &c);
    }
  if (s->run->layouts >> CUREDUCE_LAYOUT_SEGMENTS & 1u)
    run_segments(s, op, type, output, total);
}

/* ---- buffers -------------------------------------------------------------------------------------- */

/* The exact grid for x (and y), uploaded. */
static void fill(shapes_state *s, cureduce_dtype type, size_t elements) {
  size_t bytes = elements * cureduce_dtype_size(type);
  cureduce_ref_fill(CUREDUCE_OP_SUM, type, s->host, elements);
  cureduce_bench_check_cuda(s->run->cu->cuMemcpyHtoD(s->input, s->host, bytes), "cuMemcpyHtoD");
  if (!s->second)
    return;
  cureduce_ref_fill(CUREDUCE_OP_SUM, type, s->host_second, elements);
  cureduce_bench_check_cuda(s->run->cu->cuMemcpyHtoD(s->second, s->host_second, bytes), "cuMemcpyHtoD");
}

static void allocate(shapes_state *s) {
  const cureduce_shapes_run *r = s->run;
  size_t largest = 0, widest = 1;
  for (int t = 0; t < r->total_count; t++)
    largest = r->totals[t] > largest ? r->totals[t] : largest;
  for (int t = 0; t < r->type_count; t++)
    widest = cureduce_dtype_size((cureduce_dtype)r->types[t]) > widest ? cureduce_dtype_size((cureduce_dtype)r->types[t])
                                                                       : widest;
  s->input_bytes = largest * widest > ((size_t)1 << 31) ? largest * widest : (size_t)1 << 31; /* the copy ceiling's */
  s->output_bytes = largest / 2 * sizeof(cureduce_value); /* rows of two, the widest results */
  s->workspace_bytes = (size_t)64 << 20;
  bool pair = cureduce_transform_is_pair(r->transform);
  s->host = malloc(largest * widest);
  s->host_second = pair ? malloc(largest * widest) : NULL;
  if (!s->host || (pair && !s->host_second))
    cureduce_bench_fail("no host memory for the data");
  cureduce_bench_check_cuda(r->cu->cuMemAlloc(&s->input, s->input_bytes), "cuMemAlloc (input)");
  if (pair)
    cureduce_bench_check_cuda(r->cu->cuMemAlloc(&s->second, largest * widest), "cuMemAlloc (y)");
  cureduce_bench_check_cuda(r->cu->cuMemAlloc(&s->output, s->output_bytes), "cuMemAlloc (results)");
  cureduce_bench_check_cuda(r->cu->cuMemAlloc(&s->workspace, s->workspace_bytes), "cuMemAlloc (workspace)");
  cureduce_bench_check_cuda(r->cu->cuMemAlloc(&s->offsets, 2 * 8 * (largest / 64 + 16)), "cuMemAlloc (offsets)");
#ifdef CUREDUCE_HAVE_CUB
  if (r->have_cub) {
    size_t most = 0, bytes;
    for (int t = 0; t < r->type_count; t++)
      for (size_t cols = 1; cols <= largest; cols *= 2) {
        bytes = 0;
        cureduce_cub_segmented_sum((cureduce_dtype)r->types[t], NULL, largest / cols, cols, cols, NULL, NULL, NULL,
                                   NULL, &bytes, NULL);
        most = bytes > most ? bytes : most;
      }
    s->cub_temp_bytes = most + ((size_t)16 << 20); /* the ragged case's, which the offsets decide, is far below */
    cureduce_bench_check_cuda(r->cu->cuMemAlloc(&s->cub_temp, s->cub_temp_bytes), "cuMemAlloc (CUB temp)");
  }
#endif
}

static void release(shapes_state *s) {
  const cureduce_driver *cu = s->run->cu;
  CUdeviceptr buffers[] = {s->input, s->second, s->output, s->workspace, s->offsets, s->cub_temp};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
    if (buffers[i])
      cu->cuMemFree(buffers[i]);
  free(s->host);
  free(s->host_second);
  free(s->begin);
  free(s->end);
}

int cureduce_bench_shapes(const cureduce_shapes_run *run) {
  shapes_state s = {.run = run};
  allocate(&s);
  s.copy_gbps = measure_copy(&s);
  print_header(&s);
  for (int t = 0; t < run->type_count; t++) {
    cureduce_dtype type = (cureduce_dtype)run->types[t];
    size_t largest = 0;
    for (int n = 0; n < run->total_count; n++)
      largest = run->totals[n] > largest ? run->totals[n] : largest;
    fill(&s, type, largest);
    for (int o = 0; o < run->op_count; o++)
      for (int n = 0; n < run->total_count; n++)
        run_totals(&s, (cureduce_op)run->ops[o], type, run->totals[n]);
  }
  release(&s);
  if (s.failures)
    fprintf(stderr, "cureduce-bench: %d shapes gave wrong results\n", s.failures);
  return s.failures ? 1 : 0;
}
