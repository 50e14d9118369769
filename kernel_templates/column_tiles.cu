// Columns: a block is a tile of CUREDUCE_GROUP threads across the columns, each thread a vector
// of adjacent columns, by CUREDUCE_BLOCK / CUREDUCE_GROUP threads down the rows, so that a warp
// reads whole stretches of a row. gridDim.x tiles cover the columns, gridDim.y blocks split the
// rows of each tile; the last block of a tile folds the tile's partials in split order.

using namespace cureduce;

const unsigned across = CUREDUCE_GROUP, down = CUREDUCE_BLOCK / CUREDUCE_GROUP;
// Packed columns (the spec's c): CUREDUCE_COLS columns whose rows lie back to back, several to a
// vector (the host checks that the leading dimension is the row length). A tile one vector wide
// read two bytes a load for two u8 columns, 16 bytes in flight a thread: 52-58% of the read
// ceiling on an H200. Packed, the matrix is read as one of rows a vector long (packed_rows of
// the matrix's each), and lane j of vector row r is column j % CUREDUCE_COLS of row
// packed_rows r + j / CUREDUCE_COLS, folded straight into that column's accumulator: a thread
// holds thread_columns accumulators, a vector's where the columns are not packed (one row a load).
const int thread_columns = CUREDUCE_COLS ? CUREDUCE_COLS : vector_elements;
const unsigned packed_rows = vector_elements / thread_columns;
static_assert(CUREDUCE_COLS == 0 || (across == 1 && vector_elements % CUREDUCE_COLS == 0 && packed_rows > 1),
              "packed columns are a tile one vector wide, several rows a vector");
// Lane j of a load: its column among the thread's, and its row, that of the load's row `row`.
__device__ __forceinline__ int column_of_lane(int j) { return j % thread_columns; }
__device__ __forceinline__ u64 row_of_lane(u64 row, int j) { return row * packed_rows + (u64)(j / thread_columns); }

// Each lane of the thread's load into its column's accumulator; index = row. A column's lanes
// come in row order (fold_later).
__device__ __forceinline__ void fold_columns(acc_t *acc, kernel_source::loads loaded, u64 row) {
#pragma unroll
  for (int j = 0; j < vector_elements; j++)
    acc[column_of_lane(j)] = kernel_source::fold_lane(acc[column_of_lane(j)], loaded, j, row_of_lane(row, j));
}

// The loads of a round: rows row, row + step, ... (CUREDUCE_UNROLL of them) at column col, issued
// together before any is folded.
__device__ __forceinline__ void load_round(kernel_source::loads *loaded, const kernel_source &source,
                                           const shape_t &shape, u64 col, u64 row, u64 step) {
#pragma unroll
  for (int k = 0; k < CUREDUCE_UNROLL; k++) loaded[k] = source.load_at((row + k * step) * shape.leading + col);
}

#if CUREDUCE_BYTE_SUM
// Sums of 8-bit columns: widening each byte into its column's 64-bit accumulator took about three
// integer instructions a byte, more than the read allows (i8 columns of 2^28 elements at 55-71% of
// the read ceiling on an H200, u8 at 72-79%, where these lanes read 80-82%). Instead each 32-bit
// word adds its bytes, two columns a word at a time, into 16-bit lanes (the even bytes, then the
// odd: two masks, a shift and two adds for four bytes), which hold 257 bytes' sums before they
// could overflow; every 256 rows the lanes are widened into the accumulators. i8 is made unsigned
// by flipping each byte's sign bit (x + 128), and the 128s are taken off when widening. Integer
// sums are exact in any order: the same bits.
const int load_words = CUREDUCE_VECTOR_BYTES / 4;
const unsigned byte_rounds = 256 / CUREDUCE_UNROLL;

struct byte_lanes {
  unsigned even[load_words], odd[load_words];  // word i: columns 4i and 4i + 2, then 4i + 1 and 4i + 3
};

__device__ __forceinline__ void add_bytes(byte_lanes &lanes, vector_t raw) {
  vector_words words;
  words.raw = raw;
#pragma unroll
  for (int i = 0; i < load_words; i++) {
#if CUREDUCE_INPUT == CUREDUCE_DTYPE_I8
    const unsigned x = words.word[i] ^ 0x80808080u;
#else
    const unsigned x = words.word[i];
#endif
    lanes.even[i] += x & 0x00ff00ffu;
    lanes.odd[i] += (x >> 8) & 0x00ff00ffu;
  }
}

__device__ __forceinline__ void widen_bytes(acc_t *acc, const byte_lanes &lanes, u64 rows) {
#if CUREDUCE_INPUT == CUREDUCE_DTYPE_I8
  const acc_t bias = (acc_t)(128 * rows);
#else
  const acc_t bias = 0;
#endif
#pragma unroll
  for (int i = 0; i < load_words; i++) {
    acc[column_of_lane(4 * i)] += (acc_t)(lanes.even[i] & 0xffffu) - bias;
    acc[column_of_lane(4 * i + 1)] += (acc_t)(lanes.odd[i] & 0xffffu) - bias;
    acc[column_of_lane(4 * i + 2)] += (acc_t)(lanes.even[i] >> 16) - bias;
    acc[column_of_lane(4 * i + 3)] += (acc_t)(lanes.odd[i] >> 16) - bias;
  }
}

// The thread's whole rounds of CUREDUCE_UNROLL rows from `row`; returns the row after them.
__device__ __forceinline__ u64 accumulate_rounds(acc_t *acc, const kernel_source &source, const shape_t &shape,
                                                 u64 col, u64 row, u64 step) {
  while (row + (CUREDUCE_UNROLL - 1) * step < shape.rows) {
    byte_lanes lanes = {};
    unsigned rounds = 0;
    for (; rounds < byte_rounds && row + (CUREDUCE_UNROLL - 1) * step < shape.rows;
         rounds++, row += CUREDUCE_UNROLL * step) {
      kernel_source::loads loaded[CUREDUCE_UNROLL];
      load_round(loaded, source, shape, col, row, step);
#pragma unroll
      for (int k = 0; k < CUREDUCE_UNROLL; k++) add_bytes(lanes, loaded[k]);
    }
    widen_bytes(acc, lanes, (u64)rounds * CUREDUCE_UNROLL);
  }
  return row;
}
// The last rows' loads (fewer than a round) added in the byte lanes and widened once.
__device__ __forceinline__ void fold_last_loads(acc_t *acc, const kernel_source::loads *loaded, u64 rows, u64 row,
                                                u64 step) {
  byte_lanes lanes = {};
  unsigned added = 0;
#pragma unroll
  for (int k = 0; k < CUREDUCE_UNROLL - 1; k++)
    if (row + k * step < rows) {
      add_bytes(lanes, loaded[k]);
      added++;
    }
  widen_bytes(acc, lanes, added);
}
#else
#define CUREDUCE_KEYED_COLUMNS                                                                      \
  (CUREDUCE_KEYED_BY_VECTOR && !CUREDUCE_PAIR && !CUREDUCE_COLS &&                                  \
   (CUREDUCE_INPUT == CUREDUCE_DTYPE_I8 || CUREDUCE_INPUT == CUREDUCE_DTYPE_U8 ||                   \
    CUREDUCE_INPUT == CUREDUCE_DTYPE_F16 || CUREDUCE_INPUT == CUREDUCE_DTYPE_BF16))
#if CUREDUCE_KEYED_COLUMNS
// argmin, argmax, min and max of 8- and 16-bit columns. Element by element, a key and a (key, row)
// comparison took about a dozen instructions an element, more than the read allows (argmax bf16
// columns of 4096 x 65536 at 43-50% of the read ceiling on an H200 at every tile width from 128 to
// 512 bytes, argmin u8 at 19-36%). Instead a thread keeps its columns' keys (keyed_vector's, as the
// whole-array kernels compute them) in lanes of 16 or 32 bits and folds a row into them with one
// max a word: max.s16x2 for two lanes, max.s32 for one. argmin and argmax put a tag under each key,
// the thread's rows still to come in a chunk of 2^tag_bits of them, so that a lane's maximum is the
// largest key and, of its ties, the first row (the largest tag); the chunk's rows are then folded
// into the accumulators, in order. Rows kept apart by a flag and a select a column instead (the
// row where a lane last grew) left argmin u8 4096 x 65536 at 43-44% of the floor (8-bit tags: 80%
// since 760709b). 8-bit keys take a tag even for min and max, where it is never read: sm_90 has no
// 8-bit lane max (__vmaxs4 is emulated), and sign-extending a key costs the same one prmt as
// tagging it.
const int key_bits = 8 * (int)sizeof(input_t);
const int tag_bits = CUREDUCE_ARG_BY_VECTOR || key_bits == 8 ? key_bits : 0;
const int lane_bits = key_bits + tag_bits;  // 16 or 32
const int lanes_a_word = 32 / lane_bits;
const int tagged_words = vector_elements / lanes_a_word;
const unsigned last_tag = (1u << tag_bits) - 1;
const unsigned chunk_rounds = CUREDUCE_ARG_BY_VECTOR ? (last_tag + 1) / CUREDUCE_UNROLL : 0xffffffffu;
// Every lane at its smallest value: after a row the lanes hold only the rows' own (key, tag)s.
const unsigned lowest_lanes = lane_bits == 16 ? 0x80008000u : 0x80000000u;

// Word p of a row's lanes: its keys, each above the row's tag (a tag of 0 bits: the keys' word).
__device__ __forceinline__ unsigned tagged_word(const keyed_vector &keys, int p, unsigned tag) {
  if (tag_bits == 0) return keys.word[p];
  // __byte_perm's bytes 0-3 are the keys' word's, 4 and 5 the tag's low bytes
  const unsigned selector = key_bits == 8 ? (p % 2 ? 0x3414u : 0x2404u) : (p % 2 ? 0x3254u : 0x1054u);
  return __byte_perm(keys.word[p / 2], tag, selector);
}
// The column of lane `lane` of word p (tagged_word's byte order).
__device__ __forceinline__ int lane_column(int p, int lane) {
  if (key_bits == 8) return 4 * (p / 2) + p % 2 + 2 * lane;
  return tag_bits == 0 ? 2 * p + lane : p;
}
__device__ __forceinline__ unsigned larger_lanes(unsigned a, unsigned b) {
  return lane_bits == 16 ? __vmaxs2(a, b) : (unsigned)max((int)a, (int)b);
}

__device__ __forceinline__ void fold_row_keys(unsigned *lanes, vector_t raw, unsigned tag) {
  keyed_vector keys;
  keys.of(map_vector(raw));
#pragma unroll
  for (int p = 0; p < tagged_words; p++) lanes[p] = larger_lanes(lanes[p], tagged_word(keys, p, tag));
}

// A chunk's largest keys, each at its row (first + rows before it in the thread's steps), folded
// into the accumulators after the rows already there.
__device__ __forceinline__ void fold_chunk(acc_t *acc, const unsigned *lanes, u64 first, u64 step) {
#pragma unroll
  for (int p = 0; p < tagged_words; p++)
#pragma unroll
    for (int lane = 0; lane < lanes_a_word; lane++) {
      const int j = lane_column(p, lane);
      const unsigned bits = lanes[p] >> (lane_bits * lane);
      const arg_key_t key = key_bits == 8 ? (arg_key_t)(signed char)(bits >> tag_bits)
                                          : (arg_key_t)(short)(bits >> tag_bits);
#if CUREDUCE_ARG_BY_VECTOR
      acc[j] = key_order::later(acc[j], key, first + (u64)(last_tag - (bits & last_tag)) * step);
#else
      (void)first, (void)step;
      acc[j] = fold_extreme_key(acc[j], key);
#endif
    }
}

__device__ __forceinline__ u64 accumulate_rounds(acc_t *acc, const kernel_source &source, const shape_t &shape,
                                                 u64 col, u64 row, u64 step) {
  while (row + (CUREDUCE_UNROLL - 1) * step < shape.rows) {
    const u64 first = row;
    unsigned lanes[tagged_words];
#pragma unroll
    for (int p = 0; p < tagged_words; p++) lanes[p] = lowest_lanes;
    // tag is last_tag - rounds * CUREDUCE_UNROLL, counted apart: derived each round, it took five
    // instructions more a loop of argmax bf16 b256/u8/v16 (ptxas 13.0, tools/sass_loads.sh).
    unsigned tag = last_tag;
    for (unsigned rounds = 0; rounds < chunk_rounds && row + (CUREDUCE_UNROLL - 1) * step < shape.rows;
         rounds++, row += CUREDUCE_UNROLL * step, tag -= CUREDUCE_UNROLL) {
      kernel_source::loads loaded[CUREDUCE_UNROLL];
      load_round(loaded, source, shape, col, row, step);
#pragma unroll
      for (int k = 0; k < CUREDUCE_UNROLL; k++)
        fold_row_keys(lanes, loaded[k], CUREDUCE_ARG_BY_VECTOR ? tag - k : 0);
    }
    fold_chunk(acc, lanes, first, step);
  }
  return row;
}
#else
// The thread's whole rounds of CUREDUCE_UNROLL rows from `row`, their loads in flight together,
// each element folded on its own; returns the row after them.
__device__ __forceinline__ u64 element_rounds(acc_t *acc, const kernel_source &source, const shape_t &shape, u64 col,
                                              u64 row, u64 step) {
  for (; row + (CUREDUCE_UNROLL - 1) * step < shape.rows; row += CUREDUCE_UNROLL * step) {
    kernel_source::loads loaded[CUREDUCE_UNROLL];
    load_round(loaded, source, shape, col, row, step);
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++) fold_columns(acc, loaded[k], row + k * step);
  }
  return row;
}
#define CUREDUCE_KEY_ROW_COLUMNS \
  (CUREDUCE_ARG_BY_VECTOR && !CUREDUCE_PAIR && !CUREDUCE_COLS && CUREDUCE_INPUT_BYTES == 4)
#if CUREDUCE_KEY_ROW_COLUMNS
// argmin and argmax of 32-bit keys: a thread keeps each column's largest key and the 32-bit row
// where it first came, and a row replaces them only with a strictly larger key (a thread's rows
// come in order): a compare and two selects an element. The (key, 64-bit index) fold, with its
// check for an empty accumulator, took some 13 SASS instructions an element (ptxas 13.0, argmin
// f32 b256/u8/v16: 420 a round of 32 elements, 338 now; argmax i32 238 -> 139). No row replacing
// the lowest key means that every key was the lowest: the thread's first row holds it. Columns of
// 2^32 - 1 rows or more fold element by element.
const unsigned no_row = 0xffffffffu;
__device__ __forceinline__ u64 accumulate_rounds(acc_t *acc, const kernel_source &source, const shape_t &shape,
                                                 u64 col, u64 row, u64 step) {
  if (shape.rows >= no_row) return element_rounds(acc, source, shape, col, row, step);
  arg_key_t best[vector_elements];
  unsigned at[vector_elements];
#pragma unroll
  for (int j = 0; j < vector_elements; j++) best[j] = (arg_key_t)(-0x7fffffff - 1), at[j] = no_row;
  const u64 first = row;
  for (; row + (CUREDUCE_UNROLL - 1) * step < shape.rows; row += CUREDUCE_UNROLL * step) {
    kernel_source::loads loaded[CUREDUCE_UNROLL];
    load_round(loaded, source, shape, col, row, step);
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++) {
      keyed_vector keys;
      keys.of(map_vector(loaded[k]));
      const unsigned r = (unsigned)(row + k * step);
#pragma unroll
      for (int j = 0; j < vector_elements; j++) {
        const bool larger = keys.key[j] > best[j];
        best[j] = larger ? keys.key[j] : best[j];
        at[j] = larger ? r : at[j];
      }
    }
  }
  if (row != first)
#pragma unroll
    for (int j = 0; j < vector_elements; j++) acc[j] = key_order::later(acc[j], best[j], at[j] == no_row ? first : at[j]);
  return row;
}
#else
__device__ __forceinline__ u64 accumulate_rounds(acc_t *acc, const kernel_source &source, const shape_t &shape,
                                                 u64 col, u64 row, u64 step) {
  return element_rounds(acc, source, shape, col, row, step);
}
#endif
#endif
// The last rows' loads (fewer than a round), in row order.
__device__ __forceinline__ void fold_last_loads(acc_t *acc, const kernel_source::loads *loaded, u64 rows, u64 row,
                                                u64 step) {
#pragma unroll
  for (int k = 0; k < CUREDUCE_UNROLL - 1; k++)
    if (row + k * step < rows) fold_columns(acc, loaded[k], row + k * step);
}
#endif

// The rows left after the thread's whole rounds, fewer than a round. Taken one after another, each
// waits on a round trip to memory, and columns of fewer rows than a round are nothing but those
// rows; so where the kernel is compiled for narrow accumulators (CUREDUCE_MIN_BLOCKS_PER_SM: the
// registers of a round's loads are there), two or more are loaded together under predicates, then
// folded in row order (fold_last_loads). A lone last row, and wide accumulators, whose registers
// bound the blocks an SM (argmax bf16 columns 64 -> 80 registers, a block an SM fewer), load a row
// at a time.
__device__ __forceinline__ void fold_last_rows(acc_t *acc, const kernel_source &source, const shape_t &shape, u64 col,
                                               u64 row, u64 step) {
#ifdef CUREDUCE_MIN_BLOCKS_PER_SM
  if (row + step < shape.rows) {
    kernel_source::loads loaded[CUREDUCE_UNROLL];
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL - 1; k++)
      if (row + k * step < shape.rows) loaded[k] = source.load_at((row + k * step) * shape.leading + col);
    fold_last_loads(acc, loaded, shape.rows, row, step);
    return;
  }
#endif
  for (; row < shape.rows; row += step) fold_columns(acc, source.load_at(row * shape.leading + col), row);
}

// The thread's rows: vectors in rounds where whole and aligned, else the valid columns element by
// element.
__device__ __forceinline__ void accumulate_columns(acc_t *acc, const kernel_source &source, const shape_t &shape,
                                                   u64 col, u64 valid) {
  const u64 step = (u64)gridDim.y * down;
  u64 row = (u64)blockIdx.y * down + threadIdx.x / across;
  if (valid == vector_elements && source.rows_aligned(shape.leading)) {
    fold_last_rows(acc, source, shape, col, accumulate_rounds(acc, source, shape, col, row, step), step);
    return;
  }
  for (; row < shape.rows; row += step)
#pragma unroll
    for (int j = 0; j < vector_elements; j++)
      if (j < valid)
        acc[column_of_lane(j)] = source.fold_element(acc[column_of_lane(j)], row * shape.leading + col + j, row_of_lane(row, j));
}

#if CUREDUCE_COLS
// A thread's rows of packed columns: the vector rows as a tile's (each column's accumulator
// starting from the column's first element, the moments' shift), then the rows after the last
// whole vector, fewer than packed_rows, the first thread's of the first split.
__device__ __forceinline__ void accumulate_packed(acc_t *acc, const kernel_source &source, const shape_t &shape) {
  shape_t vectors = shape;
  vectors.rows = shape.rows / packed_rows, vectors.cols = vector_elements, vectors.leading = vector_elements;
#pragma unroll
  for (int c = 0; c < CUREDUCE_COLS; c++) acc[c] = sequence_start(source.from(c), shape.rows);
  accumulate_columns(acc, source, vectors, 0, vector_elements);
  if (blockIdx.y == 0 && threadIdx.x == 0)
    for (u64 row = vectors.rows * packed_rows; row < shape.rows; row++)
#pragma unroll
      for (int c = 0; c < CUREDUCE_COLS; c++) acc[c] = source.fold_element(acc[c], row * CUREDUCE_COLS + c, row);
}
#endif

// Folds each column's accumulators down the block's rows into the threads of the tile's first
// row, in the same order every time. Where the tile is narrower than a warp, the warp's rows fold
// first by shuffles (lane l takes lane l + 16, then l + 8, ... down to l + across); then the rows
// left, a warp's or a row of threads', through shared memory: each writes its columns there and
// the first row's threads fold the others' in row order, as many columns a pass as a block's worth
// of accumulators holds. A tree in shared memory took a barrier a level a column: argmin bf16 of a
// tile 8 threads wide and 32 rows high (a round of its loads at 2^20 elements) waited on 56.
const unsigned warp_rows = across < 32 ? 32 / across : 1;
const unsigned rows_left = down / warp_rows;
const unsigned row_stride = across < 32 ? 32 : across;  // threads from one of those rows to the next
__host__ __device__ constexpr int columns_a_pass() {
  int columns = thread_columns;
  while (columns > 1 && (rows_left - 1) * across * columns > CUREDUCE_BLOCK) columns /= 2;
  return columns;
}
const int pass_columns = columns_a_pass();

// (Templates of the tile's constants, so that the fold a tile has not, whose loop never runs or
// whose array would have no element, is not compiled.)
template <unsigned ACROSS> __device__ __forceinline__ void fold_warp_rows(acc_t *acc) {
  if constexpr (ACROSS < 32)
#pragma unroll
    for (unsigned offset = 16; offset >= ACROSS; offset >>= 1)
#pragma unroll
      for (int j = 0; j < thread_columns; j++) acc[j] = op::combine(acc[j], shuffle_down(acc[j], offset));
}
template <unsigned ROWS_LEFT> __device__ __forceinline__ void fold_rows_left(acc_t *acc) {
  if constexpr (ROWS_LEFT > 1) {
    __shared__ acc_t staged[(ROWS_LEFT - 1) * across * pass_columns];
    const unsigned x = threadIdx.x % row_stride, row = threadIdx.x / row_stride;
    const bool holds = x < across;  // not a lane the shuffles left out
#pragma unroll
    for (int first = 0; first < thread_columns; first += pass_columns) {
      if (first) __syncthreads();  // the pass before has read what this one overwrites
      if (holds && row > 0)
#pragma unroll
        for (int j = 0; j < pass_columns; j++) staged[((row - 1) * pass_columns + j) * across + x] = acc[first + j];
      __syncthreads();
      if (holds && row == 0)
#pragma unroll
        for (unsigned r = 0; r < ROWS_LEFT - 1; r++)
#pragma unroll
          for (int j = 0; j < pass_columns; j++)
            acc[first + j] = op::combine(acc[first + j], staged[(r * pass_columns + j) * across + x]);
    }
  }
}
__device__ __forceinline__ void fold_down(acc_t *acc) {
  fold_warp_rows<across>(acc);
  fold_rows_left<rows_left>(acc);
}

// The last block folds each column's partials, one a split: split_lanes threads a column (as
// many as the block holds for the tile's columns, a warp at most), each folding the splits lane,
// lane + split_lanes, ... in order with eight loads in flight, then the column's lanes folded by
// shuffles in a fixed tree, the same order every run. One thread a column took every split in
// turn: a tile of two columns with 256 splits waited on 32 rounds of loads one after another.
const unsigned tile_columns = across * vector_elements;
const unsigned split_lanes = CUREDUCE_BLOCK / tile_columns >= 32 ? 32
                             : CUREDUCE_BLOCK >= tile_columns   ? CUREDUCE_BLOCK / tile_columns
                                                                : 1;

// The tile's columns, split_lanes threads each (a warp's lanes reach the shuffles together: a
// column a warp, or the whole tile in one turn).
__device__ __forceinline__ void finish_tile(const acc_t *partials, u64 tile_first, const shape_t &shape, void *out) {
  const unsigned lane = threadIdx.x % split_lanes;
  for (unsigned k = threadIdx.x / split_lanes; k < tile_columns; k += CUREDUCE_BLOCK / split_lanes) {
    const u64 c = tile_first + k;
    acc_t v = c < shape.cols ? fold_partials<8>(op::identity(), partials + c, lane, split_lanes, gridDim.y, shape.cols)
                             : op::identity();
    v = group_reduce<split_lanes>(v);
    if (lane == 0 && c < shape.cols) store_result(result_at(out, c), op::finish(v));
  }
}

// argmin and argmax of keys of 32 bits or fewer, in columns of fewer than 2^32 - 1 rows, fold their
// splits into one 64-bit word a column by atomicMax. Partials of every split ([split][column], 16
// bytes each) capped the splits at a workspace slot's 127 KiB: argmin u8 of 65536 x 4096 ran in 32
// blocks, at 28-39% of the read ceiling on an H200. A word holds the key, its sign bit flipped
// (unsigned order), above the complement of the row: the largest word is the largest key and, of
// its ties, the first row, whatever order the splits arrive in. The words are zero before the
// launch, like its tickets (a slot's armed area, or a caller's workspace zeroed on the stream
// first), and the last block of a tile leaves its columns' words zero again; 0 is below every
// row's word (the complement of a row below 2^32 - 1 is not 0). The host sizes the workspace alike
// (shape.c, column_split_words).
template <typename A> struct split_word {
  static const bool packs = false;
};
template <> struct split_word<arg_acc<int> > {
  static const bool packs = true;
  static const u64 rows_below = 0xffffffffull;
  // Both halves' maps are their own inverses: a key's bits in unsigned order, a row's complement.
  static __device__ __forceinline__ unsigned key_half(unsigned bits) { return bits ^ 0x80000000u; }
  static __device__ __forceinline__ unsigned row_half(u64 row) { return ~(unsigned)row; }
  static __device__ __forceinline__ u64 of(arg_acc<int> a) {
    return (u64)key_half((unsigned)a.key) << 32 | row_half(a.index);
  }
  static __device__ __forceinline__ arg_acc<int> acc_of(u64 word) {
    arg_acc<int> a;
    a.key = (int)key_half((unsigned)(word >> 32));
    a.index = word ? (u64)row_half(word) : arg_acc<int>::empty;
    return a;
  }
};
// (Templates of the accumulator type, whose discarded branches are then never compiled for it.)
template <typename A> __device__ __forceinline__ bool folds_split_words(const shape_t &shape) {
  if constexpr (split_word<A>::packs) return shape.rows < split_word<A>::rows_below;
  return false;
}

// The block's columns into the splits' partials: its own row of them, or the columns' words.
template <typename A>
__device__ __forceinline__ void publish_split(const A *acc, void *partials, const shape_t &shape, u64 col, u64 valid,
                                              bool words) {
#pragma unroll
  for (int j = 0; j < vector_elements; j++) {
    if (j >= valid) continue;
    if constexpr (split_word<A>::packs) {
      if (words) {
        if (acc[j].index != A::empty)
          atomicMax((unsigned long long *)partials + col + j, (unsigned long long)split_word<A>::of(acc[j]));
        continue;
      }
    }
    store_partial((A *)partials + (u64)blockIdx.y * shape.cols + col + j, acc[j]);
  }
}

// The last block: the tile's columns from their words, a thread a column, each word zero again
// for the next launch.
template <typename A>
__device__ __forceinline__ void finish_tile_words(void *words, u64 tile_first, const shape_t &shape, void *out) {
  if constexpr (split_word<A>::packs) {
    for (u64 c = tile_first + threadIdx.x; c < tile_first + tile_columns && c < shape.cols; c += CUREDUCE_BLOCK) {
      unsigned long long *word = (unsigned long long *)words + c;
      store_result(result_at(out, c), op::finish(split_word<A>::acc_of(__ldcg(word))));
      *word = 0;
    }
  }
}

// Compiled for CUREDUCE_MIN_BLOCKS_PER_SM blocks an SM where the spec names it (half an SM's
// threads, CUREDUCE_COLUMN_THREADS_PER_SM): registers for every load of a round in flight. Wide
// accumulators take more than those registers: their block alone bounds them, and a minimum of
// one block, written out, lets ptxas take what a round's loads need. Without it ptxas kept them to
// 64 registers and issued a round's loads a few at a time (ptxas 13.0, SASS read by
// tools/sass_loads.sh: argmin u8 b256/u16/v8 4 of 16 loads in flight at 64 registers, all 16 at
// 92; argmax bf16 b256/u8/v16 1 of 8 at 64, all 8 at 96; argmin f32 b256/u8/v16 4 of 8 at 48, 7 at 64).
#ifdef CUREDUCE_MIN_BLOCKS_PER_SM
#define CUREDUCE_TILE_BOUNDS __launch_bounds__(CUREDUCE_BLOCK, CUREDUCE_MIN_BLOCKS_PER_SM)
#elif defined(CUREDUCE_KEY_ROW_COLUMNS) && CUREDUCE_KEY_ROW_COLUMNS
// Keys and rows in the loop are narrow, but the host sizes these tiles as wide accumulators (a
// block at least): bounded, as those kernels' 64 to 80 registers bounded them, to
// CUREDUCE_COLUMN_THREADS_PER_SM threads an SM, where ptxas keeps a round's loads in flight in 64
// registers; left at a block it took 90, two blocks of 256 an SM.
#define CUREDUCE_TILE_BOUNDS                                                                          \
  __launch_bounds__(CUREDUCE_BLOCK, CUREDUCE_BLOCK >= CUREDUCE_COLUMN_THREADS_PER_SM                   \
                                        ? 1                                                          \
                                        : CUREDUCE_COLUMN_THREADS_PER_SM / CUREDUCE_BLOCK)
#else
#define CUREDUCE_TILE_BOUNDS __launch_bounds__(CUREDUCE_BLOCK, 1)
#endif
extern "C" __global__ void CUREDUCE_TILE_BOUNDS
    cureduce_kernel(const input_t *__restrict__ input, shape_t shape, void *out, void *partials, void *tickets,
                    const input_t *__restrict__ second) {
  const u64 tile_first = (u64)blockIdx.x * across * vector_elements;
  const u64 col = tile_first + (threadIdx.x % across) * vector_elements;
  const u64 valid = col >= shape.cols ? 0 : shape.cols - col < vector_elements ? shape.cols - col : vector_elements;
  const kernel_source source = source_of(input, second);
  acc_t acc[vector_elements];
#if CUREDUCE_COLS
  accumulate_packed(acc, source, shape);  // valid is CUREDUCE_COLS: one tile, its thread at column 0
#else
#pragma unroll
  for (int j = 0; j < vector_elements; j++) acc[j] = sequence_start(source.from(col + j), j < valid ? shape.rows : 0);
  accumulate_columns(acc, source, shape, col, valid);
#endif
  fold_down(acc);
  const bool holds = threadIdx.x < across;
  if (gridDim.y == 1) {
    // A tile whole warps across, a warp of its first row whose last thread holds whole columns
    // (so every thread of the warp does: the same test on each), stores the warp's results
    // together.
    if (across % 32 == 0 && holds && tile_first + ((threadIdx.x | 31) % across + 1) * vector_elements <= shape.cols) {
      store_warp_results<vector_elements>(out, col - (threadIdx.x % 32) * vector_elements, acc);
    } else if (holds && valid == vector_elements) {
      store_results<vector_elements>(out, col, acc);
    } else {
#pragma unroll
      for (int j = 0; j < vector_elements; j++)
        if (holds && j < valid) store_result(result_at(out, col + j), op::finish(acc[j]));
    }
    return;
  }
  const bool words = folds_split_words<acc_t>(shape);
  if (holds) publish_split(acc, partials, shape, col, valid, words);
  __threadfence();
  __syncthreads();
  __shared__ bool is_last_block;
  unsigned *ticket = (unsigned *)tickets + blockIdx.x;
  if (threadIdx.x == 0) is_last_block = atomicAdd(ticket, 1u) == gridDim.y - 1;
  __syncthreads();
  if (!is_last_block) return;
  __threadfence();
  if (words)
    finish_tile_words<acc_t>(partials, tile_first, shape, out);
  else
    finish_tile((const acc_t *)partials, tile_first, shape, out);
  if (threadIdx.x == 0) *ticket = 0;
}
