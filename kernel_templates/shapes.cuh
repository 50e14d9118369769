// What the shaped strategies share: where each row or segment lies, where its result goes, and
// the fold of a group of lanes.
//
// The host adds to the prelude CUREDUCE_LAYOUT (the id of the problem's cureduce_layout, with
// CUREDUCE_LAYOUT_* for the ids), CUREDUCE_GROUP and CUREDUCE_COLS (the spec's t and c fields),
// and CUREDUCE_INPUT_BYTES, the input element's size, for the preprocessor.

namespace cureduce {

// The kernels' shape argument, laid out as the host's cureduce_shape_argument (shape.h).
struct shape_t {
  u64 rows;     // rows of the matrix, or segments
  u64 cols;     // elements a row
  u64 leading;  // elements from one row's start to the next's
  const long long *begin, *end;  // segments: the offsets
};

// Row or segment i: its first element and its length (an end at or before the begin is empty).
__device__ __forceinline__ void segment_of(const shape_t &shape, u64 i, u64 &first, u64 &length) {
#if CUREDUCE_LAYOUT == CUREDUCE_LAYOUT_SEGMENTS
  const long long b = __ldg(shape.begin + i), e = __ldg(shape.end + i);
  first = (u64)b;
  length = e > b ? (u64)(e - b) : 0;
#else
  first = i * shape.leading;
  length = shape.cols;
#endif
}

// The blocks a row or segment of `length` elements takes among the splits (gridDim.x) of a
// row_blocks or exact_rows launch: as many as have a whole round of loads each, one at least.
__device__ __forceinline__ unsigned blocks_for(u64 length) {
  const u64 per_block = (u64)CUREDUCE_BLOCK * CUREDUCE_UNROLL * vector_elements;
  const u64 wanted = (length + per_block - 1) / per_block;
  return wanted < 1 ? 1u : wanted < gridDim.x ? (unsigned)wanted : gridDim.x;
}

// Results lie one after another: an argmin/argmax result takes 16 bytes (value, index at 8), a
// variance or standard deviation 24 (the mean at 16).
#define CUREDUCE_RESULT_IS_RECORD                                                             \
  (CUREDUCE_OP == CUREDUCE_OP_ARGMIN || CUREDUCE_OP == CUREDUCE_OP_ARGMAX ||                  \
   (CUREDUCE_OP >= CUREDUCE_OP_VARIANCE && CUREDUCE_OP <= CUREDUCE_OP_SAMPLE_STD))
const u64 result_bytes = CUREDUCE_OP == CUREDUCE_OP_ARGMIN || CUREDUCE_OP == CUREDUCE_OP_ARGMAX ? 16
                         : CUREDUCE_RESULT_IS_RECORD                                          ? 24
                                                                                              : sizeof(element<CUREDUCE_OUTPUT>::storage);
__device__ __forceinline__ void *result_at(void *out, u64 i) { return (char *)out + i * result_bytes; }

#if !CUREDUCE_RESULT_IS_RECORD
typedef element<CUREDUCE_OUTPUT>::storage result_t;

// Results COUNT at a time: in stores of up to 16 bytes, a chunk of results each.
template <int COUNT> struct result_chunks {
  static const int results = COUNT * sizeof(result_t) <= 16 ? COUNT : 16 / (int)sizeof(result_t);  // a chunk's
  static const int count = COUNT / results;
  typedef typename raw_vector<results * sizeof(result_t)>::type chunk_t;
};

// The results of accumulators acc[0 .. CHUNK.results - 1], packed into one chunk.
template <typename CHUNK> __device__ __forceinline__ typename CHUNK::chunk_t pack_results(const acc_t *acc) {
  typedef element<CUREDUCE_OUTPUT> O;
  union {
    typename CHUNK::chunk_t raw;
    result_t value[CHUNK::results];
  } packed;
#pragma unroll
  for (int j = 0; j < CHUNK::results; j++) packed.value[j] = O::from_value((typename O::value)op::finish(acc[j]));
  return packed.raw;
}
#endif

// Results i, i + 1, ..., i + COUNT - 1 from their accumulators: in whole stores of up to 16 bytes
// where the output is aligned for them, else one by one. One 4-byte store a result, a warp's
// lanes 16 bytes apart, wrote each line in pieces: the columns of a one-row matrix ran at a
// third of the copy rate on an H200.
template <int COUNT> __device__ __forceinline__ void store_results(void *out, u64 i, const acc_t *acc) {
#if !CUREDUCE_RESULT_IS_RECORD
  typedef result_chunks<COUNT> chunks;
  typedef typename chunks::chunk_t chunk_t;
  if ((u64)result_at(out, i) % sizeof(chunk_t) == 0) {
#pragma unroll
    for (int c = 0; c < chunks::count; c++)
      ((chunk_t *)result_at(out, i))[c] = pack_results<chunks>(acc + c * chunks::results);
    return;
  }
#endif
#pragma unroll
  for (int j = 0; j < COUNT; j++) store_result(result_at(out, i + j), op::finish(acc[j]));
}

// A warp's results, lane l's COUNT of them at i + l * COUNT: every lane of the warp calls it, with
// the same i. Where a lane's results take more than one 16-byte store, its stores lay 32 to 128
// bytes apart across the warp, each instruction writing 32 pieces of sectors: such results go
// through shared memory, 32 chunks of 16 bytes at a time (32 / count lanes' chunks), which the
// warp then stores as 512 bytes in a row. A staged lane's chunks lie in a row of count + 1, so
// that a quarter warp's 16-byte accesses to shared memory (8 lanes at once) fall on 8 different
// 16-byte columns of its 128 bytes, or on 7 where the reads cross a padding chunk (rows of count
// would put lanes' chunk q on the same 4 banks), and every address is a lane's base and a
// constant. At most 768 bytes a warp, 24 KB a block of 1024 threads: column tiles' fold down
// takes up to 8 KB more of the 48 KB of static shared memory.
template <int COUNT> __device__ __forceinline__ void store_warp_results(void *out, u64 i, const acc_t *acc) {
  const unsigned lane = threadIdx.x % 32;
#if !CUREDUCE_RESULT_IS_RECORD
  typedef result_chunks<COUNT> chunks;
  typedef typename chunks::chunk_t chunk_t;
  if constexpr (chunks::count > 1) {
    const unsigned count = chunks::count, pass_lanes = 32 / count, row = count + 1;
    static_assert(count <= 8 && 32 % count == 0, "a lane's results fill 2, 4 or 8 chunks");
    if ((u64)result_at(out, i) % sizeof(chunk_t) != 0) return store_results<COUNT>(out, i + lane * COUNT, acc);
    __shared__ chunk_t staged[CUREDUCE_BLOCK / 32][pass_lanes * row];
    chunk_t *warp_staged = staged[threadIdx.x / 32], *to = (chunk_t *)result_at(out, i);
#pragma unroll
    for (unsigned first = 0; first < 32; first += pass_lanes) {
      if (lane - first < pass_lanes)
#pragma unroll
        for (int q = 0; q < count; q++) warp_staged[(lane - first) * row + q] = pack_results<chunks>(acc + q * chunks::results);
      __syncwarp();
      to[first * count + lane] = warp_staged[lane + lane / count];
      __syncwarp();  // the next pass, or the next call, overwrites what this one read
    }
    return;
  }
#endif
  store_results<COUNT>(out, i + lane * COUNT, acc);
}

// Folds the values of GROUP aligned lanes (a power of two up to 32) into the group's first lane.
// Every lane of the warp must take part. A whole warp folds as a block's warps do (warp_fold: the
// arg operations' and logsumexp's largest by redux.sync, the moments' three sums split between the
// lanes), where a tree of combines moved every word at every level.
template <int GROUP> __device__ __forceinline__ acc_t group_reduce(acc_t v) {
  if constexpr (GROUP == 32) {
    return warp_reduce(v);
  } else {
#pragma unroll
    for (int offset = GROUP / 2; offset > 0; offset >>= 1) v = op::combine(v, shuffle_down(v, offset));
    return v;
  }
}

}  // namespace cureduce
