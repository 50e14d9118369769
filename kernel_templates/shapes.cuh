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

// Results lie one after another: an argmin/argmax result takes 16 bytes (value, index at 8), a
// variance or standard deviation 24 (the mean at 16).
#define CUREDUCE_RESULT_IS_RECORD                                                             \
  (CUREDUCE_OP == CUREDUCE_OP_ARGMIN || CUREDUCE_OP == CUREDUCE_OP_ARGMAX ||                  \
   (CUREDUCE_OP >= CUREDUCE_OP_VARIANCE && CUREDUCE_OP <= CUREDUCE_OP_SAMPLE_STD))
const u64 result_bytes = CUREDUCE_OP == CUREDUCE_OP_ARGMIN || CUREDUCE_OP == CUREDUCE_OP_ARGMAX ? 16
                         : CUREDUCE_RESULT_IS_RECORD                                          ? 24
                                                                                              : sizeof(element<CUREDUCE_OUTPUT>::storage);
__device__ __forceinline__ void *result_at(void *out, u64 i) { return (char *)out + i * result_bytes; }

// Results i, i + 1, ..., i + COUNT - 1 from their accumulators: in whole stores of up to 16 bytes
// where the output is aligned for them, else one by one. One 4-byte store a result, a warp's
// lanes 16 bytes apart, wrote each line in pieces: the columns of a one-row matrix ran at a
// third of the copy rate on an H200.
template <int COUNT> __device__ __forceinline__ void store_results(void *out, u64 i, const acc_t *acc) {
#if !CUREDUCE_RESULT_IS_RECORD
  typedef element<CUREDUCE_OUTPUT> O;
  typedef typename O::storage out_t;
  const int chunk = COUNT * sizeof(out_t) <= 16 ? COUNT : 16 / (int)sizeof(out_t);
  typedef typename raw_vector<chunk * sizeof(out_t)>::type chunk_t;
  if ((u64)result_at(out, i) % sizeof(chunk_t) == 0) {
#pragma unroll
    for (int c = 0; c < COUNT; c += chunk) {
      union {
        chunk_t raw;
        out_t value[chunk];
      } packed;
#pragma unroll
      for (int j = 0; j < chunk; j++) packed.value[j] = O::from_value((typename O::value)op::finish(acc[c + j]));
      *(chunk_t *)result_at(out, i + c) = packed.raw;
    }
    return;
  }
#endif
#pragma unroll
  for (int j = 0; j < COUNT; j++) store_result(result_at(out, i + j), op::finish(acc[j]));
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
