/* A kernel specification: what one generated kernel computes (operation, types), how
 * (strategy, block size, loads in flight, load width), and how it is launched (blocks per SM).
 * Its text form, e.g. "sum:f32->f32/single_pass/b256/u4/v16/g8", or with a transform
 * "max:abs(bf16)->bf16/single_pass/b256/u4/v16/g8" (a user map: "sum:expression.<16 hex digits of its
 * digest>(f32)->f32/..."), is what tools print and parse. */
#ifndef CUREDUCE_SPEC_H
#define CUREDUCE_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cureduce/cureduce.h"

/* How a strategy finishes: in one launch (the last block folds the partials), or the classic way,
 * launching again over the partials until one block is left. */
typedef enum cureduce_passes { CUREDUCE_PASSES_SINGLE, CUREDUCE_PASSES_CLASSIC } cureduce_passes;

/* How many elements one block takes: one, two or `unroll` per thread, a grid-stride loop over
 * the whole input with a grid sized to the device, or a part of a shape (shape.h sizes it). */
typedef enum cureduce_coverage {
  CUREDUCE_COVER_ONE_PER_THREAD,
  CUREDUCE_COVER_TWO_PER_THREAD,
  CUREDUCE_COVER_UNROLL_PER_THREAD,
  CUREDUCE_COVER_GRID_STRIDE,
  CUREDUCE_COVER_SHAPE
} cureduce_coverage;

/* X(ID, name, template file, passes, coverage, layout, what it changes). Rungs 0 to 11 are the
 * classic reduce ladder; SINGLE_PASS is the production strategy for contiguous problems, the
 * others after it are the families for shaped ones (shape.h chooses among them). */
#define CUREDUCE_STRATEGY_LIST(X)                                                                              \
  X(SINGLE_PASS, "single_pass", "single_pass.cu", SINGLE, GRID_STRIDE, CONTIGUOUS,                              \
    "one launch: 16-byte loads in flight, shuffles, the last block folds the partials")                         \
  X(ROW_GROUPS, "row_groups", "row_groups.cu", SINGLE, SHAPE, ROWS,                                             \
    "rows: t threads a row (1 to 32), several rows in flight, shuffles within the group")                      \
  X(ROW_BLOCKS, "row_blocks", "row_blocks.cu", SINGLE, SHAPE, ROWS,                                             \
    "rows: s blocks a row, the last of them folds the row's partials")                                         \
  X(SEGMENT_GROUPS, "segment_groups", "row_groups.cu", SINGLE, SHAPE, SEGMENTS,                                 \
    "segments: t threads a segment (1 to 32)")                                                                  \
  X(SEGMENT_BLOCKS, "segment_blocks", "row_blocks.cu", SINGLE, SHAPE, SEGMENTS,                                 \
    "segments: up to s blocks a segment, as its length needs")                                                  \
  X(COLUMN_TILES, "column_tiles", "column_tiles.cu", SINGLE, SHAPE, COLUMNS,                                    \
    "columns: tiles of t threads across whole vectors of columns, s blocks down the rows")                     \
  X(RUNG0, "rung0_serial", "rung_00_serial.cu", CLASSIC, ONE_PER_THREAD, CONTIGUOUS, "serial: one thread per block")        \
  X(RUNG1, "rung1_global_interleaved", "rung_01_global_interleaved.cu", CLASSIC, ONE_PER_THREAD, CONTIGUOUS,               \
    "interleaved tree in global memory")                                                                         \
  X(RUNG2, "rung2_shared_interleaved", "rung_02_shared_interleaved.cu", CLASSIC, ONE_PER_THREAD, CONTIGUOUS,               \
    "tree in shared memory (divergent)")                                                                         \
  X(RUNG3, "rung3_shared_strided", "rung_03_shared_strided.cu", CLASSIC, ONE_PER_THREAD, CONTIGUOUS,                       \
    "strided index (bank conflicts)")                                                                            \
  X(RUNG4, "rung4_sequential", "rung_04_sequential.cu", CLASSIC, ONE_PER_THREAD, CONTIGUOUS, "sequential addressing")      \
  X(RUNG5, "rung5_first_add", "rung_05_first_add.cu", CLASSIC, TWO_PER_THREAD, CONTIGUOUS, "first add during load")        \
  X(RUNG6, "rung6_unrolled_last_warp", "rung_06_unrolled_last_warp.cu", CLASSIC, TWO_PER_THREAD, CONTIGUOUS,               \
    "last warp unrolled")                                                                                        \
  X(RUNG7, "rung7_complete_unroll", "rung_07_complete_unroll.cu", CLASSIC, TWO_PER_THREAD, CONTIGUOUS,                     \
    "completely unrolled")                                                                                       \
  X(RUNG8, "rung8_several_per_thread", "rung_08_several_per_thread.cu", CLASSIC, UNROLL_PER_THREAD, CONTIGUOUS,            \
    "several elements per thread")                                                                               \
  X(RUNG9, "rung9_shuffle_last_warp", "rung_09_shuffle_last_warp.cu", CLASSIC, UNROLL_PER_THREAD, CONTIGUOUS,              \
    "shuffles for the last warp")                                                                                \
  X(RUNG10, "rung10_warp_shuffle_block", "rung_10_warp_shuffle_block.cu", CLASSIC, UNROLL_PER_THREAD, CONTIGUOUS,          \
    "warp-shuffle block fold")                                                                                   \
  X(RUNG11, "rung11_vector_grid_stride", "rung_11_vector_grid_stride.cu", CLASSIC, GRID_STRIDE, CONTIGUOUS,                \
    "16-byte loads, grid-stride loop")

typedef enum cureduce_strategy {
#define CUREDUCE_STRATEGY_ENUM(id, name, file, passes, coverage, layout, what) CUREDUCE_STRATEGY_##id,
  CUREDUCE_STRATEGY_LIST(CUREDUCE_STRATEGY_ENUM)
#undef CUREDUCE_STRATEGY_ENUM
  CUREDUCE_STRATEGY_COUNT
} cureduce_strategy;

/* Every field is a fixed-width integer and the layout has no padding, so specs compare and
 * hash as bytes. */
typedef struct cureduce_spec {
  uint8_t op;           /* cureduce_op */
  uint8_t input;        /* cureduce_dtype */
  uint8_t output;       /* cureduce_dtype */
  uint8_t strategy;     /* cureduce_strategy */
  uint16_t block;       /* threads per block: a multiple of 32, 32 to 1024 */
  uint8_t unroll;       /* loads in flight per thread: 1 to 16 */
  uint8_t vector_bytes; /* bytes per load: a power of two from the element size to 16 */
  uint16_t blocks_per_sm; /* launch only: the grid is at most this many blocks per SM */
  /* Shaped strategies only, 0 for the others. group: threads a row or segment (row_groups,
   * segment_groups: 1 to 32), threads across the columns of a tile (column_tiles: 1 to block).
   * cols: a row length compiled into the kernel (row_groups), 0 to read it at run time; or the
   * columns of packed column tiles, rows back to back and several to a load (column_tiles).
   * splits: launch only, blocks a row or segment at most (row_blocks, segment_blocks), blocks
   * down the rows (column_tiles): 1 to 65535. */
  uint16_t group;
  uint32_t cols;
  uint32_t splits;
  uint8_t transform;   /* cureduce_transform: the map fused before the operation, 0 for none */
  uint8_t unused[3];   /* zero */
  uint64_t expression; /* CUREDUCE_TRANSFORM_EXPRESSION: the text's digest (expression.h); else 0 */
} cureduce_spec;

/* The longest row length a row_groups kernel may have compiled in: rows of at most this many bytes
 * (shape.c), so at most 256 / element size compiled lengths exist for one (operation, types). */
#define CUREDUCE_COMPILED_ROW_BYTES_MAX 256

/* Packed column tiles load this many bytes, each several whole rows (column_tiles.cu). */
#define CUREDUCE_PACKED_LOAD_BYTES 16

/* Longest text form, with its terminating NUL. */
#define CUREDUCE_SPEC_TEXT_MAX 112

const char *cureduce_strategy_name(cureduce_strategy strategy);
const char *cureduce_strategy_template(cureduce_strategy strategy);
const char *cureduce_strategy_description(cureduce_strategy strategy);
cureduce_passes cureduce_strategy_passes(cureduce_strategy strategy);
/* What plans, the tuner and the tuning database may use: strategies that finish in one launch
 * within a workspace the plan sizes. The classic ladder's rungs are a teaching module (ladder.h). */
bool cureduce_strategy_is_production(cureduce_strategy strategy);
cureduce_coverage cureduce_strategy_coverage(cureduce_strategy strategy);
/* The problem layout a strategy reduces. */
cureduce_layout cureduce_strategy_layout(cureduce_strategy strategy);
/* Whether the columns of a matrix of `rows` rows may also run under a row strategy, as the rows of
 * one element they are: a matrix of one row's (shape.c, one_row_columns), but an exact sum's,
 * whose kernels are their own. */
bool cureduce_columns_run_as_rows(cureduce_op op, uint64_t rows);
/* The longest length, in elements of `input`, that a kernel of the layout may compile in: a row
 * of at most CUREDUCE_COMPILED_ROW_BYTES_MAX bytes (row_groups), a row of columns shorter than a
 * packed load (column_tiles); 0 for segments and whole arrays. Each such length is a tuning class
 * of its own (tunedb.c). */
size_t cureduce_compiled_length_max(cureduce_layout layout, cureduce_dtype input);
/* exact_sum's kernels of shapes: a block a row or segment, split or not (exact_rows.cu); a warp a
 * column, its rows split or not (column_tiles t32: exact_columns.cu); a group of lanes a short row
 * or segment, or a thread a short column (row and segment groups, column_tiles t1:
 * exact_groups.cu). */
typedef enum cureduce_exact_kernel {
  CUREDUCE_EXACT_BLOCK_ROWS,
  CUREDUCE_EXACT_WARP_COLUMNS,
  CUREDUCE_EXACT_GROUPS,
} cureduce_exact_kernel;
cureduce_exact_kernel cureduce_exact_kernel_of(const cureduce_spec *spec);
/* The threads an SM holds of column tiles at most, their kernels compiled for it (launch bounds'
 * least blocks an SM): left to itself ptxas sized a tile kernel's registers for more blocks (38-40
 * registers at 256 threads) and kept three of a thread's eight 16-byte loads in flight (H200, ptxas
 * 13.0, in the SASS); held to half an SM's threads it takes ~60 registers and keeps all eight. */
enum { CUREDUCE_COLUMN_THREADS_PER_SM = 1024 };
/* The least blocks an SM the spec's kernel is compiled for (its launch bounds), 0 for no bound:
 * CUREDUCE_COLUMN_THREADS_PER_SM's worth for column tiles whose accumulators take at most 8 bytes a
 * column (sums, products, minima, maxima, f32's norm2 and logsumexp), none for others. */
unsigned cureduce_spec_min_blocks_per_sm(const cureduce_spec *spec);
/* Bytes of one accumulator on the device: what a partial takes. */
size_t cureduce_accumulator_bytes(cureduce_op op, cureduce_transform transform, cureduce_dtype input);

/* OK when every field is in range and the types go together. */
cureduce_status cureduce_spec_validate(const cureduce_spec *spec);
/* The same for the fields that shape the compiled kernel; the launch-only ones are not looked at. */
cureduce_status cureduce_spec_validate_kernel(const cureduce_spec *spec);
/* cureduce_spec_validate, and a production strategy. */
cureduce_status cureduce_spec_validate_production(const cureduce_spec *spec);
/* The spec with its launch-only fields cleared: what identifies the compiled kernel. */
cureduce_spec cureduce_spec_kernel_part(const cureduce_spec *spec);
/* Adds spec's kernel part, made a valid spec again (one block an SM, one split), to parts[0..*count)
 * unless it is there, counting it: what a list of specs has to compile. The caller makes room. */
void cureduce_spec_add_kernel_part(cureduce_spec *parts, size_t *count, const cureduce_spec *spec);
bool cureduce_spec_equal(const cureduce_spec *a, const cureduce_spec *b);

void cureduce_spec_format(const cureduce_spec *spec, char text[CUREDUCE_SPEC_TEXT_MAX]);
/* Parses the text form; INVALID_SPEC with the reason for anything else. */
cureduce_status cureduce_spec_parse(const char *text, cureduce_spec *spec);

/* The heuristic choice until the tuner has measured: the single-pass strategy, 256 threads,
 * 16-byte loads, four in flight, and a grid that fills every SM. */
cureduce_spec cureduce_spec_heuristic(cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                                      int max_threads_per_sm);
/* The same shape for any strategy, within what it accepts: the ladder's rungs load single
 * elements, rungs 8 to 10 take 8 per thread. */
cureduce_spec cureduce_spec_for_strategy(cureduce_strategy strategy, cureduce_op op, cureduce_dtype input,
                                         cureduce_dtype output, int max_threads_per_sm);

#endif
