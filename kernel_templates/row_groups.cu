// Rows or segments, CUREDUCE_GROUP threads (1 to 32) each, for rows too short to keep a block
// busy. The groups of a warp walk the rows together, so that every lane reaches the shuffles of
// a group's fold, and consecutive groups take consecutive rows, so that a warp reads one stretch.
//
// With a row length compiled in (CUREDUCE_COLS, rows of at most 256 bytes), each lane's share of
// a row is a fixed set of loads, and a group takes CUREDUCE_UNROLL rows at a time, their
// loads issued together (compiled_rows): short rows give a thread few bytes each, and without rows
// in flight a load per thread could not cover the memory's latency; rows shorter than a vector
// that lie back to back go several to a load (packed_rows). Otherwise a group walks its row with
// CUREDUCE_UNROLL loads in flight (strided_accumulate).

using namespace cureduce;

const unsigned groups_per_block = CUREDUCE_BLOCK / CUREDUCE_GROUP;

#if CUREDUCE_COLS
// Lane `lane`'s share of a row of CUREDUCE_COLS elements: vectors lane, lane + GROUP, ... where
// whole and ALIGNED, else their elements one by one.
template <bool ALIGNED> __device__ __forceinline__ acc_t short_row(const kernel_source &row, unsigned lane) {
  const int chunk = CUREDUCE_GROUP * vector_elements;
  acc_t acc = sequence_start(row, CUREDUCE_COLS);
#pragma unroll
  for (int start = 0; start < CUREDUCE_COLS; start += chunk) {
    const int first = start + (int)lane * vector_elements;
    if (ALIGNED && first + vector_elements <= CUREDUCE_COLS) {
      acc = kernel_source::fold_one(acc, row.load_at((u64)first), (u64)first);
    } else {
#pragma unroll
      for (int j = 0; j < vector_elements; j++)
        if (first + j < CUREDUCE_COLS) acc = row.fold_element(acc, (u64)(first + j), (u64)(first + j));
    }
  }
  return acc;
}

// The groups' rows, CUREDUCE_UNROLL a group at a time, whether they start at whole vectors decided
// once, outside the loop. A group past the last row reads the last row again and stores nothing:
// with a branch around each row's load, ptxas folded each load before issuing the next row's, one
// load a thread in flight (rows of 32 and 64 f32 at 89-90% of the read ceiling on an H200).
template <bool ALIGNED>
__device__ __forceinline__ void compiled_rows(const kernel_source &source, const shape_t &shape, void *out,
                                              unsigned lane, u64 group, u64 warp_group, u64 groups) {
  for (u64 base = warp_group; base < shape.rows; base += CUREDUCE_UNROLL * groups) {
    const u64 first_row = group + (base - warp_group);
    acc_t v[CUREDUCE_UNROLL];
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++) {
      const u64 row = first_row + k * groups;
      v[k] = short_row<ALIGNED>(source.from((row < shape.rows ? row : shape.rows - 1) * shape.leading), lane);
    }
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++) {
      const u64 row = first_row + k * groups;
      v[k] = group_reduce<CUREDUCE_GROUP>(v[k]);
      if (lane == 0 && row < shape.rows) store_result(result_at(out, row), op::finish(v[k]));
    }
  }
}
#endif

#if CUREDUCE_COLS && CUREDUCE_GROUP == 1 && CUREDUCE_COLS * CUREDUCE_INPUT_BYTES < CUREDUCE_VECTOR_BYTES && \
    CUREDUCE_VECTOR_BYTES % (CUREDUCE_COLS * CUREDUCE_INPUT_BYTES) == 0 && !CUREDUCE_PAIR
// Rows shorter than a vector, back to back (leading dimension = length) and aligned: each load
// holds rows_per_vector whole rows, and the matrix is walked as a contiguous input, its results
// stored together. A load a row left rows of 2 f32 at 80% of their ceiling on an H200. (One
// input: pairs of such rows take a load of each input a row, through short_row.)
#define CUREDUCE_ROWS_PER_VECTOR (CUREDUCE_VECTOR_BYTES / (CUREDUCE_COLS * CUREDUCE_INPUT_BYTES))

// The rows of one vector, folded into their accumulators.
__device__ __forceinline__ void fold_packed_rows(vector_t raw, acc_t *acc) {
  unpacked u;
  u.raw = raw;
#pragma unroll
  for (int r = 0; r < CUREDUCE_ROWS_PER_VECTOR; r++) {
    acc[r] = value_start(map::apply(u.element[r * CUREDUCE_COLS]));
#pragma unroll
    for (int j = 0; j < CUREDUCE_COLS; j++) acc[r] = op::fold(acc[r], u.element[r * CUREDUCE_COLS + j], j);
  }
}

// The rows of a warp's 32 vectors in a row, the lane's at `vector`, stored together.
__device__ __forceinline__ void fold_warp_vectors(vector_t raw, u64 vector, void *out) {
  acc_t acc[CUREDUCE_ROWS_PER_VECTOR];
  fold_packed_rows(raw, acc);
  store_warp_results<CUREDUCE_ROWS_PER_VECTOR>(out, (vector - threadIdx.x % 32) * CUREDUCE_ROWS_PER_VECTOR, acc);
}

// Returns false, doing nothing, unless the rows are packed and aligned.
__device__ __forceinline__ bool packed_rows(const input_t *__restrict__ input, const shape_t &shape, void *out) {
  if (shape.leading != CUREDUCE_COLS || (u64)input % CUREDUCE_VECTOR_BYTES != 0) return false;
  const u64 thread = (u64)blockIdx.x * CUREDUCE_BLOCK + threadIdx.x, threads = (u64)gridDim.x * CUREDUCE_BLOCK;
  const u64 vectors = shape.rows / CUREDUCE_ROWS_PER_VECTOR;
  const vector_t *body = (const vector_t *)input;
  // Whole warps' vectors (the warp's last lane's in range: the same test on every lane) store
  // their results together; the last vectors, fewer than a warp's, each its own.
  const u64 warp_last = thread | 31;
  u64 v = thread;
  for (; warp_last + (v - thread) + (CUREDUCE_UNROLL - 1) * threads < vectors; v += CUREDUCE_UNROLL * threads) {
    vector_t loaded[CUREDUCE_UNROLL];
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++) loaded[k] = __ldg(body + v + k * threads);
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++) fold_warp_vectors(loaded[k], v + k * threads, out);
  }
  for (; warp_last + (v - thread) < vectors; v += threads) fold_warp_vectors(__ldg(body + v), v, out);
  if (v < vectors) {
    acc_t acc[CUREDUCE_ROWS_PER_VECTOR];
    fold_packed_rows(__ldg(body + v), acc);
    store_results<CUREDUCE_ROWS_PER_VECTOR>(out, v * CUREDUCE_ROWS_PER_VECTOR, acc);
  }
  for (u64 row = vectors * CUREDUCE_ROWS_PER_VECTOR + thread; row < shape.rows; row += threads)
    store_result(result_at(out, row), op::finish(short_row<false>(single_source{input + row * CUREDUCE_COLS}, 0)));
  return true;
}
#endif

extern "C" __global__ void __launch_bounds__(CUREDUCE_BLOCK)
    cureduce_kernel(const input_t *__restrict__ input, shape_t shape, void *out, void *, void *,
                    const input_t *__restrict__ second) {
  const kernel_source source = source_of(input, second);
  const unsigned lane = threadIdx.x % CUREDUCE_GROUP;
  const u64 groups = (u64)gridDim.x * groups_per_block;
  const u64 group = (u64)blockIdx.x * groups_per_block + threadIdx.x / CUREDUCE_GROUP;
  const u64 warp_group = group - (threadIdx.x % 32) / CUREDUCE_GROUP;  // the warp's first group
#ifdef CUREDUCE_ROWS_PER_VECTOR
  if (packed_rows(input, shape, out)) return;
#endif
#if CUREDUCE_COLS
  if (source.rows_aligned(shape.leading))
    compiled_rows<true>(source, shape, out, lane, group, warp_group, groups);
  else
    compiled_rows<false>(source, shape, out, lane, group, warp_group, groups);
#else
  for (u64 base = warp_group; base < shape.rows; base += groups) {
    const u64 row = group + (base - warp_group);
    u64 first = 0, length = 0;
    if (row < shape.rows) segment_of(shape, row, first, length);
    acc_t v = strided_accumulate(source.from(first), length, lane, CUREDUCE_GROUP);
    v = group_reduce<CUREDUCE_GROUP>(v);
    if (lane == 0 && row < shape.rows) store_result(result_at(out, row), op::finish(v));
  }
#endif
}
