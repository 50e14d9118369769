#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "build.h"
#include "compiler.h"
#include "dtype.h"
#include "error.h"
#include "exact.h"
#include "execute.h"
#include "problem.h"
#include "shape.h"
#include "tune.h"

/* ---- the candidate space ---------------------------------------------------------------------- */

static const uint16_t blocks_full[] = {128, 256, 512}, blocks_quick[] = {256};
static const uint8_t unrolls_full[] = {1, 2, 4, 8}, unrolls_quick[] = {2, 4};
static const uint16_t per_sm_full[] = {4, 8, 16}, per_sm_quick[] = {4, 8};
#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

typedef struct space {
  const uint16_t *blocks;
  size_t block_count;
  const uint8_t *unrolls;
  size_t unroll_count;
  const uint16_t *per_sm;
  size_t per_sm_count;
} space;

static space candidate_space(bool quick) {
  return quick ? (space){blocks_quick, COUNT(blocks_quick), unrolls_quick, COUNT(unrolls_quick), per_sm_quick,
                         COUNT(per_sm_quick)}
               : (space){blocks_full, COUNT(blocks_full), unrolls_full, COUNT(unrolls_full), per_sm_full,
                         COUNT(per_sm_full)};
}

/* The heuristic spec of the job, with its transform. */
static cureduce_spec job_spec(const cureduce_tune_job *job, int max_threads_per_sm) {
  cureduce_spec spec = cureduce_spec_heuristic(job->op, job->input, job->output, max_threads_per_sm);
  spec.transform = (uint8_t)job->transform;
  spec.expression = job->expression;
  return spec;
}

static cureduce_spec candidate(const cureduce_tune_job *job, uint16_t block, uint8_t unroll, uint16_t per_sm) {
  cureduce_spec spec = job_spec(job, 2048);
  spec.block = block;
  spec.unroll = unroll;
  spec.blocks_per_sm = per_sm;
  return spec;
}

/* Inputs from which a call streams from memory alike throughout (see tune.h). */
static const size_t streaming_bytes = (size_t)256 << 20;

static bool streams_from_memory(const cureduce_tune_job *job, size_t n) {
  return n * cureduce_dtype_size(job->input) >= streaming_bytes;
}

cureduce_bucket_points cureduce_tune_points(const cureduce_tune_job *job, unsigned bucket, size_t min_n,
                                            size_t max_n) {
  size_t n = cureduce_tune_bucket_size(bucket, min_n, max_n);
  size_t smallest = bucket < 2 ? bucket : (size_t)1 << (bucket - 1);
  smallest = smallest < min_n ? min_n : smallest;
  return (cureduce_bucket_points){{n, smallest}, smallest < n && !streams_from_memory(job, n) ? 2 : 1};
}

/* The candidates kept so far, with the grid each launches at each point of the bucket. */
typedef struct candidate_list {
  cureduce_spec *specs;
  size_t count, max;
  unsigned grids[64][2];
} candidate_list;

/* Keeps spec unless one already kept launches the same grids: that is the same kernel run the
 * same way. */
static void keep_if_new(candidate_list *list, const cureduce_spec *spec, const cureduce_bucket_points *points,
                        int sm_count) {
  if (list->count >= list->max || list->count >= 64)
    return;
  unsigned *grids = list->grids[list->count];
  for (int p = 0; p < points->count; p++)
    grids[p] = cureduce_grid_for(spec, sm_count, points->n[p], true);
  for (size_t i = 0; i < list->count; i++)
    if (list->specs[i].block == spec->block && list->specs[i].unroll == spec->unroll &&
        memcmp(list->grids[i], grids, sizeof *grids * (size_t)points->count) == 0)
      return;
  list->specs[list->count++] = *spec;
}

size_t cureduce_tune_space(const cureduce_tune_job *job, const cureduce_device_info *device, bool quick,
                           cureduce_spec *out, size_t max) {
  space s = candidate_space(quick);
  size_t count = 0;
  cureduce_spec fallback = job_spec(job, device->max_threads_per_sm);
  if (count < max)
    out[count++] = fallback;
  for (size_t b = 0; b < s.block_count; b++)
    for (size_t u = 0; u < s.unroll_count; u++)
      for (size_t p = 0; p < s.per_sm_count; p++) {
        cureduce_spec spec = candidate(job, s.blocks[b], s.unrolls[u], s.per_sm[p]);
        if (s.blocks[b] * s.per_sm[p] <= device->max_threads_per_sm && count < max &&
            !cureduce_spec_equal(&spec, &fallback))
          out[count++] = spec;
      }
  return count;
}

size_t cureduce_tune_candidates(const cureduce_tune_job *job, const cureduce_bucket_points *points,
                                const cureduce_device_info *device, bool quick, cureduce_spec *out, size_t max) {
  cureduce_spec all[64];
  size_t count = cureduce_tune_space(job, device, quick, all, 64);
  candidate_list list = {.specs = out, .max = max};
  for (size_t i = 0; i < count; i++)
    keep_if_new(&list, &all[i], points, device->sm_count);
  return list.count;
}

/* ---- compiling in parallel ------------------------------------------------------------------ */

typedef struct compile_work {
  cureduce_spec *specs;
  size_t count;
  atomic_size_t next, done;
  int arch;
  cureduce_diskcache *disk;
  const cureduce_logger *logger;
  atomic_int failed;
  cureduce_status first_failure;
  char failure[1024];
  pthread_mutex_t lock;
} compile_work;

static void *compile_worker(void *argument) {
  compile_work *work = argument;
  for (size_t i; (i = atomic_fetch_add(&work->next, 1)) < work->count;) {
    cureduce_binary binary;
    cureduce_status status = cureduce_build_kernel(&work->specs[i], work->arch, work->disk, work->logger, &binary);
    if (status == CUREDUCE_STATUS_OK) {
      free(binary.data);
    } else if (atomic_fetch_add(&work->failed, 1) == 0) {
      pthread_mutex_lock(&work->lock);
      work->first_failure = status;
      snprintf(work->failure, sizeof work->failure, "%s", cureduce_last_error_detail());
      pthread_mutex_unlock(&work->lock);
    }
    atomic_fetch_add(&work->done, 1);
  }
  return NULL;
}

static void report(const cureduce_tune_options *options, size_t done, size_t total, const char *what) {
  if (options && options->progress)
    options->progress(options->progress_user, done, total, what);
}

/* Every kernel part the jobs' candidates use, once each: the space of an SM of 2048 threads, which
 * holds every (block, loads in flight) pair, since compiled kernels do not depend on blocks per SM. */
static size_t kernel_parts(const cureduce_tune_job *jobs, size_t job_count, bool quick, cureduce_spec **specs) {
  const cureduce_device_info any_device = {.max_threads_per_sm = 2048};
  size_t count = 0;
  *specs = malloc(job_count * 64 * sizeof **specs);
  if (!*specs)
    return 0;
  for (size_t j = 0; j < job_count; j++) {
    cureduce_spec all[64];
    size_t n = cureduce_tune_space(&jobs[j], &any_device, quick, all, 64);
    for (size_t i = 0; i < n; i++)
      cureduce_spec_add_kernel_part(*specs, &count, &all[i]);
  }
  return count;
}

/* Every spec the tuner may pick for a problem, at most problem_space_max: a shape's space within
 * the workspace limit (shape.h); a whole array's, the bucket space of its job at its own n alone
 * (as tuning on first use measures), its transform carried. */
enum { problem_space_max = 64 };
static size_t problem_space(const cureduce_problem *problem, int sm_count, int max_threads_per_sm, bool quick,
                            size_t workspace_limit, cureduce_spec *out) {
  if (cureduce_problem_is_shaped(problem))
    return cureduce_shape_tune_space(problem, sm_count, max_threads_per_sm, quick, workspace_limit, out,
                                     CUREDUCE_SHAPE_SPACE_MAX);
  cureduce_tune_job job = {.op = problem->op, .input = problem->input_type, .output = problem->output_type,
                           .transform = problem->transform, .expression = cureduce_problem_expression(problem)};
  cureduce_device_info device = {.sm_count = sm_count, .max_threads_per_sm = max_threads_per_sm};
  cureduce_bucket_points at = {{(size_t)problem->n, (size_t)problem->n}, 1};
  return cureduce_tune_candidates(&job, &at, &device, quick, out, problem_space_max);
}

/* The same for problems (shape_kernel_parts), on a device of `sm_count` SMs of `max_threads_per_sm`
 * threads (the SMs change only splits and grids, launch-only fields). */
static size_t shape_kernel_parts(const cureduce_tune_shape *shapes, size_t shape_count, bool quick, int sm_count,
                                 int max_threads_per_sm, cureduce_spec **specs) {
  size_t count = 0;
  *specs = malloc(shape_count * problem_space_max * sizeof **specs);
  if (!*specs)
    return 0;
  for (size_t j = 0; j < shape_count; j++) {
    cureduce_spec all[problem_space_max];
    cureduce_problem problem = cureduce_problem_canonical(&shapes[j].problem); /* as plans take it */
    size_t n = problem_space(&problem, sm_count, max_threads_per_sm, quick, SIZE_MAX, all);
    for (size_t i = 0; i < n; i++)
      cureduce_spec_add_kernel_part(*specs, &count, &all[i]);
  }
  return count;
}

/* Compiles the kernel parts with `threads` compilers at once, reporting progress; frees specs. */
static cureduce_status compile_parts(cureduce_spec *specs, size_t count, int arch, cureduce_diskcache *disk,
                                     const cureduce_logger *logger, int threads, const cureduce_tune_options *progress) {
  CUREDUCE_RETURN_ERROR_IF(!specs, OUT_OF_MEMORY, "no memory for the kernel list");
  compile_work work = {.specs = specs, .count = count, .arch = arch, .disk = disk, .logger = logger};
  pthread_mutex_init(&work.lock, NULL);
  pthread_t workers[64];
  int started = 0;
  threads = threads < 1 ? 1 : threads > 64 ? 64 : threads;
  for (; started < threads; started++)
    if (pthread_create(&workers[started], NULL, compile_worker, &work) != 0)
      break;
  if (started == 0)
    compile_worker(&work);
  for (size_t done; (done = atomic_load(&work.done)) < work.count;) {
    report(progress, done, work.count, "compiling");
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  for (int i = 0; i < started; i++)
    pthread_join(workers[i], NULL);
  char what[64] = "compiled";
  if (atomic_load(&work.failed))
    snprintf(what, sizeof what, "compiled, %d failed", atomic_load(&work.failed));
  report(progress, work.count, work.count, what);
  free(work.specs);
  pthread_mutex_destroy(&work.lock);
  if (atomic_load(&work.failed))
    return cureduce_fail(work.first_failure, __FILE__, __LINE__, NULL, "%d kernels failed to compile; the first: %s",
                         atomic_load(&work.failed), work.failure);
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_tune_compile(const cureduce_tune_job *jobs, size_t job_count, bool quick, int arch,
                                      cureduce_diskcache *disk, const cureduce_logger *logger, int threads,
                                      const cureduce_tune_options *progress) {
  cureduce_spec *specs;
  size_t count = kernel_parts(jobs, job_count, quick, &specs);
  return compile_parts(specs, count, arch, disk, logger, threads, progress);
}

cureduce_status cureduce_compile_specs(const cureduce_spec *specs, size_t count, int arch, cureduce_diskcache *disk,
                                      const cureduce_logger *logger, int threads) {
  cureduce_spec *parts = malloc(count ? count * sizeof *parts : 1);
  size_t part_count = 0;
  for (size_t i = 0; parts && i < count; i++)
    cureduce_spec_add_kernel_part(parts, &part_count, &specs[i]);
  return compile_parts(parts, part_count, arch, disk, logger, threads, NULL);
}

static cureduce_status check_shapes(const cureduce_tune_shape *shapes, size_t count);

cureduce_status cureduce_tune_compile_shapes(const cureduce_tune_shape *shapes, size_t shape_count, bool quick,
                                             int arch, int sm_count, int max_threads_per_sm, cureduce_diskcache *disk,
                                             const cureduce_logger *logger, int threads,
                                             const cureduce_tune_options *progress) {
  CUREDUCE_FORWARD_IF_ERROR(check_shapes(shapes, shape_count)); /* and registers their expressions */
  cureduce_spec *specs;
  size_t count = shape_kernel_parts(shapes, shape_count, quick, sm_count, max_threads_per_sm, &specs);
  return compile_parts(specs, count, arch, disk, logger, threads, progress);
}

/* ---- timing ---------------------------------------------------------------------------------- */

/* Calls are queued back to back between events and waited for once: each call is timed from the
 * event before it to the one after it. A bucket costs a few round trips to the device rather
 * than one per call, and the host's launch latency, the same for every candidate, stays out. */
enum { MOST_REPS = 16 };

/* The device memory the timed calls use: a single pass's workspace is a stream's slot; a shaped
 * launch's, the tuner's own (zeroed once: the kernels leave their tickets zero) or the caller's,
 * with an armed area (workspace.h) where the plan's launch would find one: the tuner's own, or
 * the slot's. begin and end: a segments problem's offsets. */
typedef struct bench_state {
  cureduce_context *context;
  CUstream stream;
  CUevent marks[MOST_REPS + 1];
  CUdeviceptr input, output, workspace, armed_area, begin, end;
  CUdeviceptr second; /* y of a map of two inputs, as many elements as input; else 0 */
} bench_state;

/* Where a key is measured: one or two problems (a contiguous bucket's two sizes), and the bytes
 * the first one reads. */
typedef struct tune_points {
  cureduce_problem problem[2];
  int count;
  size_t bytes;
} tune_points;

/* How hard a key is measured. Past a quarter of a gigabyte a call streams from memory for tens
 * of microseconds or more and varies by well under a percent, so fewer calls tell the candidates
 * apart, and they are where the tuning time goes. */
typedef struct timing_plan {
  int first_reps, final_reps, finalists; /* finalists: the default and the best others */
  bool warm_up;
} timing_plan;

static timing_plan plan_timing(size_t bytes, bool quick) {
  if (bytes >= streaming_bytes)
    return (timing_plan){1, quick ? 2 : 3, quick ? 2 : 4, false};
  return (timing_plan){3, quick ? 4 : 9, quick ? 2 : 4, true};
}

static cureduce_status create_marks(bench_state *b) {
  for (int i = 0; i <= MOST_REPS; i++)
    CUREDUCE_CU(b->context->driver->cuEventCreate(&b->marks[i], 0));
  return CUREDUCE_STATUS_OK;
}

static void destroy_marks(bench_state *b) {
  for (int i = 0; i <= MOST_REPS; i++)
    if (b->marks[i])
      b->context->driver->cuEventDestroy(b->marks[i]);
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One call of spec's kernel on the problem, as plans launch it. */
typedef struct timed_launch {
  const cureduce_problem *problem;
  unsigned grid;                 /* contiguous */
  cureduce_shape_launch shaped;  /* shaped */
} timed_launch;

static cureduce_status launch_once(bench_state *b, const cureduce_spec *spec, CUfunction kernel,
                                   const timed_launch *t) {
  const cureduce_context *c = b->context;
  const cureduce_problem *problem = t->problem;
  if (!cureduce_problem_is_shaped(problem))
    return cureduce_launch_single_pass(c->driver, spec, kernel, t->grid, b->input, (size_t)problem->n, b->output,
                                       b->workspace, b->second, b->stream);
  cureduce_shape_argument shape = cureduce_shape_argument_of(spec, problem, b->begin, b->end);
  /* A plan's launch arms its bytes in place, not in a slot, where its workspace outgrows a slot. */
  CUdeviceptr armed_area = t->shaped.workspace_bytes <= CUREDUCE_SLOT_BYTES ? b->armed_area : 0;
  return cureduce_launch_shaped(c->driver, spec, kernel, &t->shaped, b->input, b->second, &shape, b->output,
                                b->workspace, armed_area, b->stream);
}

/* Median of `reps` queued calls of spec on the problem, after a warm-up call if asked. */
static cureduce_status time_spec(bench_state *b, const cureduce_spec *spec, const cureduce_problem *problem, int reps,
                                 bool warm_up, double *median_us) {
  const cureduce_driver *cu = b->context->driver;
  cureduce_kernel kernel;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_kcache_get(&b->context->kernels, spec, &kernel));
  int sm_count = b->context->info.sm_count;
  timed_launch t = {.problem = problem};
  if (cureduce_problem_is_shaped(problem))
    t.shaped = cureduce_shape_geometry(spec, problem, sm_count);
  else
    t.grid = cureduce_grid_for(spec, sm_count, (size_t)problem->n, true);
  reps = reps > MOST_REPS ? MOST_REPS : reps;
  if (warm_up)
    CUREDUCE_FORWARD_IF_ERROR(launch_once(b, spec, kernel.first, &t));
  CUREDUCE_CU(cu->cuEventRecord(b->marks[0], b->stream));
  for (int i = 0; i < reps; i++) {
    CUREDUCE_FORWARD_IF_ERROR(launch_once(b, spec, kernel.first, &t));
    CUREDUCE_CU(cu->cuEventRecord(b->marks[i + 1], b->stream));
  }
  CUREDUCE_CU(cu->cuEventSynchronize(b->marks[reps]));
  double times[MOST_REPS];
  for (int i = 0; i < reps; i++) {
    float ms;
    CUREDUCE_CU(cu->cuEventElapsedTime(&ms, b->marks[i], b->marks[i + 1]));
    times[i] = 1000.0 * ms;
  }
  qsort(times, (size_t)reps, sizeof times[0], compare_doubles);
  *median_us = times[reps / 2];
  return CUREDUCE_STATUS_OK;
}

/* The spec's median at each point. */
static cureduce_status time_at_points(bench_state *b, const cureduce_spec *spec, const tune_points *points, int reps,
                                      bool warm_up, double *times) {
  for (int p = 0; p < points->count; p++)
    CUREDUCE_FORWARD_IF_ERROR(time_spec(b, spec, &points->problem[p], reps, warm_up, &times[p]));
  return CUREDUCE_STATUS_OK;
}

/* A candidate's score: its worst time over the default's at the same point (the default's is 1). */
static double worst_ratio(const double *times, const double *default_times, int count) {
  double worst = 0;
  for (int p = 0; p < count; p++)
    worst = times[p] / default_times[p] > worst ? times[p] / default_times[p] : worst;
  return worst;
}

/* One key among `count` candidates, the default first: a first round over every candidate, then
 * the best three and the default again, with more calls, in alternating order. The default wins
 * unless another scores below 1 in the second round, that is, is faster at every point. A
 * candidate that fails to launch is logged and left out. Fills the record's spec and times. */
static cureduce_status choose_among(bench_state *b, cureduce_spec *specs, size_t count, const tune_points *points,
                                    bool quick, cureduce_tune_record *record) {
  /* The default as plans run it: the heuristic within what its kernel keeps resident. */
  cureduce_kernel fallback;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_kcache_get(&b->context->kernels, &specs[0], &fallback));
  CUREDUCE_FORWARD_IF_ERROR(cureduce_fit_resident(b->context->driver, fallback.first, &specs[0]));
  double first_times[64][2], first[64];
  size_t order[64];
  timing_plan timing = plan_timing(points->bytes, quick);
  for (size_t i = 0; i < count; i++) {
    order[i] = i;
    if (time_at_points(b, &specs[i], points, timing.first_reps, timing.warm_up, first_times[i]) !=
        CUREDUCE_STATUS_OK) {
      CUREDUCE_RETURN_ERROR_IF(i == 0, CUDA_ERROR, "the default kernel failed to run: %s",
                               cureduce_last_error_detail());
      char text[CUREDUCE_SPEC_TEXT_MAX];
      cureduce_spec_format(&specs[i], text);
      cureduce_log(&b->context->logger, CUREDUCE_LOG_WARN, "candidate %s left out: %s", text,
                   cureduce_last_error_detail());
      first[i] = 1e30;
      continue;
    }
    first[i] = worst_ratio(first_times[i], first_times[0], points->count);
  }
  for (size_t i = 1; i < count; i++) /* order by first-round score */
    for (size_t j = i; j > 0 && first[order[j]] < first[order[j - 1]]; j--) {
      size_t swap = order[j];
      order[j] = order[j - 1];
      order[j - 1] = swap;
    }
  size_t finalists[4] = {0}, finalist_count = 1; /* the default, then the best others */
  for (size_t i = 0; i < count && finalist_count < (size_t)timing.finalists; i++)
    if (order[i] != 0 && first[order[i]] < 1e30)
      finalists[finalist_count++] = order[i];
  double second[4][2];
  for (int round = 0; round < 2; round++)
    for (size_t f = 0; f < finalist_count; f++) {
      size_t k = round ? finalist_count - 1 - f : f;
      double times[2];
      CUREDUCE_FORWARD_IF_ERROR(
          time_at_points(b, &specs[finalists[k]], points, timing.final_reps, timing.warm_up, times));
      for (int p = 0; p < points->count; p++)
        second[k][p] = round == 0 || times[p] < second[k][p] ? times[p] : second[k][p];
    }
  size_t best = 0;
  double best_score = 1;
  for (size_t f = 1; f < finalist_count; f++) {
    double score = worst_ratio(second[f], second[0], points->count);
    if (score < best_score)
      best = f, best_score = score;
  }
  record->spec = specs[finalists[best]];
  record->time_us = second[best][0];
  record->default_us = second[0][0];
  int nvrtc_version = 0;
  cureduce_nvrtc_version(&nvrtc_version);
  record->nvrtc_version = (uint32_t)nvrtc_version;
  return CUREDUCE_STATUS_OK;
}

/* A contiguous bucket: its candidates at its points. */
static cureduce_status tune_bucket(bench_state *b, const cureduce_tune_job *job, const cureduce_bucket_points *points,
                                   unsigned bucket, bool quick, cureduce_tune_record *record) {
  cureduce_spec specs[64];
  size_t count = cureduce_tune_candidates(job, points, &b->context->info, quick, specs, 64);
  tune_points at = {.count = points->count, .bytes = points->n[0] * cureduce_dtype_size(job->input)};
  for (int p = 0; p < points->count; p++)
    cureduce_problem_init(&at.problem[p], job->op, job->input, job->output, points->n[p]);
  *record = cureduce_tunedb_contiguous_key(job->op, job->input, job->output, bucket);
  record->transform = (uint8_t)job->transform;
  record->expression = job->expression;
  return choose_among(b, specs, count, &at, quick, record);
}

/* A problem: the candidates of its space within workspace_limit, at the problem itself. */
static cureduce_status tune_shape(bench_state *b, const cureduce_problem *problem, size_t bytes, bool quick,
                                  size_t workspace_limit, cureduce_tune_record *record) {
  cureduce_spec specs[problem_space_max];
  const cureduce_device_info *device = &b->context->info;
  size_t count = problem_space(problem, device->sm_count, device->max_threads_per_sm, quick, workspace_limit, specs);
  tune_points at = {.problem = {*problem}, .count = 1, .bytes = bytes};
  *record = cureduce_tunedb_key(problem);
  return choose_among(b, specs, count, &at, quick, record);
}

size_t cureduce_tune_bucket_size(unsigned bucket, size_t min_n, size_t max_n) {
  size_t n = bucket < 2 ? bucket : (size_t)3 << (bucket - 2);
  return n < min_n ? min_n : n > max_n ? max_n : n;
}

/* One random element of `type`. Floats: a random sign and significand, exponent in the 8
 * binades below 1, so that sums round as on real data. Not random bits: those spread over every
 * binade and hold NaNs, which no one sums and which would send every element of exact_sum down its
 * slow path (one at a time), so that its tuning would pick for the wrong case. Integers: random. */
static uint64_t random_element(uint64_t bits, cureduce_dtype type) {
  const unsigned binade = (unsigned)(bits >> 60) & 7u; /* bits 60-62; the sign is bit 0, the significand above 8 */
  switch (type) {
  case CUREDUCE_F16: return (bits & 1u) << 15 | (uint64_t)(14u - binade) << 10 | (bits >> 8 & 0x3ffu);
  case CUREDUCE_BF16: return (bits & 1u) << 15 | (uint64_t)(126u - binade) << 7 | (bits >> 8 & 0x7fu);
  case CUREDUCE_F32: return (bits & 1u) << 31 | (uint64_t)(126u - binade) << 23 | (bits >> 8 & 0x7fffffu);
  case CUREDUCE_F64: return (bits & 1u) << 63 | (uint64_t)(1022u - binade) << 52 | (bits >> 8 & 0xfffffffffffffull);
  default: return bits;
  }
}

/* n random elements of `type` over the buffer: a 16 MiB block made on the host and uploaded once,
 * then doubled on the device copy by copy (uploading gigabytes would take seconds of the tuning
 * budget). Waits for the copies: they run on the legacy stream, and the timed calls on the
 * tuner's own stream would not wait for them. */
static cureduce_status fill_random(const cureduce_driver *cu, CUdeviceptr buffer, size_t n, cureduce_dtype type) {
  const size_t element = cureduce_dtype_size(type), bytes = n * element;
  size_t block = (size_t)16 << 20;
  block = block < bytes ? block : bytes;
  unsigned char *host = malloc(block);
  CUREDUCE_RETURN_ERROR_IF(!host, OUT_OF_MEMORY, "no memory for random data");
  uint64_t state = 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)host;
  for (size_t at = 0; at < block; at += element) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    const uint64_t value = random_element(state, type);
    memcpy(host + at, &value, element); /* the low bytes: the element on a little-endian host */
  }
  cureduce_status status =
      cureduce_driver_check(cu->cuMemcpyHtoD(buffer, host, block), "cuMemcpyHtoD", __FILE__, __LINE__);
  free(host);
  for (size_t filled = block; filled < bytes && status == CUREDUCE_STATUS_OK; filled *= 2)
    status = cureduce_driver_check(
        cu->cuMemcpyDtoD(buffer + filled, buffer, bytes - filled < filled ? bytes - filled : filled), "cuMemcpyDtoD",
        __FILE__, __LINE__);
  if (status == CUREDUCE_STATUS_OK)
    status = cureduce_driver_check(cu->cuCtxSynchronize(), "cuCtxSynchronize", __FILE__, __LINE__);
  return status;
}

static cureduce_status tune_all(bench_state *b, const cureduce_tune_job *jobs, size_t job_count,
                                const cureduce_tune_options *options, cureduce_tunedb *results) {
  unsigned first = cureduce_size_bucket(options->min_n), last = cureduce_size_bucket(options->max_n);
  size_t total = job_count * (last - first + 1), done = 0;
  for (size_t j = 0; j < job_count; j++) {
    if (j == 0 || jobs[j].input != jobs[j - 1].input)
      CUREDUCE_FORWARD_IF_ERROR(fill_random(b->context->driver, b->input, options->max_n, jobs[j].input));
    for (unsigned bucket = first; bucket <= last; bucket++) {
      cureduce_bucket_points points = cureduce_tune_points(&jobs[j], bucket, options->min_n, options->max_n);
      char what[96];
      snprintf(what, sizeof what, "%s %s->%s n=%zu", cureduce_op_name(jobs[j].op), cureduce_dtype_name(jobs[j].input),
               cureduce_dtype_name(jobs[j].output), points.n[0]);
      report(options, done++, total, what);
      cureduce_tune_record record;
      CUREDUCE_FORWARD_IF_ERROR(tune_bucket(b, &jobs[j], &points, bucket, options->quick, &record));
      CUREDUCE_RETURN_ERROR_IF(!cureduce_tunedb_put(results, &record), OUT_OF_MEMORY, "no memory for a record");
    }
  }
  report(options, total, total, "tuned");
  return CUREDUCE_STATUS_OK;
}

static cureduce_status check_jobs(const cureduce_tune_job *jobs, size_t job_count, const cureduce_tune_options *o) {
  CUREDUCE_RETURN_ERROR_IF(!jobs || !o || job_count == 0, NULL_POINTER, "no jobs to tune");
  CUREDUCE_RETURN_ERROR_IF(o->min_n < 1 || o->max_n < o->min_n, INVALID_ARGUMENT, "sizes %zu to %zu are not a range",
                           o->min_n, o->max_n);
  for (size_t j = 0; j < job_count; j++) {
    CUREDUCE_FORWARD_IF_ERROR(cureduce_check_types(jobs[j].op, jobs[j].input, jobs[j].output));
    CUREDUCE_RETURN_ERROR_IF(cureduce_transform_is_pair(jobs[j].transform), UNSUPPORTED,
                             "job %zu maps two inputs: tune it as a problem (cureduce_tune_problems), whose data "
                             "hold y",
                             j);
  }
  return CUREDUCE_STATUS_OK;
}

/* A candidate that does not compile is left out when it is timed (logged there); only the default
 * failing stops a bucket or shape. So a failed compile step is a warning. */
static void warn_if_compile_failed(cureduce_context *context, cureduce_status compiled) {
  if (compiled != CUREDUCE_STATUS_OK)
    cureduce_log(&context->logger, CUREDUCE_LOG_WARN, "%s; those candidates are left out",
                 cureduce_last_error_detail());
}

/* The tuner's own stream and events, entered into the context (close_bench leaves it). */
static cureduce_status open_bench(cureduce_context *context, bench_state *b, bool *pushed) {
  *b = (bench_state){.context = context};
  CUREDUCE_FORWARD_IF_ERROR(cureduce_context_enter(context, pushed));
  CUREDUCE_CU(context->driver->cuStreamCreate(&b->stream, CU_STREAM_NON_BLOCKING));
  return create_marks(b);
}

/* Waits for the tuner's stream, gives back its slot, and frees the data and results a whole-array
 * tune allocated (a shape's are freed by tune_one_shape). */
static void close_bench(bench_state *b, bool pushed) {
  const cureduce_driver *cu = b->context->driver;
  if (b->stream) {
    cu->cuStreamSynchronize(b->stream);
    cureduce_workspace_release(&b->context->workspace, b->stream);
    cu->cuStreamDestroy(b->stream);
  }
  destroy_marks(b);
  CUdeviceptr owned[] = {b->input, b->output};
  for (size_t i = 0; i < COUNT(owned); i++)
    if (owned[i])
      cu->cuMemFree(owned[i]);
  cureduce_context_leave(b->context, pushed);
}

/* Adopts what a tune found (a failure frees it). */
static cureduce_status adopt(cureduce_context *context, cureduce_status status, cureduce_tunedb *results) {
  if (status == CUREDUCE_STATUS_OK)
    status = cureduce_context_adopt_tuning(context, results);
  if (status != CUREDUCE_STATUS_OK)
    cureduce_tunedb_free(results);
  return status;
}

cureduce_status cureduce_tune_jobs(cureduce_context *context, const cureduce_tune_job *jobs, size_t job_count,
                                   const cureduce_tune_options *options, cureduce_tunedb *results) {
  CUREDUCE_FORWARD_IF_ERROR(check_jobs(jobs, job_count, options));
  *results = (cureduce_tunedb){0};
  warn_if_compile_failed(context, cureduce_tune_compile(jobs, job_count, options->quick, context->info.arch,
                                                       &context->disk, &context->logger, 16, options));
  size_t element = 1;
  for (size_t j = 0; j < job_count; j++) {
    size_t size = cureduce_dtype_size(jobs[j].input);
    element = size > element ? size : element;
  }
  CUREDUCE_RETURN_ERROR_IF(options->max_n > SIZE_MAX / element, INVALID_ARGUMENT,
                           "max_n = %zu elements of %zu bytes do not fit in memory's address range", options->max_n,
                           element);
  bool pushed;
  bench_state b;
  cureduce_status status = open_bench(context, &b, &pushed);
  const cureduce_driver *cu = context->driver;
  if (status == CUREDUCE_STATUS_OK)
    status = cureduce_driver_check(cu->cuMemAlloc(&b.input, options->max_n * element), "cuMemAlloc (tuning data)",
                                   __FILE__, __LINE__);
  if (status == CUREDUCE_STATUS_OK)
    status = cureduce_driver_check(cu->cuMemAlloc(&b.output, 8 * CUREDUCE_EXACT_MAX_WORDS), /* any result fits */
                                   "cuMemAlloc", __FILE__, __LINE__);
  if (status == CUREDUCE_STATUS_OK)
    status = cureduce_workspace_slot(&context->workspace, b.stream, &b.workspace);
  if (status == CUREDUCE_STATUS_OK)
    status = tune_all(&b, jobs, job_count, options, results);
  close_bench(&b, pushed);
  return adopt(context, status, results);
}

/* ---- shapes ------------------------------------------------------------------------------------ */

/* Elements a shape reads from its first: the matrix's extent, or its segments back to back. */
static uint64_t shape_elements(const cureduce_tune_shape *shape) {
  const cureduce_problem *p = &shape->problem;
  return p->layout == CUREDUCE_LAYOUT_SEGMENTS ? p->rows * shape->segment_length : cureduce_problem_extent(p);
}

static cureduce_status check_shapes(const cureduce_tune_shape *shapes, size_t count) {
  CUREDUCE_RETURN_ERROR_IF(!shapes || count == 0, NULL_POINTER, "no shapes to tune");
  for (size_t i = 0; i < count; i++) {
    const cureduce_problem *p = &shapes[i].problem;
    CUREDUCE_FORWARD_IF_ERROR(cureduce_problem_check(p));
    bool segments = p->layout == CUREDUCE_LAYOUT_SEGMENTS;
    CUREDUCE_RETURN_ERROR_IF(segments != (shapes[i].segment_length > 0) || cureduce_problem_results(p) == 0 ||
                                 shape_elements(&shapes[i]) == 0,
                             INVALID_ARGUMENT, "shape %zu: %s", i,
                             segments ? "segments need a length, a number of segments and of elements each"
                             : cureduce_problem_is_shaped(p) ? "a matrix to tune needs rows and columns, and no segment length"
                                                             : "a whole array to tune needs elements, and no segment length");
    uint64_t elements = shape_elements(&shapes[i]);
    CUREDUCE_RETURN_ERROR_IF(elements > (SIZE_MAX >> 4) / cureduce_dtype_size(p->input_type) ||
                                 (segments && p->rows > UINT64_MAX / shapes[i].segment_length),
                             INVALID_ARGUMENT, "shape %zu does not fit in memory's address range", i);
  }
  return CUREDUCE_STATUS_OK;
}

/* Equal segments back to back: segment i is [i * length, (i + 1) * length). */
static cureduce_status upload_segments(const cureduce_driver *cu, CUdeviceptr begin, uint64_t count, uint64_t length) {
  int64_t *offsets = malloc((size_t)(count + 1) * sizeof *offsets);
  CUREDUCE_RETURN_ERROR_IF(!offsets, OUT_OF_MEMORY, "no memory for the segments' offsets");
  for (uint64_t i = 0; i <= count; i++)
    offsets[i] = (int64_t)(i * length);
  cureduce_status status = cureduce_driver_check(cu->cuMemcpyHtoD(begin, offsets, (size_t)(count + 1) * 8),
                                                 "cuMemcpyHtoD", __FILE__, __LINE__);
  free(offsets);
  return status;
}

/* Allocates the shape's data (random; y's too for a map of two inputs), results, workspace and
 * offsets in b, tunes it, frees them. */
static cureduce_status tune_one_shape(bench_state *b, const cureduce_tune_shape *shape, bool quick,
                                      cureduce_tune_record *record) {
  const cureduce_driver *cu = b->context->driver;
  cureduce_problem canonical = cureduce_problem_canonical(&shape->problem); /* as plans take it */
  const cureduce_problem *p = &canonical;
  size_t element = cureduce_dtype_size(p->input_type), elements = (size_t)shape_elements(shape);
  size_t limit = cureduce_problem_is_shaped(p) ? cureduce_shape_workspace_limit(p, b->context->info.sm_count,
                                                                               b->context->info.max_threads_per_sm)
                                               : (size_t)CUREDUCE_SLOT_BYTES; /* a single pass's, a slot */
  bool segments = p->layout == CUREDUCE_LAYOUT_SEGMENTS, pair = cureduce_transform_is_pair(p->transform);
  CUdeviceptr offsets = 0;
  cureduce_status status = CUREDUCE_STATUS_OK;
#define ALLOCATE(where, bytes) \
  if (status == CUREDUCE_STATUS_OK) \
  status = cureduce_driver_check(cu->cuMemAlloc(&(where), (bytes)), "cuMemAlloc (tuning " #where ")", __FILE__, __LINE__)
  ALLOCATE(b->input, elements * element + 16);
  if (pair)
    ALLOCATE(b->second, elements * element + 16);
  ALLOCATE(b->output, (size_t)cureduce_problem_results(p) * cureduce_result_size(p->op, p->output_type));
  ALLOCATE(b->workspace, limit);
  ALLOCATE(b->armed_area, CUREDUCE_SLOT_ARMED_BYTES);
  if (segments)
    ALLOCATE(offsets, ((size_t)p->rows + 1) * 8);
#undef ALLOCATE
  if (status == CUREDUCE_STATUS_OK)
    status = cureduce_driver_check(cu->cuMemsetD8(b->workspace, 0, limit), "cuMemsetD8", __FILE__, __LINE__);
  if (status == CUREDUCE_STATUS_OK)
    status = cureduce_driver_check(cu->cuMemsetD8(b->armed_area, 0, CUREDUCE_SLOT_ARMED_BYTES), "cuMemsetD8", __FILE__,
                                   __LINE__);
  if (status == CUREDUCE_STATUS_OK && segments)
    status = upload_segments(cu, offsets, p->rows, shape->segment_length);
  b->begin = offsets, b->end = offsets + 8;
  if (status == CUREDUCE_STATUS_OK)
    status = fill_random(cu, b->input, elements, p->input_type);
  if (status == CUREDUCE_STATUS_OK && pair)
    status = fill_random(cu, b->second, elements, p->input_type);
  if (status == CUREDUCE_STATUS_OK)
    status = tune_shape(b, p, elements * element * cureduce_transform_inputs(p->transform), quick, limit, record);
  cu->cuStreamSynchronize(b->stream);
  CUdeviceptr *owned[] = {&b->input, &b->second, &b->output, &b->workspace, &b->armed_area, &offsets};
  for (size_t i = 0; i < COUNT(owned); i++)
    if (*owned[i])
      cu->cuMemFree(*owned[i]), *owned[i] = 0;
  b->begin = b->end = 0;
  return status;
}

cureduce_status cureduce_tune_shapes(cureduce_context *context, const cureduce_tune_shape *shapes, size_t shape_count,
                                     const cureduce_tune_options *options, cureduce_tunedb *results) {
  CUREDUCE_FORWARD_IF_ERROR(check_shapes(shapes, shape_count));
  *results = (cureduce_tunedb){0};
  const cureduce_device_info *device = &context->info;
  warn_if_compile_failed(context, cureduce_tune_compile_shapes(shapes, shape_count, options->quick, device->arch,
                                                              device->sm_count, device->max_threads_per_sm,
                                                              &context->disk, &context->logger, 16, options));
  bool pushed;
  bench_state b;
  cureduce_status status = open_bench(context, &b, &pushed);
  for (size_t i = 0; i < shape_count && status == CUREDUCE_STATUS_OK; i++) {
    char what[96];
    cureduce_tune_shape_describe(&shapes[i], what, sizeof what);
    report(options, i, shape_count, what);
    cureduce_tune_record record;
    status = tune_one_shape(&b, &shapes[i], options->quick, &record);
    if (status == CUREDUCE_STATUS_OK && !cureduce_tunedb_put(results, &record))
      status = cureduce_fail(CUREDUCE_STATUS_OUT_OF_MEMORY, __FILE__, __LINE__, NULL, "no memory for a record");
  }
  if (status == CUREDUCE_STATUS_OK)
    report(options, shape_count, shape_count, "tuned");
  close_bench(&b, pushed);
  return adopt(context, status, results);
}

void cureduce_tune_shape_describe(const cureduce_tune_shape *shape, char *text, size_t size) {
  const cureduce_problem *p = &shape->problem;
  static const char *const layouts[] = {"n", "rows", "columns", "segments"};
  char input[48]; /* the input type, inside its transform's name when it has one */
  if (p->transform)
    snprintf(input, sizeof input, "%s(%s)", cureduce_transform_name(p->transform), cureduce_dtype_name(p->input_type));
  else
    snprintf(input, sizeof input, "%s", cureduce_dtype_name(p->input_type));
  int length = snprintf(text, size, "%s %s->%s %s ", cureduce_op_name(p->op), input,
                        cureduce_dtype_name(p->output_type), layouts[p->layout]);
  if (length < 0 || (size_t)length >= size)
    return;
  if (cureduce_problem_is_shaped(p))
    snprintf(text + length, size - (size_t)length, "%llux%llu", (unsigned long long)p->rows,
             (unsigned long long)(p->layout == CUREDUCE_LAYOUT_SEGMENTS ? shape->segment_length : p->cols));
  else
    snprintf(text + length, size - (size_t)length, "%llu", (unsigned long long)p->n);
}

/* ---- tuning on first use ------------------------------------------------------------------------ */

cureduce_status cureduce_tune_in_place(cureduce_context *context, const cureduce_tune_job *job, CUdeviceptr input,
                                       size_t n, CUdeviceptr output, CUstream stream) {
  const cureduce_driver *cu = context->driver;
  bench_state b = {.context = context, .stream = stream, .input = input, .output = output};
  CUREDUCE_CU(cu->cuStreamSynchronize(stream)); /* the caller's input must be ready */
  CUREDUCE_FORWARD_IF_ERROR(cureduce_workspace_slot(&context->workspace, stream, &b.workspace));
  cureduce_status status = create_marks(&b);
  cureduce_tune_record record;
  if (status == CUREDUCE_STATUS_OK)
    status = tune_bucket(&b, job, &(cureduce_bucket_points){{n, n}, 1}, cureduce_size_bucket(n), true, &record);
  destroy_marks(&b);
  CUREDUCE_FORWARD_IF_ERROR(status);
  cureduce_tunedb one = {&record, 1, 1};
  return cureduce_context_adopt_tuning(context, &one);
}

cureduce_status cureduce_tune_shape_in_place(cureduce_context *context, const cureduce_problem *problem,
                                             const cureduce_shape_memory *memory, CUstream stream,
                                             cureduce_tune_record *record) {
  const cureduce_driver *cu = context->driver;
  bench_state b = {.context = context, .stream = stream, .input = memory->input, .output = memory->output,
                   .workspace = memory->workspace, .armed_area = memory->armed_area, .begin = memory->begin,
                   .end = memory->end, .second = memory->second};
  CUREDUCE_CU(cu->cuStreamSynchronize(stream)); /* the caller's input must be ready */
  if (memory->workspace_bytes) /* the kernels leave their tickets zero: once is enough */
    CUREDUCE_CU(cu->cuMemsetD8Async(memory->workspace, 0, memory->workspace_bytes, stream));
  cureduce_status status = create_marks(&b);
  if (status == CUREDUCE_STATUS_OK) {
    size_t bytes = (size_t)cureduce_problem_extent(problem) * cureduce_dtype_size(problem->input_type) *
                   cureduce_transform_inputs(problem->transform);
    status = tune_shape(&b, problem, bytes, true, memory->workspace_bytes, record);
  }
  destroy_marks(&b);
  CUREDUCE_FORWARD_IF_ERROR(status);
  cureduce_tunedb one = {record, 1, 1};
  return cureduce_context_adopt_tuning(context, &one);
}

cureduce_status cureduce_tune(cureduce_context *context, cureduce_op op, cureduce_dtype input_type,
                              cureduce_dtype output_type, size_t min_n, size_t max_n, int quick) {
  cureduce_error_clear();
  CUREDUCE_RETURN_ERROR_IF(!context, NULL_POINTER, "context must not be NULL");
  cureduce_tune_job job = {.op = op, .input = input_type, .output = output_type};
  cureduce_tune_options options = {.min_n = min_n, .max_n = max_n, .quick = quick != 0};
  cureduce_tunedb results;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_tune_jobs(context, &job, 1, &options, &results));
  cureduce_tunedb_free(&results);
  cureduce_error_clear(); /* a candidate left out or an unwritable database was a warning, not a failure */
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_tune_problems(cureduce_context *context, const cureduce_problem *problems, size_t count,
                                       uint64_t segment_length, int quick) {
  cureduce_error_clear();
  CUREDUCE_RETURN_ERROR_IF(!problems || count == 0, NULL_POINTER, "no problems to tune");
  cureduce_tune_shape *shapes = malloc(count * sizeof *shapes);
  CUREDUCE_RETURN_ERROR_IF(!shapes, OUT_OF_MEMORY, "no memory for %zu shapes", count);
  for (size_t i = 0; i < count; i++)
    shapes[i] = (cureduce_tune_shape){
        problems[i], problems[i].layout == CUREDUCE_LAYOUT_SEGMENTS ? segment_length : 0};
  cureduce_tune_options options = {.quick = quick != 0};
  cureduce_tunedb results;
  cureduce_status status = check_shapes(shapes, count); /* before the context, as plans check */
  if (status == CUREDUCE_STATUS_OK && !context)
    status = cureduce_fail(CUREDUCE_STATUS_NULL_POINTER, __FILE__, __LINE__, NULL, "context must not be NULL");
  if (status == CUREDUCE_STATUS_OK)
    status = cureduce_tune_shapes(context, shapes, count, &options, &results);
  free(shapes);
  CUREDUCE_FORWARD_IF_ERROR(status);
  cureduce_tunedb_free(&results);
  cureduce_error_clear(); /* a candidate left out or an unwritable database was a warning, not a failure */
  return CUREDUCE_STATUS_OK;
}
