/* The autotuner: for each (operation, input type, output type) and size bucket it times the
 * candidate kernels on the device and keeps the fastest, never one slower than the heuristic
 * default by its own re-measurement.
 *
 * Candidates (tuning space 1): the single-pass strategy with 16-byte loads, blocks of 128, 256 or
 * 512 threads, 1, 2, 4 or 8 loads in flight, and 4, 8 or 16 blocks per SM within the SM's
 * threads; the quick space keeps 256 threads, 2 or 4 loads and 4 or 8 blocks per SM. Within a
 * bucket, candidates that launch the same grids for its sizes are one candidate. Each bucket is
 * measured at the size it is tuned at (three quarters of its top) and at its smallest size, and a
 * candidate scores its worst time over the default's at those points; a bucket whose input
 * reaches 256 MiB streams from memory alike throughout and is measured at the first point only.
 * Timing: every candidate's median of 3 calls; then the default and the best three others
 * (quick: one) again, twice in alternating order, median of 9 (quick: 4), the better of the two
 * rounds kept. Streaming buckets take 1 call a candidate and a median of 3 (quick: 2), with no
 * warm-up call: those calls last tens of microseconds or more and vary by far less than a
 * percent. Calls are queued back to back and timed between events (see tune.c). The default
 * wins unless another scores below 1 in the second round: faster at every point. */
#ifndef CUREDUCE_TUNE_H
#define CUREDUCE_TUNE_H

#include <stdbool.h>

#include "context.h"
#include "shape.h"
#include "tunedb.h"

typedef struct cureduce_tune_job {
  cureduce_op op;
  cureduce_dtype input, output;
  cureduce_transform transform; /* carried by every candidate; none for cureduce-tune's buckets */
  uint64_t expression;          /* CUREDUCE_TRANSFORM_EXPRESSION: the text's digest */
} cureduce_tune_job;

/* done of total steps finished; `what` names the step. */
typedef void (*cureduce_tune_progress)(void *user, size_t done, size_t total, const char *what);

typedef struct cureduce_tune_options {
  size_t min_n, max_n; /* one bucket for every bit length from min_n's to max_n's */
  bool quick;
  cureduce_tune_progress progress;
  void *progress_user;
} cureduce_tune_options;

/* The size a bucket is tuned at: three quarters of its top, within [min_n, max_n]. */
size_t cureduce_tune_bucket_size(unsigned bucket, size_t min_n, size_t max_n);

/* Where a bucket is measured: n[0], the size it is tuned at, and n[1], its smallest size, unless
 * its calls stream from memory (inputs of 256 MiB or more), where the whole bucket behaves
 * alike. A choice made for the upper part of a bucket alone can lose to the default at its lower
 * edge (seen on the H200: max f32 at n = 4096), so a candidate must beat the default at both. */
typedef struct cureduce_bucket_points {
  size_t n[2];
  int count;
} cureduce_bucket_points;
cureduce_bucket_points cureduce_tune_points(const cureduce_tune_job *job, unsigned bucket, size_t min_n,
                                            size_t max_n);

/* Every spec the tuner may pick for the job on this device, the heuristic default first, at most
 * max: the space within the SM's threads. */
size_t cureduce_tune_space(const cureduce_tune_job *job, const cureduce_device_info *device, bool quick,
                           cureduce_spec *out, size_t max);

/* The candidates timed at those points, the default first, at most max: the space within the
 * SM's threads, less those that launch the same grids as one kept before. */
size_t cureduce_tune_candidates(const cureduce_tune_job *job, const cureduce_bucket_points *points,
                                const cureduce_device_info *device, bool quick, cureduce_spec *out, size_t max);

/* The kernels of `specs` (each once), compiled for sm_arch into the disk cache with `threads`
 * compilers at once: the GPU suites compile a sweep's kernels ahead with it, so that its plans
 * load them from the cache rather than compile one at a time. An expression's text must have been
 * registered (cureduce_problem_check). */
cureduce_status cureduce_compile_specs(const cureduce_spec *specs, size_t count, int arch, cureduce_diskcache *disk,
                                      const cureduce_logger *logger, int threads);

/* Every kernel the tuner could pick for the jobs, compiled for sm_arch into the disk cache with
 * `threads` compilers at once: what --offline does, and the tuner's first step. */
cureduce_status cureduce_tune_compile(const cureduce_tune_job *jobs, size_t job_count, bool quick, int arch,
                                      cureduce_diskcache *disk, const cureduce_logger *logger, int threads,
                                      const cureduce_tune_options *progress);

/* A problem to tune: rows or columns as the problem says; segments, `problem.rows` of them, back
 * to back, each `segment_length` elements long (the lengths are the caller's at execution, so the
 * tool names a typical one); a whole array (e.g. a transformed one, which cureduce-tune's buckets
 * do not cover) at its own n, for its size bucket. */
typedef struct cureduce_tune_shape {
  cureduce_problem problem;
  uint64_t segment_length; /* segments only; 0 for matrices */
} cureduce_tune_shape;

/* "sum f32->f32 rows 4096x1024", for progress and tables. */
void cureduce_tune_shape_describe(const cureduce_tune_shape *shape, char *text, size_t size);

/* The same for the shapes' spaces on a device of sm_count SMs (which change only launch fields). */
cureduce_status cureduce_tune_compile_shapes(const cureduce_tune_shape *shapes, size_t shape_count, bool quick,
                                             int arch, int sm_count, int max_threads_per_sm, cureduce_diskcache *disk,
                                             const cureduce_logger *logger, int threads,
                                             const cureduce_tune_options *progress);

/* Tunes the jobs on the context's device, stores the choices in the tuning database (and in the
 * context, whose next calls use them) and returns them in *results (the caller frees them). */
cureduce_status cureduce_tune_jobs(cureduce_context *context, const cureduce_tune_job *jobs, size_t job_count,
                                   const cureduce_tune_options *options, cureduce_tunedb *results);

/* Tunes each shape (its space, cureduce_shape_tune_space, on random data of the shape that it
 * allocates, with a workspace of cureduce_shape_workspace_limit bytes) and stores the choices
 * as cureduce_tune_jobs does; options' sizes are not used. */
cureduce_status cureduce_tune_shapes(cureduce_context *context, const cureduce_tune_shape *shapes, size_t shape_count,
                                     const cureduce_tune_options *options, cureduce_tunedb *results);

/* The caller's memory of a shaped execution, which tuning on first use times on. */
typedef struct cureduce_shape_memory {
  CUdeviceptr input, output, begin, end;
  CUdeviceptr second; /* y of a map of two inputs; else 0 */
  CUdeviceptr workspace; /* workspace_bytes of it, zeroed here before the timing */
  size_t workspace_bytes;
  CUdeviceptr armed_area; /* the slot's armed area where workspace is a stream's slot (workspace.h); else 0 */
} cureduce_shape_memory;

/* CUREDUCE_TUNING_ON_FIRST_USE for a shaped plan: tunes the problem's key with the quick space,
 * within the given workspace, on the caller's memory and stream, after waiting for it; stores the
 * choice as cureduce_tune_jobs does and returns it in *record. The context must be current. */
cureduce_status cureduce_tune_shape_in_place(cureduce_context *context, const cureduce_problem *problem,
                                             const cureduce_shape_memory *memory, CUstream stream,
                                             cureduce_tune_record *record);

/* CUREDUCE_TUNING_ON_FIRST_USE: tunes the bucket of n with the quick space on the caller's own
 * input and output, on its stream, after waiting for it. The context must be current. */
cureduce_status cureduce_tune_in_place(cureduce_context *context, const cureduce_tune_job *job, CUdeviceptr input,
                                       size_t n, CUdeviceptr output, CUstream stream);

#endif
