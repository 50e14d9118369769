// exact_sum of short rows, segments or columns (exact.cuh holds how a sum stays exact): a group of
// CUREDUCE_GROUP lanes a sequence (row groups and segment groups: a row or segment each; column
// tiles t1: a thread a column, adjacent threads on adjacent columns). The block paths cost a row
// a whole block's digits, cleared and rounded: on an H200, 2.4 ms for the 2^19 rows of 2 of 2^20
// f32 elements, 250 times their plain sum.
//
// The fast path needs no digits: the group finds its sequence's largest exponent, places its
// bands there (every element then fits the top band's upper limit) and adds each element into
// them. A sequence shorter than a band's budget leaves every band exact, and the group's bands,
// on the same quanta, add up exactly too. Where those few doubles add up to one double exactly
// (TwoSum: no error), that double is the sum, rounded once to the output: the usual case.
// Otherwise (elements too far below the largest, NaN or infinities, a sequence too long, or
// bands whose total needs more than 53 bits) the whole warp sums the sequence afterwards, as a
// warp sums a column (exact_columns.cu), into digits of its own in shared memory, and rounds.

const unsigned warps = CUREDUCE_BLOCK / 32, groups_per_warp = 32 / CUREDUCE_GROUP;

// A sequence: element k at start[k * gap].
struct sequence {
  const input_t *start;
  u64 length, gap;
};

__device__ __forceinline__ u64 sequence_count(const shape_t &shape) {
  return CUREDUCE_LAYOUT == CUREDUCE_LAYOUT_COLUMNS ? shape.cols : shape.rows;
}

__device__ __forceinline__ sequence sequence_of(const input_t *input, const shape_t &shape, u64 i) {
#if CUREDUCE_LAYOUT == CUREDUCE_LAYOUT_COLUMNS
  return {input + i, shape.rows, shape.leading};
#else
  u64 first, length;
  segment_of(shape, i, first, length);
  return {input + first, length, 1};
#endif
}

// The lanes of this lane's group, for the group's shuffles.
__device__ __forceinline__ unsigned group_mask() {
  const unsigned lanes = CUREDUCE_GROUP == 32 ? full_warp : (1u << CUREDUCE_GROUP) - 1u;
  return lanes << (threadIdx.x % 32 / CUREDUCE_GROUP * CUREDUCE_GROUP);
}

template <typename T, typename Combine> __device__ __forceinline__ T group_fold(T v, Combine combine) {
#pragma unroll
  for (int offset = CUREDUCE_GROUP / 2; offset > 0; offset >>= 1) v = combine(v, __shfl_xor_sync(group_mask(), v, offset));
  return v;
}

// Calls visit(x) on the elements of lane `member`'s share of s (member, member + GROUP, ...),
// CUREDUCE_UNROLL loads in flight; lanes past the end see zeros.
template <typename Visit> __device__ __forceinline__ void visit_share(const sequence &s, unsigned member, Visit visit) {
  for (u64 k = member; k < s.length; k += CUREDUCE_UNROLL * CUREDUCE_GROUP) {
    value_t x[CUREDUCE_UNROLL];
#pragma unroll
    for (int j = 0; j < CUREDUCE_UNROLL; j++) {
      const u64 i = k + (u64)j * CUREDUCE_GROUP;
      x[j] = i < s.length ? element_value(__ldg(s.start + i * s.gap)) : value_t(0);
    }
#pragma unroll
    for (int j = 0; j < CUREDUCE_UNROLL; j++) visit(x[j]);
  }
}

// Whether the doubles acc[0..count) add up to one double exactly (Knuth's TwoSum leaves no error
// at any step, and nothing overflows); that double in sum.
__device__ __forceinline__ bool add_exactly(const double *acc, double &sum) {
  bool exact = true;
  sum = acc[0];
#pragma unroll
  for (int k = 1; k < bands::count; k++) {
    const double s = __dadd_rn(sum, acc[k]), from_acc = __dsub_rn(s, sum);
    const double error = __dadd_rn(__dsub_rn(sum, __dsub_rn(s, from_acc)), __dsub_rn(acc[k], from_acc));
    exact &= error == 0.0;  // false for an overflow too: inf - inf is NaN
    sum = s;
  }
  return exact;
}

// The group's exact sum of s in `sum`, or false where the fast path cannot give it. Every lane of
// the group calls it, with the same s.
__device__ __forceinline__ bool sum_in_bands(const sequence &s, unsigned member, double &sum) {
  int largest = -2000;
  visit_share(s, member, [&](value_t x) {
    const value_t a = x < 0 ? -x : x;
    if (a != 0 && a - a == 0) largest = max(largest, exponent_of(a));  // a - a: NaN for infinity and NaN
  });
  largest = group_fold(largest, [](int a, int b) { return max(a, b); });
  bands b;
  b.place(largest > -2000 ? largest : bands::first_top);
  double acc[bands::count];
#pragma unroll
  for (int k = 0; k < bands::count; k++) acc[k] = 0.0;
  bool missed = s.length >= (u64)1 << bands::adds_log2;  // fewer addends than any band may take
  if (!missed) visit_share(s, member, [&](value_t x) { missed |= b.add(acc, x); });
#pragma unroll
  for (int k = 0; k < bands::count; k++) acc[k] = group_fold(acc[k], [](double a, double c) { return __dadd_rn(a, c); });
  missed = __any_sync(group_mask(), missed);
  return !missed && add_exactly(acc, sum);
}

// An exact sum rounded once to the output's precision and subnormals, to nearest, ties to even,
// as exact_round.h rounds: a value of the output type (or past its range, for the store to make
// infinite), so that converting it rounds no more. An exact zero is +0.
__device__ __forceinline__ double round_to_output(double exact) {
  if (exact == 0.0) return 0.0;
  if (CUREDUCE_EXACT_PRECISION >= 53) return exact;
  const int quantum = max(ilogb(exact) - CUREDUCE_EXACT_PRECISION + 1, CUREDUCE_EXACT_LOWEST);
  return scalbn(rint(scalbn(exact, -quantum)), quantum);
}

// The rare path: the whole warp sums s into `words` (its own, in shared memory) and its lane 0
// rounds them into out.
__device__ void sum_by_warp(const sequence &s, s64 *words, void *out) {
  const unsigned lane = threadIdx.x % 32;
  clear_words(words, lane, 32);
  __syncwarp();
  warp_state w;
  w.start();
  read_input(w, s.start, s.length, lane, 32, s.gap);
  add_to_block_words(w, words);
  __syncwarp();
  round_warp_words(out, words);
  __syncwarp();  // the next sequence clears the words that this rounding reads
}

extern "C" __global__ void __launch_bounds__(CUREDUCE_BLOCK, min_resident_blocks)
    cureduce_kernel(const input_t *__restrict__ input, shape_t shape, void *out, void *, void *, const input_t *) {
  __shared__ s64 warp_words[warps][block_word_count];
  const unsigned lane = threadIdx.x % 32, member = lane % CUREDUCE_GROUP;
  const u64 count = sequence_count(shape), per_round = (u64)gridDim.x * CUREDUCE_BLOCK / CUREDUCE_GROUP;
  // The groups of a warp take consecutive sequences, all in the same rounds: the warp agrees on
  // which of them take the rare path.
  for (u64 first = ((u64)blockIdx.x * warps + threadIdx.x / 32) * groups_per_warp; first < count; first += per_round) {
    const u64 i = first + lane / CUREDUCE_GROUP;
    const bool mine = i < count;
    const sequence s = mine ? sequence_of(input, shape, i) : sequence{input, 0, 1};
    double sum;
    const bool summed = sum_in_bands(s, member, sum);
    if (mine && summed && member == 0) store_result(result_at(out, i), round_to_output(sum));
    for (unsigned rare = __ballot_sync(full_warp, mine && !summed && member == 0); rare; rare &= rare - 1) {
      const u64 j = first + (unsigned)(__ffs(rare) - 1) / CUREDUCE_GROUP;
      sum_by_warp(sequence_of(input, shape, j), warp_words[threadIdx.x / 32], result_at(out, j));
    }
  }
}
