/*
 * cureduce: reductions on NVIDIA GPUs with kernels generated for the GPU in hand.
 *
 * The whole public API. It needs no CUDA header: device pointers are `const void *` / `void *`
 * (what cudaMalloc and cuMemAlloc hand out), streams are `void *` (a CUstream; a cudaStream_t is
 * the same thing).
 *
 * Device memory: cureduce_context_create() allocates one block of device memory, the library's
 * workspace: `settings.max_streams` slots of 263,168 bytes (132,096 of workspace, then 131,072 that
 * the launches keep zero) and 64 result cells of 24 bytes (4.0 MiB with the default 16 slots),
 * freed by cureduce_context_destroy(). Each stream that runs a multi-block reduction without a
 * workspace of its own is given one slot on first use and keeps it until cureduce_release_stream()
 * or cureduce_context_destroy(); each cureduce_reduce_to_host() call holds a result cell while it
 * runs. A plan executed with a caller workspace uses that memory and nothing else (a shaped plan
 * whose workspace is larger than a slot must be given one). Besides these, only cureduce_tune() and
 * cureduce_tune_problems() allocate: their random timing data (and for shapes, results, a
 * workspace, 131,072 bytes kept zero like a slot's, and offsets), freed before they return.
 * Executing a plan or calling cureduce_reduce() neither allocates nor synchronizes
 * (CUREDUCE_TUNING_ON_FIRST_USE aside: it tunes on the caller's buffers and waits for the stream,
 * once per size bucket or shape class). Graph capture: capture cureduce_plan_execute() with a
 * caller workspace; a call that would use the library's workspace during capture is refused. Calls
 * on different streams run concurrently; calls on one stream are ordered by the stream.
 *
 * Determinism: for a given GPU, kernel configuration and input address, a reduction gives the
 * bitwise same result on every run. There are no floating-point atomics. CUREDUCE_OP_EXACT_SUM
 * gives the same bits everywhere: on every GPU, configuration and input address.
 */
#ifndef CUREDUCE_CUREDUCE_H
#define CUREDUCE_CUREDUCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CUREDUCE_BUILDING_LIBRARY) && defined(__GNUC__)
#define CUREDUCE_API __attribute__((visibility("default")))
#else
#define CUREDUCE_API
#endif

#define CUREDUCE_VERSION_MAJOR 0
#define CUREDUCE_VERSION_MINOR 2
#define CUREDUCE_VERSION_PATCH 0
#define CUREDUCE_VERSION_INT(major, minor, patch) (((major) << 16) | ((minor) << 8) | (patch))
#define CUREDUCE_VERSION \
  CUREDUCE_VERSION_INT(CUREDUCE_VERSION_MAJOR, CUREDUCE_VERSION_MINOR, CUREDUCE_VERSION_PATCH)

/* The version of the library loaded at run time, as CUREDUCE_VERSION_INT() would give it. */
CUREDUCE_API unsigned cureduce_version(void);
CUREDUCE_API const char *cureduce_version_string(void);

/*
 * Status codes. The numbers are pinned forever: a new status gets a new number at the end.
 * X(NAME, number, message)
 */
#define CUREDUCE_STATUS_LIST(X)                                                                   \
  X(OK, 0, "success")                                                                              \
  X(INVALID_ARGUMENT, 1, "an argument is out of its range")                                        \
  X(NULL_POINTER, 2, "a required pointer is NULL")                                                 \
  X(MISALIGNED_POINTER, 3, "a pointer is not aligned to its element type")                        \
  X(UNSUPPORTED, 4, "this operation, input type and output type are not supported together")      \
  X(EMPTY_INPUT, 5, "this operation of zero elements has no value (min, max, arg*, mean, ...)")  \
  X(NO_DRIVER, 6, "the CUDA driver library (libcuda.so.1) could not be loaded or initialized")    \
  X(NO_DEVICE, 7, "there is no CUDA device with that ordinal")                                     \
  X(NO_NVRTC, 8, "NVRTC could not be loaded and the kernel is not in the cache")                  \
  X(COMPILE_FAILED, 9, "NVRTC failed to compile a generated kernel")                               \
  X(CUDA_ERROR, 10, "a CUDA driver call failed")                                                   \
  X(OUT_OF_MEMORY, 11, "out of host or device memory")                                             \
  X(NOT_DEVICE_POINTER, 12, "a pointer is not memory that this context's device can read")        \
  X(TOO_MANY_STREAMS, 13, "every workspace slot is held by another stream")                        \
  X(INVALID_SPEC, 14, "a kernel specification is malformed or not legal")                          \
  X(CACHE_IO, 15, "a cache file could not be read or written")

typedef enum cureduce_status {
#define CUREDUCE_STATUS_ENUM(name, number, message) CUREDUCE_STATUS_##name = number,
  CUREDUCE_STATUS_LIST(CUREDUCE_STATUS_ENUM)
#undef CUREDUCE_STATUS_ENUM
} cureduce_status;

/* "CUREDUCE_STATUS_OK", ...; "CUREDUCE_STATUS_UNKNOWN" for a number outside the list. */
CUREDUCE_API const char *cureduce_status_name(cureduce_status status);
/* A sentence saying what the status means. */
CUREDUCE_API const char *cureduce_status_string(cureduce_status status);
/*
 * What went wrong in this thread's last failed call, in detail: the condition, the file and line
 * that noticed it, and for a compile failure NVRTC's log and the numbered source. Valid until the
 * thread's next call into the library. "" when the last call succeeded.
 */
CUREDUCE_API const char *cureduce_last_error_detail(void);

typedef enum cureduce_op {
  CUREDUCE_OP_SUM = 0,
  CUREDUCE_OP_PROD = 1,
  CUREDUCE_OP_MIN = 2,
  CUREDUCE_OP_MAX = 3,
  CUREDUCE_OP_ARGMIN = 4,
  CUREDUCE_OP_ARGMAX = 5,
  /* The exact mathematical sum of the inputs, rounded once to the output type (to nearest, ties
   * to even): the same bits on every GPU, kernel configuration, tuning and input address. Float
   * inputs only. An exact zero is +0; NaN if any input is NaN or both infinities occur, else an
   * infinity if one occurs; a finite exact sum beyond the output's range rounds to an infinity.
   * n must be below 2^64 (any size_t): the accumulator provably cannot overflow.
   * Output type i64: the exact sum itself, not rounded (see "Exact partials" below). */
  CUREDUCE_OP_EXACT_SUM = 6,
  /* The Euclidean (L2) norm, sqrt(sum of x^2), right wherever the true norm is representable:
   * f16, bf16 and f32 inputs square and add in f64, whose range holds any sum of their squares;
   * f64 inputs add in three f64 accumulators, for magnitudes above 2^486, below 2^-511 (each scaled
   * by a power of two) and between (Blue's algorithm, as LAPACK's dnrm2), joined once at the end.
   * Float inputs only; accumulator f64; NaN if any input is NaN, else +inf if one is infinite;
   * 0 for zero elements. */
  CUREDUCE_OP_NORM2 = 7,
  /* The statistics of the inputs' distribution, float inputs only, each in one pass over the data
   * (the accumulator f64; cureduce_accumulator_type). Every thread adds its elements' deviations
   * from one shift, the first element of the sequence (the array, row, column or segment), and
   * their squares; threads, blocks and partials join by adding those sums and the counts, and the
   * finish divides once. The sums stay near the data's spread, so the sum of squares formula's
   * cancellation never arises (README, "Statistics": the error bound). NaN if any input is NaN or
   * an infinity occurs. An empty row, column or segment gives NaN; a whole array of zero elements
   * is EMPTY_INPUT.
   *   MEAN:            the arithmetic mean.
   *   VARIANCE:        the population variance (the squared deviations over n), and the mean;
   *   SAMPLE_VARIANCE: over n - 1 (Bessel's correction; NaN for one element);
   *   STD, SAMPLE_STD: their square roots.
   * The last four write a whole cureduce_value: the statistic in `value`, index -1, and the mean
   * in `mean` (both in the output type): torch.var_mean in one operation. */
  CUREDUCE_OP_MEAN = 8,
  CUREDUCE_OP_VARIANCE = 9,
  CUREDUCE_OP_SAMPLE_VARIANCE = 10,
  CUREDUCE_OP_STD = 11,
  CUREDUCE_OP_SAMPLE_STD = 12,
  /* log(sum of exp(x)), float inputs only, in one pass: each thread keeps its largest element so
   * far and the sum of exp(x - largest), rescaled when a larger one comes, so that nothing
   * overflows (one exp an element). Accumulator f32 (f16, bf16, f32 inputs) or f64. NaN if any
   * input is NaN; +inf if one is +inf; -inf for zero elements or when every element is -inf. */
  CUREDUCE_OP_LOGSUMEXP = 13,
  CUREDUCE_OP_COUNT
} cureduce_op;

typedef enum cureduce_dtype {
  CUREDUCE_F16 = 0,
  CUREDUCE_BF16 = 1,
  CUREDUCE_F32 = 2,
  CUREDUCE_F64 = 3,
  CUREDUCE_I8 = 4,
  CUREDUCE_U8 = 5,
  CUREDUCE_I32 = 6,
  CUREDUCE_U32 = 7,
  CUREDUCE_I64 = 8,
  CUREDUCE_U64 = 9,
  CUREDUCE_DTYPE_COUNT
} cureduce_dtype;

/*
 * A map applied to every element before the operation, fused into the same pass (a field of the
 * problem; CUREDUCE_TRANSFORM_NONE keeps the plain operation). Float inputs only (f16, bf16, f32,
 * f64), every layout, every operation but exact_sum.
 *   ABS:     |x|, the sign bit cleared: exact in the input type (-0 becomes +0, a NaN stays a NaN).
 *            sum: the L1 norm; max: amax (the FP8/int8 scaling statistic); argmax: BLAS i?amax
 *            (the first index of the largest |x|, 0-based; a NaN wins as in argmax).
 *   SQUARE:  x * x, computed and accumulated in f32 (f16, bf16, f32 inputs) or f64 (f64 inputs):
 *            sum: the sum of squares, which overflows to +inf where squares pass the accumulator's
 *            range (beyond about 1.8e19 for f32); CUREDUCE_OP_NORM2 is the L2 norm that does not.
 *   NONZERO: 1 where x != 0 (a NaN counts), else 0, as a u8: sum: the count of nonzero elements
 *            (accumulated in u64, exact); max: any; min: all; argmax: the index of the first nonzero
 *            element, value 1 (index 0, value 0, when every element is zero); argmin: the first
 *            zero's.
 * Every layout but for the two-input transforms below, which take whole arrays.
 *   EXPRESSION: a map the caller writes, problem.expression: one C++ expression over `x`, the
 *            element in the float accumulator type (float for f16, bf16 and f32 inputs, double
 *            for f64), whose value, converted to that type, the operation reduces; e.g. "x * x",
 *            "fabsf(x - 1.0f)", "x > 0.5f ? 1.0f : 0.0f". NVRTC's built-in math functions are there,
 *            no header is. At most 1024 bytes, and nothing but one expression: ';', '{', '}', '#',
 *            '\\', comments, string and character literals are refused with INVALID_ARGUMENT. It is
 *            code compiled into a kernel of this process, with the rights of any code of it: pass
 *            only text you would compile yourself. A compile error is COMPILE_FAILED, with NVRTC's
 *            log and the numbered generated source in cureduce_last_error_detail(). The text
 *            (through a 64-bit digest of it) is part of the kernel cache's and the tuning
 *            database's keys, so a warm cache needs no NVRTC for it. The process keeps each
 *            distinct expression it meets (a plan copies the problem's) until it ends.
 * Two inputs, x and y of the input type, element i of each mapped together (whole arrays only, for
 * now; executed by cureduce_plan_execute_pair, which takes y):
 *   PRODUCT: x * y in the float accumulator type (f32; f64 for f64 inputs): sum: the dot product.
 *   PAIR_EXPRESSION: problem.expression over `x` and `y`, as EXPRESSION is over `x`, e.g.
 *            "fabsf(x - y)", "(x - y) * (x - y)".
 * The mapped value has the "mapped type" (the input type for ABS; f32 or f64 for SQUARE,
 * EXPRESSION, PRODUCT and PAIR_EXPRESSION; u8 for NONZERO); the accumulator type is the operation's
 * for the mapped type (cureduce_accumulator_type), and the output type must be the input type or
 * that accumulator type.
 */
typedef enum cureduce_transform {
  CUREDUCE_TRANSFORM_NONE = 0,
  CUREDUCE_TRANSFORM_ABS = 1,
  CUREDUCE_TRANSFORM_SQUARE = 2,
  CUREDUCE_TRANSFORM_NONZERO = 3,
  CUREDUCE_TRANSFORM_EXPRESSION = 4,
  CUREDUCE_TRANSFORM_PRODUCT = 5,
  CUREDUCE_TRANSFORM_PAIR_EXPRESSION = 6,
  CUREDUCE_TRANSFORM_COUNT
} cureduce_transform;

/* "sum", "f32", "abs", ...; NULL outside the enum. */
CUREDUCE_API const char *cureduce_op_name(cureduce_op op);
CUREDUCE_API const char *cureduce_transform_name(cureduce_transform transform);
CUREDUCE_API const char *cureduce_dtype_name(cureduce_dtype dtype);
/* Bytes per element; 0 outside the enum. */
CUREDUCE_API size_t cureduce_dtype_size(cureduce_dtype dtype);

/*
 * The type a reduction accumulates in:
 *   sum, prod:  f16, bf16, f32 -> f32;  f64 -> f64;  signed integers -> i64;  unsigned -> u64.
 *   norm2, mean, variance, sample_variance, std, sample_std:
 *               f16, bf16, f32, f64 -> f64 (floats only).
 *   logsumexp:  f16, bf16, f32 -> f32;  f64 -> f64 (floats only).
 *               Integer sums and products wrap around modulo 2^64 (two's complement), and an
 *               output type narrower than 64 bits keeps the low bits of that result.
 *   exact_sum:  f16, bf16, f32 -> f32;  f64 -> f64 (an integer sum is exact already: use sum);
 *               also -> i64, its exact partial (below).
 *   min, max, argmin, argmax: the input type.
 * The output type of a call must be the input type or the accumulator type.
 * Returns CUREDUCE_STATUS_UNSUPPORTED (and writes nothing) for any other pair.
 */
CUREDUCE_API cureduce_status cureduce_accumulator_type(cureduce_op op, cureduce_dtype input,
                                                       cureduce_dtype *accumulator);
CUREDUCE_API cureduce_status cureduce_check_types(cureduce_op op, cureduce_dtype input,
                                                  cureduce_dtype output);
/* The same for a transformed reduction (cureduce_transform): UNSUPPORTED, with the reason in
 * cureduce_last_error_detail(), for a pair the transform does not take. */
CUREDUCE_API cureduce_status cureduce_check_transform_types(cureduce_op op, cureduce_transform transform,
                                                            cureduce_dtype input, cureduce_dtype output);

/*
 * A result brought back to the host, and the layout of a result record on the device: the value
 * in the first bytes (f16 and bf16 as their 16 bits), the index at byte 8, the mean at byte 16.
 * argmin/argmax write 16 bytes of it, the variances and standard deviations all 24: their output
 * pointer must be 8-byte aligned and have room for that (cureduce_result_bytes).
 */
typedef union cureduce_scalar {
  double f64;
  float f32;
  uint16_t f16_bits;
  uint16_t bf16_bits;
  int8_t i8;
  uint8_t u8;
  int32_t i32;
  uint32_t u32;
  int64_t i64;
  uint64_t u64;
  unsigned char bytes[8];
} cureduce_scalar;

typedef struct cureduce_value {
  cureduce_scalar value;
  int64_t index; /* argmin/argmax: the element's index; -1 for the other operations */
  /* variance, sample_variance, std, sample_std: the mean, in the output type; else zero. These
   * operations write the whole struct to the device (24 bytes, 8-byte aligned). */
  cureduce_scalar mean;
} cureduce_value;

typedef enum cureduce_log_level {
  CUREDUCE_LOG_OFF = 0,
  CUREDUCE_LOG_ERROR = 1,
  CUREDUCE_LOG_WARN = 2,
  CUREDUCE_LOG_INFO = 3,
  CUREDUCE_LOG_DEBUG = 4
} cureduce_log_level;

typedef void (*cureduce_log_callback)(void *user_data, cureduce_log_level level,
                                      const char *message);

/* Which kernel configuration a call uses. */
typedef enum cureduce_tuning {
  /* What cureduce-tune (or cureduce_tune) measured fastest on this GPU, else the heuristic. */
  CUREDUCE_TUNING_CACHED = 0,
  /* Always the heuristic: results independent of the tuning database. */
  CUREDUCE_TUNING_OFF = 1,
  /* As CACHED, and the first call for an untuned (operation, types, size bucket) tunes it on the
   * caller's own input: that call waits for its stream and takes some milliseconds. A shaped plan
   * made for an untuned class (see cureduce_tune_problems) tunes it at its first execution outside
   * a graph capture, on that call's memory, and runs the tuned configuration from then on, within
   * the workspace cureduce_plan_workspace_size() said. */
  CUREDUCE_TUNING_ON_FIRST_USE = 2
} cureduce_tuning;

typedef struct cureduce_settings {
  /* CUDA device ordinal. The context uses that device's primary context (the one the runtime
   * API uses), so pointers from cudaMalloc work. Default 0. */
  int device;
  /* Folder of the on-disk kernel cache. NULL: $CUREDUCE_CACHE_DIR, else $XDG_CACHE_HOME/cureduce,
   * else ~/.cache/cureduce. A location that cannot be written is used from memory, with one
   * warning. */
  const char *cache_dir;
  /* 1: keep compiled kernels on disk (default); 0: memory only. */
  int disk_cache;
  /* Messages at or above this level go to log_callback, or to stderr when it is NULL.
   * Default: $CUREDUCE_LOG (off, error, warn, info, debug), else warn. */
  cureduce_log_level log_level;
  cureduce_log_callback log_callback;
  void *log_user_data;
  /* Workspace slots, the most streams that may run multi-block reductions at once. Default 16. */
  unsigned max_streams;
  /* 1: check that input and output are device-readable memory before each launch, since a host
   * pointer would fault the kernel and poison the whole CUDA context (default); 0: skip. */
  int check_pointers;
  /* Default CUREDUCE_TUNING_CACHED. The tuned configuration is part of a result's bitwise
   * identity: a new tune may change the last bits of a float sum. To pin results, use
   * CUREDUCE_TUNING_OFF, or copy the tuning database (cureduce-tune --export / --import). */
  cureduce_tuning tuning;
  /* Room for later fields; keep zero. */
  unsigned char reserved[64];
} cureduce_settings;

CUREDUCE_API void cureduce_default_settings(cureduce_settings *settings);

typedef struct cureduce_context cureduce_context;

/*
 * Loads the driver and NVRTC (NVRTC lazily: a warm cache needs none), retains the device's
 * primary context and allocates the workspace. settings may be NULL for the defaults.
 * A device older than sm_75 (Turing), the oldest that CUDA 13's NVRTC compiles for, gets
 * CUREDUCE_STATUS_UNSUPPORTED.
 */
CUREDUCE_API cureduce_status cureduce_context_create(cureduce_context **context,
                                                     const cureduce_settings *settings);
/* Frees the workspace and the loaded kernels. Work still queued on the context's streams must
 * have finished, and every plan of the context must be destroyed first. NULL is a no-op. */
CUREDUCE_API void cureduce_context_destroy(cureduce_context *context);

/* ---- Problems and plans ---------------------------------------------------------------------
 *
 * A problem says what is reduced; a plan is made from it once (its kernel loaded or compiled, its
 * configuration chosen: tuned, heuristic or pinned, its workspace size known) and executed any
 * number of times, on any stream, from any thread. cureduce_reduce() is the one-line shortcut
 * over plans that the context keeps for each (operation, types, size bucket).
 */

typedef enum cureduce_layout {
  /* n elements, one after another: one result. */
  CUREDUCE_LAYOUT_CONTIGUOUS = 0,
  /* A row-major matrix of `rows` rows of `cols` elements, row r starting at element
   * r * leading_dimension (leading_dimension >= cols): one result per row, result r at output
   * + r * cureduce_result_bytes(). */
  CUREDUCE_LAYOUT_ROWS = 1,
  /* The same matrix, one result per column (a strided vector is one column). */
  CUREDUCE_LAYOUT_COLUMNS = 2,
  /* `rows` segments, segment i the elements [begin[i], end[i]) of the input (none when end[i] <=
   * begin[i]), given at execution by two device arrays of int64 offsets, as CUB's
   * DeviceSegmentedReduce takes them: cureduce_plan_execute_segments(). One result per segment. */
  CUREDUCE_LAYOUT_SEGMENTS = 3
} cureduce_layout;

/*
 * Shaped layouts (rows, columns, segments) reduce every operation but exact_sum (not yet), each
 * result what cureduce_reduce() gives for that row, column or segment alone, argmin and argmax
 * with the index within it. Their plans take the tuned configuration of their shape class
 * (cureduce_tune_problems) where there is one. An empty row, column or segment gives the operation's identity:
 * sum 0, prod 1; min the type's largest value (+inf for floats), max its smallest (-inf);
 * argmin and argmax that same value with index -1; norm2 0, logsumexp -inf; the mean, variances
 * and standard deviations NaN (and a NaN mean).
 */
typedef struct cureduce_problem {
  cureduce_op op;
  cureduce_dtype input_type;
  cureduce_dtype output_type; /* the input type or the accumulator type (cureduce_check_types) */
  cureduce_layout layout;
  uint64_t n;                 /* CUREDUCE_LAYOUT_CONTIGUOUS: the number of elements; else 0 */
  uint64_t rows;              /* rows of the matrix, or the number of segments */
  uint64_t cols;              /* rows, columns: elements a row; segments: 0 */
  uint64_t leading_dimension; /* rows, columns: elements from one row's start to the next's */
  /* CUREDUCE_TRANSFORM_EXPRESSION, _PAIR_EXPRESSION: the map's text (copied by the plan); else NULL. */
  const char *expression;
  cureduce_transform transform; /* a map fused before the operation; 0: none */
  /* Room for later fields (accuracy modes, ...), each of which is zero when unused and so keeps
   * today's meaning; keep zero. A plan refuses a problem with any of it set. */
  unsigned char reserved[60];
} cureduce_problem;

/* A contiguous problem: every field set, reserved bytes zero. */
CUREDUCE_API void cureduce_problem_init(cureduce_problem *problem, cureduce_op op, cureduce_dtype input_type,
                                        cureduce_dtype output_type, uint64_t n);
/* A rows or columns problem (layout CUREDUCE_LAYOUT_ROWS or _COLUMNS). */
CUREDUCE_API void cureduce_problem_init_matrix(cureduce_problem *problem, cureduce_layout layout, cureduce_op op,
                                               cureduce_dtype input_type, cureduce_dtype output_type, uint64_t rows,
                                               uint64_t cols, uint64_t leading_dimension);
/* A segments problem of `segments` segments. */
CUREDUCE_API void cureduce_problem_init_segments(cureduce_problem *problem, cureduce_op op,
                                                 cureduce_dtype input_type, cureduce_dtype output_type,
                                                 uint64_t segments);
/* Results a problem gives (1 contiguous, rows, cols or segments), and the bytes from one result to
 * the next on the device: the output type's size, 16 for argmin/argmax, 24 for the variances and standard deviations (see
 * cureduce_value). */
CUREDUCE_API uint64_t cureduce_problem_results(const cureduce_problem *problem);
CUREDUCE_API size_t cureduce_result_bytes(cureduce_op op, cureduce_dtype output_type);

typedef struct cureduce_plan cureduce_plan;

/* Where a plan's kernel configuration came from. */
typedef enum cureduce_plan_origin {
  CUREDUCE_PLAN_HEURISTIC = 0, /* the built-in choice: nothing tuned for this size, or tuning off */
  CUREDUCE_PLAN_TUNED = 1,     /* the tuning database's choice for this GPU and size bucket */
  CUREDUCE_PLAN_PINNED = 2     /* the spec text given to cureduce_plan_create */
} cureduce_plan_origin;

/*
 * Makes a plan for `problem` on the context's device. spec NULL: the tuned configuration where the
 * context's tuning policy and database have one, else the heuristic (CUREDUCE_TUNING_ON_FIRST_USE
 * tunes only through cureduce_reduce, which has the caller's data). spec given: that kernel
 * configuration, pinned, e.g. "sum:f32->f32/single_pass/b256/u4/v16/g8" (what
 * cureduce_plan_describe() and cureduce-tune --list print); a malformed spec, one that is not a
 * production strategy, or one whose operation, types or layout are not the problem's, is
 * CUREDUCE_STATUS_INVALID_SPEC. Loads or compiles the kernel: may take milliseconds the first time.
 * A plan keeps the configuration it was made with (a later tune reaches only new plans), except a
 * shaped plan's tuning on first use (CUREDUCE_TUNING_ON_FIRST_USE).
 */
CUREDUCE_API cureduce_status cureduce_plan_create(cureduce_plan **plan, cureduce_context *context,
                                                  const cureduce_problem *problem, const char *spec);
/* NULL is a no-op. Executions still queued must have finished. */
CUREDUCE_API void cureduce_plan_destroy(cureduce_plan *plan);

/* Device memory an execution needs when the caller provides it: *bytes (0 when it needs none: a
 * grid of one block, a shaped plan whose blocks each write their own results) at an address
 * aligned to *alignment. */
CUREDUCE_API cureduce_status cureduce_plan_workspace_size(const cureduce_plan *plan, size_t *bytes,
                                                          size_t *alignment);

/*
 * Reduces the problem's n elements at `input` into `output` (as cureduce_reduce says), on
 * `stream`, asynchronously: no allocation, no synchronization.
 *
 * workspace NULL: the context's workspace, the stream's slot (see cureduce_release_stream). It is
 * refused (CUREDUCE_STATUS_INVALID_ARGUMENT) while the stream is being captured into a CUDA graph
 * and the plan needs workspace: a graph would keep the slot and race with the stream's later calls.
 * workspace given: at least cureduce_plan_workspace_size() bytes of device memory, aligned; the
 * execution uses nothing else, so there is no per-stream state. One execution may use a given
 * workspace at a time (executions on one stream are ordered; elsewhere, give each its own).
 * Any content will do: each execution re-arms it on its stream before the kernel.
 *
 * Shaped problems: `input` is the matrix's first element (or the segments' element 0), `output`
 * has room for cureduce_problem_results() results. A plan whose workspace is larger than a slot
 * of the context's (132,096 bytes; some column and split-row plans) needs a caller workspace:
 * without one the call is refused with CUREDUCE_STATUS_INVALID_ARGUMENT.
 */
CUREDUCE_API cureduce_status cureduce_plan_execute(const cureduce_plan *plan, const void *input, void *output,
                                                   void *workspace, size_t workspace_bytes, void *stream);
/* The same for a plan whose transform takes two inputs (CUREDUCE_TRANSFORM_PRODUCT,
 * _PAIR_EXPRESSION; cureduce_plan_execute refuses it): x and y, each n elements of the input type
 * (a rows or columns problem: two matrices of the problem's shape and leading dimension), each
 * aligned to its element (not necessarily alike: inputs that lie equally far from a 16-byte
 * boundary are read in whole vectors, others element by element, slower). */
CUREDUCE_API cureduce_status cureduce_plan_execute_pair(const cureduce_plan *plan, const void *x, const void *y,
                                                        void *output, void *workspace, size_t workspace_bytes,
                                                        void *stream);
/* The same for a segments plan (which cureduce_plan_execute refuses): begin_offsets and
 * end_offsets are device arrays of the problem's `rows` int64 offsets, 8-byte aligned, each
 * segment within the input. */
CUREDUCE_API cureduce_status cureduce_plan_execute_segments(const cureduce_plan *plan, const void *input,
                                                            const int64_t *begin_offsets,
                                                            const int64_t *end_offsets, void *output,
                                                            void *workspace, size_t workspace_bytes, void *stream);
/* And for a segments plan of a map of two inputs: segment i is elements begin_offsets[i] to
 * end_offsets[i] of x, each with the same element of y. */
CUREDUCE_API cureduce_status cureduce_plan_execute_pair_segments(const cureduce_plan *plan, const void *x,
                                                                 const void *y, const int64_t *begin_offsets,
                                                                 const int64_t *end_offsets, void *output,
                                                                 void *workspace, size_t workspace_bytes,
                                                                 void *stream);

typedef struct cureduce_plan_info {
  char spec[112];                /* e.g. "sum:f32->f32/single_pass/b256/u4/v16/g8" */
  cureduce_plan_origin origin;
  unsigned grid, block;          /* the launch for the problem: blocks along x, threads a block */
  size_t workspace_bytes, workspace_alignment;
  unsigned grid_y;               /* blocks along y: splits of a row, segment or column range; else 1 */
  unsigned char reserved[28];
} cureduce_plan_info;

/* What the plan runs. */
CUREDUCE_API cureduce_status cureduce_plan_describe(const cureduce_plan *plan, cureduce_plan_info *info);

/*
 * Makes ready (loaded, compiled when the cache misses) every kernel that plans for these problems
 * and cureduce_reduce() on them would use, so that the first execution costs only a launch: call
 * it before capturing a graph or timing. Stops at the first problem that fails. With
 * CUREDUCE_TUNING_ON_FIRST_USE an untuned bucket is still tuned at its first cureduce_reduce(),
 * which may then choose another kernel (and synchronizes: not during a capture).
 */
CUREDUCE_API cureduce_status cureduce_precompile(cureduce_context *context, const cureduce_problem *problems,
                                                 size_t count);

/* ---- Exact partials ----------------------------------------------------------------------------
 *
 * exact_sum with output type i64 writes, in place of the rounded value, the exact sum itself:
 * cureduce_exact_partial_words(input_type) signed 64-bit words (8-byte aligned device memory), a
 * fixed-point integer in 32-bit digits (digit d worth 2^(base + 32 d), each in [-2^31, 2^31) but
 * the highest) followed by the counts of NaNs, +infinities and -infinities. Every configuration
 * and GPU writes the same words for the same inputs. The partials of any parts of an input (across
 * GPUs, streams or calls) add word by word as 64-bit integers, in any order and grouping, to the
 * partial of the whole -- up to 2^31 of them -- e.g. with NCCL: ncclAllReduce(words, words, count,
 * ncclInt64, ncclSum, ...). cureduce_exact_partial_round then rounds the total once, on the host,
 * exactly as exact_sum would have rounded the whole. cureduce_reduce_to_host refuses i64 output.
 */

/* Words of an exact partial of this input type: 35 for f16, bf16 and f32, 99 for f64; 0 for
 * integer types. */
CUREDUCE_API size_t cureduce_exact_partial_words(cureduce_dtype input_type);

/* Rounds a (combined) exact partial of `input_type` once to `output_type` (a type exact_sum of
 * that input gives, not i64), ties to even, into *result (value only; index -1). words: host
 * memory, cureduce_exact_partial_words(input_type) of them. A NaN or infinity count below zero
 * is CUREDUCE_STATUS_INVALID_ARGUMENT: that is not a sum of partials. */
CUREDUCE_API cureduce_status cureduce_exact_partial_round(const int64_t *words, cureduce_dtype input_type,
                                                          cureduce_dtype output_type, cureduce_value *result);

/* ---- The shortcut ------------------------------------------------------------------------------ */

/*
 * Reduces n elements of `input` (device memory, aligned to its element type) into one value of
 * type `output_type` at `output` (device memory; see cureduce_value for result records), on
 * `stream`, with the context's own plan for the size bucket of n and the stream's workspace slot.
 * Asynchronous: returns once the kernel is queued. Stream NULL is the legacy default stream; pass
 * CU_STREAM_PER_THREAD (cudaStreamPerThread) for the per-thread one.
 *
 * Semantics: sum of 0 elements is 0, prod of 0 elements is 1, norm2 0, logsumexp -inf; min, max,
 * argmin, argmax, the mean, variances and standard deviations of 0 elements fail with
 * CUREDUCE_STATUS_EMPTY_INPUT. min and max propagate NaN; argmin and argmax
 * return the index of the first NaN when there is one, else of the first extreme element (ties go
 * to the smallest index). -0.0 orders below +0.0, as IEEE 754-2019's minimum and maximum say.
 *
 * The first call for a (operation, types, size range) compiles its kernel unless the kernel cache
 * holds it; later calls cost one kernel launch. During graph capture a call that needs workspace
 * is refused (see cureduce_plan_execute): capture a plan with a workspace of your own instead.
 */
CUREDUCE_API cureduce_status cureduce_reduce(cureduce_context *context, cureduce_op op,
                                             cureduce_dtype input_type, const void *input, size_t n,
                                             cureduce_dtype output_type, void *output,
                                             void *stream);

/* The same, with the result brought back to the host: waits for `stream` to finish. Each call has
 * a result cell of its own, so threads sharing one stream each get their own result. */
CUREDUCE_API cureduce_status cureduce_reduce_to_host(cureduce_context *context, cureduce_op op,
                                                     cureduce_dtype input_type, const void *input,
                                                     size_t n, cureduce_dtype output_type,
                                                     cureduce_value *result, void *stream);

/*
 * Tunes (op, input_type, output_type) for every size bucket (bit length) from min_n's to max_n's:
 * times candidate kernels on random data (floats within 8 binades) in device memory it allocates
 * for the purpose, keeps the fastest per bucket (never one slower than the heuristic by its own
 * re-measurement), and stores them in the tuning database beside the kernel cache, where every
 * later context on this GPU finds them. quick: a small space. Synchronizes; takes from
 * milliseconds to seconds.
 */
CUREDUCE_API cureduce_status cureduce_tune(cureduce_context *context, cureduce_op op, cureduce_dtype input_type,
                                           cureduce_dtype output_type, size_t min_n, size_t max_n, int quick);

/*
 * Tunes problems as cureduce_tune() tunes sizes: for each, the candidate configurations of its
 * shape timed on random data of that shape in device memory it allocates for the purpose
 * (segments: `rows` segments back to back, each segment_length elements long; matrices: leading
 * dimension as the problem says; a whole array: its n; a map of two inputs: x and y alike), the
 * fastest kept, never one slower than
 * the heuristic by its own re-measurement. A choice serves every problem of its class: the same
 * operation, transform (an expression: the same text), types and layout; a whole array's size
 * bucket (the bit length of n), measured at its n alone; the same bit length of rows (or
 * segments), and the same row length where rows are at most 256 bytes (their length is compiled
 * into the kernel) or the same bit length of it otherwise, padded rows apart from unpadded ones.
 * The way to tune transformed whole arrays, which cureduce_tune() and cureduce-tune's buckets do
 * not take. A tuned plan never needs a workspace of the caller's where the heuristic's plan needed
 * none. exact_sum takes no shapes. Synchronizes; takes milliseconds to seconds per problem.
 */
CUREDUCE_API cureduce_status cureduce_tune_problems(cureduce_context *context, const cureduce_problem *problems,
                                                    size_t count, uint64_t segment_length, int quick);

/* Gives back the workspace slot of `stream`, so that another stream may use it. The stream's
 * queued reductions must have finished. Call it before destroying a stream that reduced. */
CUREDUCE_API cureduce_status cureduce_release_stream(cureduce_context *context, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* CUREDUCE_CUREDUCE_H */
