#include "dtype.h"
#include "problem.h"
#include "shape.h"

#include "error.h"
#include "execute.h"
#include "workspace.h"

static size_t ceil_div(size_t a, size_t b) { return a / b + (a % b != 0); }
static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }
static size_t max_size(size_t a, size_t b) { return a > b ? a : b; }
static unsigned power_of_two_at_least(size_t x) {
  unsigned p = 1;
  while (p < x && p < (1u << 30))
    p <<= 1;
  return p;
}

/* Rows of at most GROUP_ROW_BYTES_MAX bytes go to groups of at most a warp, longer ones to whole
 * blocks. */
enum { GROUP_ROW_BYTES_MAX = 16384, SHAPED_BLOCK = 256 };

/* The widest load (16 bytes at most) that divides every byte distance the kernel steps: row
 * pitches and, for rows, row lengths. Rows not aligned at run time are read element by element
 * (row_groups, column_tiles) or take a scalar head (row_blocks). */
static unsigned vector_bytes_for(size_t element, size_t leading_bytes, size_t row_bytes) {
  unsigned bytes = 16;
  while (bytes > element && ((leading_bytes % bytes) != 0 || (row_bytes % bytes) != 0 || row_bytes < bytes))
    bytes /= 2;
  return bytes;
}

/* The spec's blocks an SM holds at once (32 at most), no more than its kernel is compiled for
 * (column tiles: cureduce_spec_min_blocks_per_sm, which ptxas may fill with registers). */
static uint16_t blocks_per_sm_of(const cureduce_spec *spec, int max_threads_per_sm) {
  unsigned per_sm = spec->block ? (unsigned)max_threads_per_sm / spec->block : 0;
  unsigned compiled_for = cureduce_spec_min_blocks_per_sm(spec);
  if (compiled_for && compiled_for < per_sm)
    per_sm = compiled_for;
  return (uint16_t)(per_sm < 1 ? 1 : per_sm > 32 ? 32 : per_sm);
}

static cureduce_spec base_spec(const cureduce_problem *problem, cureduce_strategy strategy, unsigned block,
                               int max_threads_per_sm) {
  cureduce_spec spec = {.op = (uint8_t)problem->op,
                        .input = (uint8_t)problem->input_type,
                        .output = (uint8_t)problem->output_type,
                        .strategy = (uint8_t)strategy,
                        .block = (uint16_t)block,
                        .unroll = 4,
                        .vector_bytes = 16,
                        .splits = 1,
                        .transform = (uint8_t)problem->transform,
                        .expression = cureduce_problem_expression(problem)};
  spec.blocks_per_sm = blocks_per_sm_of(&spec, max_threads_per_sm);
  return spec;
}

/* Elements a block reads in one round of its loads. */
static size_t round_elements(const cureduce_spec *spec) {
  return (size_t)spec->block * spec->unroll * (spec->vector_bytes / cureduce_dtype_size(spec->input));
}

/* Splits that give `rows` rows a device of blocks at most, so that every row runs at once where
 * the rows are fewer than the device's blocks (one more split a row would leave a few rows for a
 * second pass on an idle device), each split at least one round of loads of a row of `length`
 * elements, within `most`. */
static unsigned splits_for(size_t rows, size_t length, const cureduce_spec *spec, int sm_count, size_t most) {
  size_t blocks = (size_t)sm_count * spec->blocks_per_sm;
  size_t splits = min_size(min_size(blocks / max_size(rows, 1), ceil_div(length, round_elements(spec))), most);
  return (unsigned)max_size(min_size(splits, 65535), 1);
}

/* Blocks for `units` of work taken in turn by a grid of at most `slots`: as few as do it in the
 * same number of passes, so that every block takes as many units (1056 slots for 2048 rows: 1024
 * blocks of two rows, not 1056 of which 992 take a second). */
static size_t even_passes(size_t units, size_t slots) {
  size_t passes = ceil_div(units, max_size(slots, 1));
  return max_size(ceil_div(units, max_size(passes, 1)), 1);
}

/* Workspace of a slot that a shaped launch may fill: past the always-zero area (execute.h). */
static const size_t slot_partials_bytes = CUREDUCE_WORKSPACE_MAX_BYTES - CUREDUCE_WORKSPACE_PARTIALS - 4096;

/* argmin and argmax columns of keys of 32 bits or fewer and fewer than 2^32 - 1 rows fold their
 * splits into one 8-byte word a column, armed like the tickets (column_tiles.cu, split_word),
 * so their splits take no more workspace than one split's. */
enum { SPLIT_WORD_BYTES = 8 };
static const uint64_t split_word_rows_below = 0xffffffffull; /* split_word::rows_below */
static bool column_split_words(const cureduce_problem *problem) {
  return cureduce_op_is_arg(problem->op) &&
         cureduce_dtype_size(cureduce_mapped_type(problem->transform, problem->input_type)) <= 4 &&
         problem->rows < split_word_rows_below;
}

/* Workspace bytes of a columns launch's partials: a word a column, or an accumulator a column a split. */
static size_t column_partials_bytes(const cureduce_problem *problem, size_t splits) {
  if (column_split_words(problem))
    return problem->cols * SPLIT_WORD_BYTES;
  return problem->cols * splits * cureduce_accumulator_bytes(problem->op, problem->transform, problem->input_type);
}

/* A row of at most ROW_UNSPLIT_ROUNDS rounds of a block's loads is one block's. Splitting it saves
 * rounds, each a trip to memory (some 0.4 us from L2 on an H200), but then the row's last block
 * folds the splits after a fence and a ticket (some 1.5 us), about what three rounds more cost. */
enum { ROW_UNSPLIT_ROUNDS = 4 };

/* Long rows: a block or several a row, as many as give the rows about a device of blocks within
 * what a slot's partials hold; one where the row takes a block few rounds. */
static cureduce_spec row_blocks_spec(const cureduce_problem *problem, int sm_count, int max_threads_per_sm) {
  cureduce_spec spec = base_spec(problem, CUREDUCE_STRATEGY_ROW_BLOCKS, SHAPED_BLOCK, max_threads_per_sm);
  if (ceil_div(problem->cols, round_elements(&spec)) <= ROW_UNSPLIT_ROUNDS)
    return spec;
  size_t accumulator = cureduce_accumulator_bytes(problem->op, problem->transform, problem->input_type);
  spec.splits = (uint16_t)splits_for(problem->rows, problem->cols, &spec, sm_count,
                                     slot_partials_bytes / max_size(problem->rows, 1) / (accumulator + 4));
  return spec;
}

/* Rows of a group of lanes each, the row length compiled in where the row is short. */
static cureduce_spec row_groups_spec(const cureduce_problem *problem, int max_threads_per_sm) {
  size_t element = cureduce_dtype_size(problem->input_type);
  size_t row_bytes = problem->cols * element, leading_bytes = problem->leading_dimension * element;
  cureduce_spec spec = base_spec(problem, CUREDUCE_STRATEGY_ROW_GROUPS, SHAPED_BLOCK, max_threads_per_sm);
  if (problem->cols > cureduce_compiled_length_max(CUREDUCE_LAYOUT_ROWS, problem->input_type)) {
    /* As many lanes as keep four loads in flight each, a warp at most: a warp on a 512-byte row
     * would have one load a lane and no more in flight. */
    spec.group = (uint16_t)min_size(power_of_two_at_least(row_bytes / (16 * spec.unroll)), 32);
    return spec;
  }
  spec.cols = (uint32_t)problem->cols;
  if (row_bytes && row_bytes < 16 && 16 % row_bytes == 0 && problem->leading_dimension == problem->cols) {
    spec.group = 1; /* rows back to back, several to a 16-byte load (row_groups.cu, packed_rows) */
    return spec;
  }
  /* A row compiled in: a lane's share is a vector or less, and rows in flight make up ~64 bytes
   * a thread, enough to cover the memory's latency at full occupancy. */
  spec.vector_bytes = (uint8_t)vector_bytes_for(element, leading_bytes, row_bytes);
  size_t vector_elements = spec.vector_bytes / element;
  spec.group = (uint16_t)min_size(power_of_two_at_least(ceil_div(problem->cols, vector_elements)), 32);
  size_t lane_bytes = max_size(ceil_div(row_bytes, spec.group), 1);
  spec.unroll = (uint8_t)max_size(min_size(64 / lane_bytes, 16), 2);
  return spec;
}

/* exact_sum of rows or segments: blocks a row or segment (exact_rows.cu), split where the rows are
 * too few to fill the device and a slot holds their words and tickets (more rows fill it unsplit). */
static cureduce_spec exact_blocks_spec(const cureduce_problem *problem, int sm_count, int max_threads_per_sm) {
  cureduce_strategy strategy =
      problem->layout == CUREDUCE_LAYOUT_SEGMENTS ? CUREDUCE_STRATEGY_SEGMENT_BLOCKS : CUREDUCE_STRATEGY_ROW_BLOCKS;
  cureduce_spec spec = base_spec(problem, strategy, SHAPED_BLOCK, max_threads_per_sm);
  size_t words = cureduce_accumulator_bytes(CUREDUCE_OP_EXACT_SUM, CUREDUCE_TRANSFORM_NONE, problem->input_type);
  size_t length = problem->layout == CUREDUCE_LAYOUT_SEGMENTS ? SIZE_MAX / 2 : problem->cols; /* on the device */
  if (problem->rows <= slot_partials_bytes / (words + 4))
    spec.splits = (uint16_t)splits_for(problem->rows, length, &spec, sm_count, 65535);
  return spec;
}

/* exact_sum of columns: tiles of a warp a column (exact_columns.cu: t32, one element a load), the
 * rows split where the tiles are too few to fill the device and a slot holds their words and
 * tickets, each warp keeping at least a round of loads a split. */
static cureduce_spec exact_columns_spec(const cureduce_problem *problem, int sm_count, int max_threads_per_sm) {
  cureduce_spec spec = base_spec(problem, CUREDUCE_STRATEGY_COLUMN_TILES, SHAPED_BLOCK, max_threads_per_sm);
  spec.group = 32;
  spec.vector_bytes = (uint8_t)cureduce_dtype_size(problem->input_type);
  size_t words = cureduce_accumulator_bytes(CUREDUCE_OP_EXACT_SUM, CUREDUCE_TRANSFORM_NONE, problem->input_type);
  size_t warps = spec.block / 32, tiles = ceil_div(problem->cols, warps);
  if (tiles * (warps * words + 4) <= slot_partials_bytes) {
    size_t blocks = (size_t)sm_count * spec.blocks_per_sm;
    size_t splits = min_size(ceil_div(blocks, max_size(tiles, 1)), ceil_div(problem->rows, 32u * spec.unroll));
    spec.splits = (uint16_t)max_size(min_size(splits, 65535), 1);
  }
  return spec;
}

/* exact_sum of short rows or segments (groups of lanes) or short columns (a thread a column):
 * exact_groups.cu, one element a load. A row's lanes take about 16 elements each, a warp at most:
 * each reads its share twice (its largest exponent, then the sum), and a row's result costs each
 * of its lanes a rounding. */
enum { EXACT_GROUP_LANE_ELEMENTS = 16 };
static cureduce_spec exact_groups_spec(const cureduce_problem *problem, int max_threads_per_sm) {
  bool columns = problem->layout == CUREDUCE_LAYOUT_COLUMNS;
  cureduce_strategy strategy = columns                                         ? CUREDUCE_STRATEGY_COLUMN_TILES
                               : problem->layout == CUREDUCE_LAYOUT_SEGMENTS ? CUREDUCE_STRATEGY_SEGMENT_GROUPS
                                                                               : CUREDUCE_STRATEGY_ROW_GROUPS;
  cureduce_spec spec = base_spec(problem, strategy, SHAPED_BLOCK, max_threads_per_sm);
  spec.vector_bytes = (uint8_t)cureduce_dtype_size(problem->input_type);
  size_t length = columns ? problem->rows : problem->layout == CUREDUCE_LAYOUT_SEGMENTS ? 64 : problem->cols;
  spec.group = columns ? 1 : (uint16_t)min_size(power_of_two_at_least(ceil_div(length, EXACT_GROUP_LANE_ELEMENTS)), 32);
  spec.unroll = (uint8_t)min_size(power_of_two_at_least(ceil_div(length, spec.group)), 8);
  return spec;
}

/* exact_sum: groups for rows of up to EXACT_GROUP_ROW_MAX elements (a warp a row, 32 elements a
 * lane: on an H200 at 2^20 f32, a block a row took 18 us for rows of 1024, groups 9.4 for rows of
 * 512 where blocks took 13) and columns of up to EXACT_THREAD_COLUMN_MAX (a thread reads its column
 * alone: longer ones wait on their loads); otherwise blocks a row or segment (exact_rows.cu) or a
 * warp a column (above), split where the rows are too few to fill the device and a slot holds
 * their words and tickets. */
enum { EXACT_GROUP_ROW_MAX = 1024, EXACT_THREAD_COLUMN_MAX = 128 };
static cureduce_spec exact_spec(const cureduce_problem *problem, int sm_count, int max_threads_per_sm) {
  if (problem->layout == CUREDUCE_LAYOUT_COLUMNS)
    return problem->rows <= EXACT_THREAD_COLUMN_MAX ? exact_groups_spec(problem, max_threads_per_sm)
                                                     : exact_columns_spec(problem, sm_count, max_threads_per_sm);
  if (problem->layout == CUREDUCE_LAYOUT_ROWS && problem->cols <= EXACT_GROUP_ROW_MAX)
    return exact_groups_spec(problem, max_threads_per_sm);
  return exact_blocks_spec(problem, sm_count, max_threads_per_sm);
}

static cureduce_spec rows_heuristic(const cureduce_problem *problem, int sm_count, int max_threads_per_sm) {
  if (problem->cols * cureduce_dtype_size(problem->input_type) > GROUP_ROW_BYTES_MAX)
    return row_blocks_spec(problem, sm_count, max_threads_per_sm);
  return row_groups_spec(problem, max_threads_per_sm);
}

static cureduce_spec segments_heuristic(const cureduce_problem *problem, int sm_count, int max_threads_per_sm) {
  /* The lengths are on the device: each segment takes as many of the splits as its length needs
   * (row_blocks.cu), so that a long one in a heavy tail does not leave one block reading it
   * alone; few segments get a device of splits between them. Their partials and tickets are
   * the segments' own: past a few thousand segments, a workspace larger than a slot. */
  cureduce_spec spec = base_spec(problem, CUREDUCE_STRATEGY_SEGMENT_BLOCKS, SHAPED_BLOCK, max_threads_per_sm);
  spec.splits = (uint16_t)max_size(splits_for(problem->rows, SIZE_MAX / 2, &spec, sm_count, 1024), 8);
  return spec;
}

/* Columns: the loads an SM should keep in flight to cover the memory's latency (an H200 needs
 * about 30 KiB an SM at its read ceiling: 4.8 TB/s for ~0.8 us over 132 SMs; twice that for the
 * waits between a block's rounds), the splits of a tile's rows at most (the last block of a tile
 * folds them all), and the bytes of a memory line (a row of a tile reads whole lines). */
enum { COLUMN_BYTES_IN_FLIGHT_PER_SM = 64 * 1024, COLUMN_SPLITS_PER_SM = 2, LINE_BYTES = 128 };

/* A columns launch under trial: its tiles across a row, blocks, the rounds of loads each thread
 * takes, and the bytes the blocks keep in flight at once (the whole matrix at most). */
typedef struct {
  cureduce_spec spec;
  size_t tiles, blocks, wanted_blocks, thread_rounds, bytes_in_flight;
} column_fit;

/* The spec's tiles with their rows split as far as gives `wanted_blocks` in all and the blocks
 * stay one wave (a block of a second wave doubles the time of its tile's last split), each thread
 * a round of loads a split, the splits' partials within a slot and their fold short. */
static column_fit column_fit_of(const cureduce_problem *problem, cureduce_spec spec, size_t across, int sm_count) {
  size_t element = cureduce_dtype_size(problem->input_type), vector_elements = spec.vector_bytes / element;
  size_t down = spec.block / across, tiles = max_size(ceil_div(ceil_div(problem->cols, vector_elements), across), 1);
  size_t thread_loads = max_size(min_size(ceil_div(problem->rows, down), spec.unroll), 1);
  size_t block_bytes = (size_t)spec.block * thread_loads * spec.vector_bytes;
  size_t resident = (size_t)sm_count * spec.blocks_per_sm;
  size_t wanted = min_size(ceil_div((size_t)COLUMN_BYTES_IN_FLIGHT_PER_SM * sm_count, block_bytes), resident);
  size_t splits = min_size(min_size(ceil_div(wanted, tiles), max_size(resident / tiles, 1)),
                           ceil_div(problem->rows, down * spec.unroll));
  if (column_partials_bytes(problem, splits) > slot_partials_bytes)
    splits = slot_partials_bytes / max_size(column_partials_bytes(problem, 1), 1);
  splits = max_size(min_size(splits, (size_t)COLUMN_SPLITS_PER_SM * sm_count), 1);
  spec.group = (uint16_t)across;
  spec.splits = (uint16_t)splits;
  size_t blocks = tiles * splits, matrix_bytes = problem->rows * problem->cols * element;
  size_t thread_rounds = ceil_div(ceil_div(ceil_div(problem->rows, splits), down), spec.unroll);
  return (column_fit){spec, tiles, blocks, wanted, thread_rounds,
                      min_size(min_size(blocks, resident) * block_bytes, matrix_bytes)};
}

/* The most tiles across a row that a tile narrowed only to save a word splits may make (below). */
enum { SPLIT_WORD_TILES_ACROSS_MAX = 8 };

/* Whether a tile half as wide fits better: where it gives more of the blocks wanted; and where the
 * columns fold their splits into words (argmin and argmax), where it gives as many blocks with
 * fewer splits a word, while a word takes more splits than a thread takes rounds, up to 8 tiles
 * across a row; never, for split words, blocks past one wave. A word's atomics queue at one L2
 * address, and all its splits end together. On an H200 (% of the read floor): argmin u8 of
 * 2^18 x 1024 (31 rounds a thread) read 70.6% in 264 splits of one tile, 80.9% in 33 of eight;
 * bf16 there (62 rounds) 83.7% and 88.3%; f32 of 1024 x 1024 (in L2, a round) took 15.3 us back to
 * back in 128 splits, 9.4 in 16; f32 of 2^20 x 256 (124 rounds) read 88.7% in 264 splits, 88.6% in
 * 66 and 86.5% in 33 of eight tiles; f32 of 2^18 x 1024 88.3% in 8 tiles, 67.0% in 16 and 69.7% in
 * 32; argmin u8 of 4096 x 65536 74.4% in 512 tiles (two waves of two blocks an SM), 85.1% in 256.
 * Sums keep the tiles they were measured with. */
static bool narrower_fits_better(const column_fit *fit, const column_fit *narrower, size_t resident, bool words) {
  if (words && narrower->blocks > resident)
    return false;
  if (fit->blocks < fit->wanted_blocks && narrower->blocks > fit->blocks)
    return true;
  return words && narrower->blocks >= fit->blocks && narrower->spec.splits < fit->spec.splits &&
         fit->spec.splits > fit->thread_rounds && narrower->tiles <= SPLIT_WORD_TILES_ACROSS_MAX;
}

/* The widest tile, as wide as the block where the columns allow (one thread high: no fold down
 * the block), narrowed while narrower_fits_better: each row of a tile whole memory lines, and a
 * row of the matrix for each row of threads. */
static column_fit fit_column_tiles(const cureduce_problem *problem, cureduce_spec spec, int sm_count) {
  size_t column_vectors = ceil_div(problem->cols, spec.vector_bytes / cureduce_dtype_size(problem->input_type));
  size_t across = min_size(power_of_two_at_least(column_vectors), spec.block);
  size_t resident = (size_t)sm_count * spec.blocks_per_sm;
  bool words = column_split_words(problem);
  column_fit fit = column_fit_of(problem, spec, across, sm_count);
  while (across / 2 * spec.vector_bytes >= LINE_BYTES && spec.block / (across / 2) <= problem->rows) {
    column_fit narrower = column_fit_of(problem, spec, across / 2, sm_count);
    if (!narrower_fits_better(&fit, &narrower, resident, words))
      break;
    fit = narrower, across /= 2;
  }
  return fit;
}

/* The spec's tiles fitted in its blocks of 256, or in blocks of 1024 where those fall short of the
 * loads wanted and blocks of 1024 keep more in flight (tall matrices of few columns, whose splits
 * are capped; 1-byte columns, 8 a load); never for tagged key lanes (below). One block of 1024 an
 * SM, what the tile kernels are compiled for (on an H200, 136 and 160 blocks of 1024, f16, ran as
 * two waves at 65 and 73% of the read ceiling when two were counted on). */
static cureduce_spec fit_tile_blocks(const cureduce_problem *problem, cureduce_spec spec, bool tagged, int sm_count,
                                     int max_threads_per_sm) {
  column_fit fit = fit_column_tiles(problem, spec, sm_count);
  if (fit.blocks < fit.wanted_blocks && !tagged) {
    cureduce_spec larger = spec;
    larger.block = 1024, larger.blocks_per_sm = blocks_per_sm_of(&larger, max_threads_per_sm);
    column_fit large = fit_column_tiles(problem, larger, sm_count);
    if (large.bytes_in_flight > fit.bytes_in_flight)
      fit = large;
  }
  return fit.spec;
}

/* Whether the columns may be read packed (column_tiles.cu): rows back to back, each at most
 * most_row_bytes long and several whole ones to a 16-byte load, and a load's worth of them. */
static bool packs_columns(const cureduce_problem *problem, size_t most_row_bytes) {
  size_t element = cureduce_dtype_size(problem->input_type);
  if (problem->cols == 0 || problem->cols > cureduce_compiled_length_max(CUREDUCE_LAYOUT_COLUMNS, problem->input_type))
    return false;
  size_t row_bytes = problem->cols * element;
  return problem->op != CUREDUCE_OP_EXACT_SUM && problem->leading_dimension == problem->cols &&
         row_bytes <= most_row_bytes && CUREDUCE_PACKED_LOAD_BYTES % row_bytes == 0 &&
         problem->rows >= CUREDUCE_PACKED_LOAD_BYTES / row_bytes;
}

/* Packed columns: tiles one thread wide, fitted as those of the matrix of 16-byte rows the kernel
 * reads, the columns compiled in (c). */
static cureduce_spec packed_columns_spec(const cureduce_problem *problem, int sm_count, int max_threads_per_sm) {
  size_t element = cureduce_dtype_size(problem->input_type), row_bytes = problem->cols * element;
  cureduce_problem vectors = *problem;
  vectors.rows = problem->rows / (CUREDUCE_PACKED_LOAD_BYTES / row_bytes);
  vectors.cols = vectors.leading_dimension = CUREDUCE_PACKED_LOAD_BYTES / element;
  cureduce_spec spec = base_spec(problem, CUREDUCE_STRATEGY_COLUMN_TILES, SHAPED_BLOCK, max_threads_per_sm);
  spec.unroll = 8;
  spec = fit_tile_blocks(&vectors, spec, false, sm_count, max_threads_per_sm);
  spec.cols = (uint32_t)problem->cols;
  return spec;
}

/* Column tiles of a vector's columns a thread. */
static cureduce_spec column_tiles_spec(const cureduce_problem *problem, int sm_count, int max_threads_per_sm) {
  size_t element = cureduce_dtype_size(problem->input_type);
  cureduce_spec spec = base_spec(problem, CUREDUCE_STRATEGY_COLUMN_TILES, SHAPED_BLOCK, max_threads_per_sm);
  /* At most 8 columns a thread: an accumulator each (64-bit for sums of integers). */
  spec.vector_bytes = (uint8_t)min_size(vector_bytes_for(element, problem->leading_dimension * element,
                                                         power_of_two_at_least(problem->cols * element)),
                                        8 * element);
  /* Eight loads in flight a thread where the kernel is compiled for the registers they take
   * (cureduce_spec_min_blocks_per_sm: 8 f16 or 1-byte columns a thread held half the bytes in
   * flight of 4 f32 columns); else four where the thread holds more than 4 accumulators. */
  spec.unroll = cureduce_spec_min_blocks_per_sm(&spec) || spec.vector_bytes / element <= 4 ? 8 : 4;
  /* argmin and argmax of 8- and 16-bit columns fold a row into tagged key lanes, a register for
   * two columns or one (column_tiles.cu): sixteen loads of 8-bit keys (argmin u8 of 4096 x 65536
   * on an H200 read 52% of the floor at four, 79-83% at sixteen), eight of 16-bit ones. Such a
   * round in flight takes 92-96 registers (ptxas 13.0), more than a block of 1024 gives a thread
   * (64): ptxas then issued two to four of its loads at a time, and spilled. So their blocks stay
   * at 256, two of them an SM (64K registers), which is what the tiles are fitted for. Maps other
   * than abs give keys of another type, which take the element path (vector_loads.cuh's
   * CUREDUCE_KEEPS_TYPE, the kernels' twin of keeps_type). */
  bool keeps_type = problem->transform == CUREDUCE_TRANSFORM_NONE || problem->transform == CUREDUCE_TRANSFORM_ABS;
  bool tagged = cureduce_op_is_arg(problem->op) && element <= 2 && spec.vector_bytes % 4 == 0 && keeps_type;
  if (tagged)
    spec.unroll = element == 1 ? 16 : 8, spec.blocks_per_sm = 2;
  return fit_tile_blocks(problem, spec, tagged, sm_count, max_threads_per_sm);
}

/* Rows of at most PACKED_ROW_BYTES_MAX bytes back to back are read packed, 16 bytes a load where a
 * tile's thread would load the row alone (two u8 columns: two bytes a load, 52-58% of the read
 * ceiling on an H200), but for 8- and 16-bit min, max, argmin and argmax, whose tiles fold key
 * lanes that packed columns do not. Rows of 8 bytes (two f32 columns, 96.7-97.7% in tiles) are
 * left to the tuner. */
enum { PACKED_ROW_BYTES_MAX = 4 };
static cureduce_spec columns_heuristic(const cureduce_problem *problem, int sm_count, int max_threads_per_sm) {
  bool extreme = problem->op == CUREDUCE_OP_MIN || problem->op == CUREDUCE_OP_MAX || cureduce_op_is_arg(problem->op);
  bool keyed = extreme && cureduce_dtype_size(cureduce_mapped_type(problem->transform, problem->input_type)) <= 2;
  if (!keyed && packs_columns(problem, PACKED_ROW_BYTES_MAX))
    return packed_columns_spec(problem, sm_count, max_threads_per_sm);
  return column_tiles_spec(problem, sm_count, max_threads_per_sm);
}

/* A matrix of one row: each column is one element, reduced alone, which rows of one element are
 * too. Row groups read such rows back to back, 16 bytes a load with several loads in flight, and
 * store their results together, where column tiles give each thread a single load. So a row
 * strategy may run such a columns problem as its transpose; column tiles still may (exact sums
 * keep their own kernels). */
static bool one_row_columns(const cureduce_problem *problem) {
  return problem->layout == CUREDUCE_LAYOUT_COLUMNS && cureduce_columns_run_as_rows(problem->op, problem->rows);
}

/* The heuristic takes rows of one element where a result is no wider than its element: columns of
 * 1 x 2^28 on an H200, f32 sums in rows 91.6% of their floor against 80.4% in tiles, but u8 into
 * u64 21.4% against 47.3% and bf16 into f32 63.8% against 94.1% (the rows' stores of wider
 * results, eight or two times the bytes read, held them). The tuner tries both. */
static bool one_row_columns_as_rows(const cureduce_problem *problem) {
  return one_row_columns(problem) &&
         cureduce_result_bytes(problem->op, problem->output_type) <= cureduce_dtype_size(problem->input_type);
}
static cureduce_problem as_rows_of_one(const cureduce_problem *problem) {
  cureduce_problem rows = *problem;
  rows.layout = CUREDUCE_LAYOUT_ROWS, rows.rows = problem->cols, rows.cols = rows.leading_dimension = 1;
  return rows;
}
/* The problem the spec's kernel reduces: the problem itself, or a one-row columns problem's
 * transpose under a row strategy. */
static cureduce_problem launched_problem(const cureduce_spec *spec, const cureduce_problem *problem) {
  bool row_strategy = cureduce_strategy_layout((cureduce_strategy)spec->strategy) == CUREDUCE_LAYOUT_ROWS;
  return one_row_columns(problem) && row_strategy ? as_rows_of_one(problem) : *problem;
}

cureduce_shape_argument cureduce_shape_argument_of(const cureduce_spec *spec, const cureduce_problem *problem,
                                                   CUdeviceptr begin, CUdeviceptr end) {
  cureduce_problem launched = launched_problem(spec, problem);
  return (cureduce_shape_argument){launched.rows, launched.cols, launched.leading_dimension, begin, end};
}

cureduce_spec cureduce_shape_heuristic(const cureduce_problem *problem, int sm_count, int max_threads_per_sm) {
  if (problem->op == CUREDUCE_OP_EXACT_SUM)
    return exact_spec(problem, sm_count, max_threads_per_sm);
  if (one_row_columns_as_rows(problem)) {
    cureduce_problem rows = as_rows_of_one(problem);
    return rows_heuristic(&rows, sm_count, max_threads_per_sm);
  }
  switch (problem->layout) {
  case CUREDUCE_LAYOUT_ROWS: return rows_heuristic(problem, sm_count, max_threads_per_sm);
  case CUREDUCE_LAYOUT_SEGMENTS: return segments_heuristic(problem, sm_count, max_threads_per_sm);
  default: return columns_heuristic(problem, sm_count, max_threads_per_sm);
  }
}

cureduce_status cureduce_shape_check_spec(const cureduce_spec *spec, const cureduce_problem *given) {
  cureduce_strategy strategy = (cureduce_strategy)spec->strategy;
  cureduce_problem launched = launched_problem(spec, given);
  const cureduce_problem *problem = &launched;
  CUREDUCE_RETURN_ERROR_IF(cureduce_strategy_layout(strategy) != problem->layout, INVALID_SPEC,
                           "%s is not a strategy for this problem's layout%s", cureduce_strategy_name(strategy),
                           given->layout == CUREDUCE_LAYOUT_COLUMNS
                               ? " (columns take column_tiles; a matrix of one row, row strategies too)"
                               : "");
  CUREDUCE_RETURN_ERROR_IF(spec->cols && spec->cols != problem->cols, INVALID_SPEC,
                           "the spec compiles rows of %u elements in, the problem's have %llu", spec->cols,
                           (unsigned long long)problem->cols);
  CUREDUCE_RETURN_ERROR_IF(strategy == CUREDUCE_STRATEGY_COLUMN_TILES && spec->cols &&
                               problem->leading_dimension != problem->cols,
                           INVALID_SPEC, "packed columns (c%u) read rows back to back: the leading dimension must be "
                           "%llu, not %llu", spec->cols, (unsigned long long)problem->cols,
                           (unsigned long long)problem->leading_dimension);
  return CUREDUCE_STATUS_OK;
}

cureduce_shape_launch cureduce_shape_geometry(const cureduce_spec *spec, const cureduce_problem *given,
                                              int sm_count) {
  cureduce_problem launched = launched_problem(spec, given);
  const cureduce_problem *problem = &launched;
  size_t resident = (size_t)sm_count * spec->blocks_per_sm, rows = problem->rows;
  size_t element = cureduce_dtype_size(problem->input_type), vector_elements = spec->vector_bytes / element;
  cureduce_shape_launch launch = {.grid_x = 1, .grid_y = 1};
  if (spec->op == CUREDUCE_OP_EXACT_SUM && cureduce_exact_kernel_of(spec) == CUREDUCE_EXACT_GROUPS) {
    /* groups walk the sequences, a device of them at most; nothing in the workspace */
    size_t sequences = problem->layout == CUREDUCE_LAYOUT_COLUMNS ? problem->cols : rows;
    launch.grid_x = (unsigned)max_size(min_size(ceil_div(sequences, spec->block / spec->group), resident), 1);
    return launch;
  }
  /* Tickets, and the partials' bytes; words: partials that must be zero before the launch */
  size_t tickets = 0, partial_bytes = 0;
  size_t accumulator = cureduce_accumulator_bytes(problem->op, problem->transform, problem->input_type);
  bool exact = spec->op == CUREDUCE_OP_EXACT_SUM, words = exact;
  switch ((cureduce_strategy)spec->strategy) {
  case CUREDUCE_STRATEGY_ROW_GROUPS:
  case CUREDUCE_STRATEGY_SEGMENT_GROUPS: {
    size_t groups = ceil_div(rows, spec->cols ? spec->unroll : 1), per_block = spec->block / spec->group;
    launch.grid_x = (unsigned)even_passes(ceil_div(groups, per_block), resident);
    break;
  }
  case CUREDUCE_STRATEGY_ROW_BLOCKS: /* x: a row's splits, y: rows (row_blocks.cu) */
  case CUREDUCE_STRATEGY_SEGMENT_BLOCKS: {
    /* Rows of one length keep all their splits busy: a device of blocks in all. Segments are
     * mostly too short for more than one: a device of first splits, the others to spare. */
    bool segments = spec->strategy == CUREDUCE_STRATEGY_SEGMENT_BLOCKS;
    size_t slots = segments ? resident : max_size(resident / spec->splits, 1);
    launch.grid_x = spec->splits;
    size_t row_blocks = segments ? max_size(min_size(rows, slots), 1) : even_passes(rows, slots);
    launch.grid_y = (unsigned)min_size(row_blocks, 65535);
    if (spec->splits > 1) /* an exact sum's blocks add into one set of words a row */
      tickets = rows, partial_bytes = accumulator * (words ? rows : rows * spec->splits);
    break;
  }
  default: { /* column tiles: of group threads across, or of a warp a column for exact sums, whose
               * splits add into one set of words a column of the tile; argmin and argmax fold
               * theirs into a word a column where column_split_words says */
    size_t warps = spec->block / 32;
    size_t tiles = exact ? ceil_div(problem->cols, warps) : ceil_div(ceil_div(problem->cols, vector_elements), spec->group);
    launch.grid_x = (unsigned)max_size(min_size(tiles, 0x7fffffff), 1);
    launch.grid_y = spec->splits;
    if (spec->splits > 1) {
      words = words || column_split_words(problem);
      tickets = tiles, partial_bytes = exact ? tiles * warps * accumulator : column_partials_bytes(problem, spec->splits);
    }
    break;
  }
  }
  if (tickets) {
    /* Words must be zero before the launch, like its tickets: both are armed (shape.h). */
    launch.ticket_bytes = 4 * tickets;
    launch.arm_tickets = words || launch.ticket_bytes > CUREDUCE_WORKSPACE_PARTIALS - CUREDUCE_WORKSPACE_EXACT;
    launch.ticket_offset = launch.arm_tickets ? CUREDUCE_WORKSPACE_PARTIALS : CUREDUCE_WORKSPACE_EXACT;
    launch.partials_offset = max_size(CUREDUCE_WORKSPACE_PARTIALS, ceil_div(launch.ticket_offset + launch.ticket_bytes,
                                                                            CUREDUCE_WORKSPACE_ALIGNMENT) *
                                                                       CUREDUCE_WORKSPACE_ALIGNMENT);
    launch.workspace_bytes = launch.partials_offset + partial_bytes;
    launch.armed_bytes = words ? launch.workspace_bytes - launch.ticket_offset : launch.ticket_bytes;
  }
  return launch;
}

/* Where byte `offset` of a launch's workspace lies: in the armed area, where the caller gives one
 * and the byte is among the armed ones, else in the workspace. */
static CUdeviceptr workspace_byte(const cureduce_shape_launch *launch, CUdeviceptr workspace, CUdeviceptr armed_area,
                                  size_t offset) {
  if (!workspace)
    return 0;
  bool armed = launch->arm_tickets && offset >= launch->ticket_offset &&
               offset < launch->ticket_offset + launch->armed_bytes;
  return armed && armed_area ? armed_area + (offset - launch->ticket_offset) : workspace + offset;
}

cureduce_status cureduce_launch_shaped(const cureduce_driver *driver, const cureduce_spec *spec, CUfunction kernel,
                                       const cureduce_shape_launch *launch, CUdeviceptr input, CUdeviceptr second,
                                       const cureduce_shape_argument *shape, CUdeviceptr output,
                                       CUdeviceptr workspace, CUdeviceptr armed_area, CUstream stream) {
  CUREDUCE_RETURN_ERROR_IF(launch->workspace_bytes && !workspace, INVALID_ARGUMENT, "this launch needs a workspace");
  CUdeviceptr tickets = workspace_byte(launch, workspace, armed_area, launch->ticket_offset);
  CUdeviceptr partials = workspace_byte(launch, workspace, armed_area, launch->partials_offset);
  if (launch->arm_tickets && !armed_area)
    CUREDUCE_CU(driver->cuMemsetD32Async(tickets, 0, launch->armed_bytes / 4, stream));
  cureduce_shape_argument argument = *shape;
  void *parameters[] = {&input, &argument, &output, &partials, &tickets, &second};
  CUREDUCE_CU(driver->cuLaunchKernel(kernel, launch->grid_x, launch->grid_y, 1, spec->block, 1, 1, 0, stream,
                                     parameters, NULL));
  return CUREDUCE_STATUS_OK;
}

/* ---- the tuning space ------------------------------------------------------------------------------ */

size_t cureduce_shape_workspace_limit(const cureduce_problem *problem, int sm_count, int max_threads_per_sm) {
  cureduce_spec heuristic = cureduce_shape_heuristic(problem, sm_count, max_threads_per_sm);
  return max_size(cureduce_shape_geometry(&heuristic, problem, sm_count).workspace_bytes, CUREDUCE_SLOT_BYTES);
}

cureduce_spec cureduce_shape_fit_workspace(cureduce_spec spec, const cureduce_problem *problem, int sm_count,
                                           size_t workspace_limit) {
  while (spec.splits > 1 && cureduce_shape_geometry(&spec, problem, sm_count).workspace_bytes > workspace_limit)
    spec.splits = (spec.splits + 1) / 2;
  return spec;
}

/* exact_sum's families: groups (or a thread a column) for sequences up to four times the
 * heuristic's limit, blocks (or a warp a column) from a quarter of it; segments, whose lengths are
 * on the device, either. */
static size_t exact_family_specs(const cureduce_problem *problem, int sm_count, int max_threads_per_sm,
                                 cureduce_spec *out) {
  bool columns = problem->layout == CUREDUCE_LAYOUT_COLUMNS, segments = problem->layout == CUREDUCE_LAYOUT_SEGMENTS;
  size_t length = columns ? problem->rows : problem->cols, limit = columns ? EXACT_THREAD_COLUMN_MAX : EXACT_GROUP_ROW_MAX;
  size_t count = 0;
  if (segments || length <= 4 * limit)
    out[count++] = exact_groups_spec(problem, max_threads_per_sm);
  if (segments || length > limit / 4)
    out[count++] = columns ? exact_columns_spec(problem, sm_count, max_threads_per_sm)
                           : exact_blocks_spec(problem, sm_count, max_threads_per_sm);
  return count;
}

/* The most families a problem has: a layout's two, columns' three (tiles, packed, rows of one
 * element), though no matrix takes all three (packing needs two rows or more). */
enum { FAMILY_SPECS_MAX = 3 };

/* The families that suit the problem's shape, each in the heuristic's configuration for it. Rows
 * between 4 and 16 KiB long may take a group or whole blocks; segments, whose lengths are on the
 * device, either; columns whose rows pack into a load, tiles or packed, and those of one row,
 * tiles or rows of one element (one_row_columns); exact sums their own (exact_family_specs). */
static size_t family_specs(const cureduce_problem *problem, int sm_count, int max_threads_per_sm, cureduce_spec *out) {
  size_t row_bytes = problem->cols * cureduce_dtype_size(problem->input_type), count = 0;
  if (problem->op == CUREDUCE_OP_EXACT_SUM)
    return exact_family_specs(problem, sm_count, max_threads_per_sm, out);
  switch (problem->layout) {
  case CUREDUCE_LAYOUT_ROWS:
    if (row_bytes <= GROUP_ROW_BYTES_MAX)
      out[count++] = row_groups_spec(problem, max_threads_per_sm);
    if (row_bytes >= GROUP_ROW_BYTES_MAX / 4)
      out[count++] = row_blocks_spec(problem, sm_count, max_threads_per_sm);
    break;
  case CUREDUCE_LAYOUT_SEGMENTS:
    out[count++] = segments_heuristic(problem, sm_count, max_threads_per_sm);
    out[count] = base_spec(problem, CUREDUCE_STRATEGY_SEGMENT_GROUPS, SHAPED_BLOCK, max_threads_per_sm);
    out[count++].group = 32;
    break;
  default:
    out[count++] = column_tiles_spec(problem, sm_count, max_threads_per_sm);
    if (packs_columns(problem, CUREDUCE_PACKED_LOAD_BYTES))
      out[count++] = packed_columns_spec(problem, sm_count, max_threads_per_sm);
    if (one_row_columns(problem)) {
      cureduce_problem rows = as_rows_of_one(problem);
      out[count++] = row_groups_spec(&rows, max_threads_per_sm);
    }
  }
  return count;
}

/* A spec's neighbours: one field at a time halved or doubled. quick: group and splits only. */
enum { NEIGHBOURS = 8 };
static void neighbours(const cureduce_spec *spec, int max_threads_per_sm, bool quick, cureduce_spec *out) {
  for (int i = 0; i < NEIGHBOURS; i++)
    out[i] = *spec;
  out[0].group = (uint16_t)(spec->group / 2), out[1].group = (uint16_t)(spec->group * 2);
  bool splits = spec->strategy != CUREDUCE_STRATEGY_ROW_GROUPS && spec->strategy != CUREDUCE_STRATEGY_SEGMENT_GROUPS;
  if (splits) /* row and segment groups launch alike whatever their splits */
    out[2].splits = spec->splits / 2, out[3].splits = spec->splits * 2;
  if (quick)
    return;
  out[4].unroll = (uint8_t)(spec->unroll / 2), out[5].unroll = (uint8_t)(spec->unroll * 2);
  out[6].block = (uint16_t)(spec->block / 2), out[7].block = (uint16_t)(spec->block * 2);
  for (int i = 6; i < 8; i++)
    out[i].blocks_per_sm = blocks_per_sm_of(&out[i], max_threads_per_sm);
}

/* Whether a candidate may join the space: a legal production spec for the problem (which keeps a
 * tile's threads within its block), within the workspace limit, not yet in it. */
static bool admissible(const cureduce_spec *spec, const cureduce_problem *problem, int sm_count,
                       size_t workspace_limit, const cureduce_spec *kept, size_t count) {
  bool legal = cureduce_spec_validate_production(spec) == CUREDUCE_STATUS_OK &&
               cureduce_shape_check_spec(spec, problem) == CUREDUCE_STATUS_OK;
  cureduce_error_clear(); /* a refused neighbour is no failure of the call that asked */
  if (!legal || cureduce_shape_geometry(spec, problem, sm_count).workspace_bytes > workspace_limit)
    return false;
  for (size_t i = 0; i < count; i++)
    if (cureduce_spec_equal(&kept[i], spec))
      return false;
  return true;
}

size_t cureduce_shape_tune_space(const cureduce_problem *problem, int sm_count, int max_threads_per_sm, bool quick,
                                 size_t workspace_limit, cureduce_spec *out, size_t max) {
  size_t count = 0;
  if (max == 0)
    return 0;
  out[count++] = cureduce_shape_heuristic(problem, sm_count, max_threads_per_sm);
  cureduce_spec families[FAMILY_SPECS_MAX];
  size_t family_count = family_specs(problem, sm_count, max_threads_per_sm, families);
  for (size_t f = 0; f < family_count; f++) {
    cureduce_spec around[NEIGHBOURS + 1];
    around[0] = cureduce_shape_fit_workspace(families[f], problem, sm_count, workspace_limit);
    neighbours(&around[0], max_threads_per_sm, quick, around + 1);
    for (int i = 0; i <= (quick ? 4 : NEIGHBOURS) && count < max; i++)
      if (admissible(&around[i], problem, sm_count, workspace_limit, out, count))
        out[count++] = around[i];
  }
  return count;
}
