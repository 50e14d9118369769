// Where a thread's elements come from (one input or a pair), their accumulation over a grid, and
// the single-pass finish of a launch's partials.
//
// Each thread walks the aligned body of the input in a grid-stride loop of whole vectors,
// CUREDUCE_UNROLL loads in flight before the first is used, each into its own accumulator
// (accumulators_of). The few elements before the first aligned address (the head) and after the
// last whole vector (the tail) are taken one by one by the first threads.

namespace cureduce {

// Where a thread's elements come from, for strided_accumulate and the shaped kernels: `loads`,
// what one load brings; the elements before the first whole load (head); the body, where whole
// loads start after them, and its load v; the load starting at element i (a whole load's start);
// the folds of a load, of an iteration's loads, of element j of a load and of element i, the last
// two as the element of a given index (a column's: its row; element j's after every index already
// in the accumulator: later_fold); whether rows `leading` elements apart all start at a whole
// load; the source from element `first` on. One input here; a map of two inputs reads pairs
// (pair_source).
struct single_source {
  const input_t *__restrict__ input;
  typedef vector_t loads;
  typedef const vector_t *body_t;
  __device__ __forceinline__ u64 head(u64 n) const { return head_of(input, n); }
  __device__ __forceinline__ body_t body(u64 head) const { return (const vector_t *)(input + head); }
  static __device__ __forceinline__ loads load(body_t body, u64 v) { return __ldg(body + v); }
  __device__ __forceinline__ loads load_at(u64 i) const { return __ldg((const vector_t *)(input + i)); }
  static __device__ __forceinline__ void fold_all(acc_t *acc, const loads *loaded, u64 first_index, u64 stride) {
    fold_loads(acc, loaded, first_index, stride);
  }
  static __device__ __forceinline__ acc_t fold_one(acc_t acc, loads loaded, u64 first_index) {
    return fold_vector(acc, loaded, first_index);
  }
  static __device__ __forceinline__ acc_t fold_lane(acc_t acc, loads loaded, int j, u64 index) {
    unpacked u;
    u.raw = loaded;
    return op::fold_later(acc, u.element[j], index);
  }
  __device__ __forceinline__ acc_t fold_element(acc_t acc, u64 i, u64 index) const { return op::fold(acc, input[i], index); }
  __device__ __forceinline__ op::mapped_storage first_mapped() const { return map::apply(input[0]); }
  __device__ __forceinline__ bool rows_aligned(u64 leading) const {
    return (((u64)input | leading * sizeof(input_t)) % CUREDUCE_VECTOR_BYTES) == 0;
  }
  __device__ __forceinline__ single_source from(u64 first) const { return single_source{input + first}; }
};
#endif

#if CUREDUCE_PAIR
// Two inputs, element i of x with element i of y. Where they lie equally far from a vector boundary
// both are read in whole vectors; otherwise every element is taken one by one (any alignment is
// right, a different one slower).
struct vector_pair {
  vector_t x, y;
};
struct pair_source {
  const input_t *__restrict__ x;
  const input_t *__restrict__ y;
  typedef vector_pair loads;
  struct body_t {
    const vector_t *x, *y;
  };
  __device__ __forceinline__ u64 head(u64 n) const {
    return ((u64)x - (u64)y) % CUREDUCE_VECTOR_BYTES == 0 ? head_of(x, n) : n;
  }
  __device__ __forceinline__ body_t body(u64 head) const {
    return body_t{(const vector_t *)(x + head), (const vector_t *)(y + head)};
  }
  static __device__ __forceinline__ loads load(body_t body, u64 v) {
    return vector_pair{__ldg(body.x + v), __ldg(body.y + v)};
  }
  __device__ __forceinline__ loads load_at(u64 i) const {
    return vector_pair{__ldg((const vector_t *)(x + i)), __ldg((const vector_t *)(y + i))};
  }
  static __device__ __forceinline__ acc_t fold_lane(acc_t acc, loads loaded, int j, u64 index) {
    unpacked ux, uy;
    ux.raw = loaded.x, uy.raw = loaded.y;
    return op::fold_pair_later(acc, ux.element[j], uy.element[j], index);
  }
  static __device__ __forceinline__ acc_t fold_one(acc_t acc, loads loaded, u64 first_index) {
    unpacked ux, uy;
    ux.raw = loaded.x, uy.raw = loaded.y;
    return op::fold_pair_run(acc, ux.element, uy.element, first_index);
  }
  static __device__ __forceinline__ void fold_all(acc_t *acc, const loads *loaded, u64 first_index, u64 stride) {
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++) {
      acc_t &into = acc[k % thread_accumulators];
      into = fold_one(into, loaded[k], first_index + k * stride);
    }
  }
  __device__ __forceinline__ acc_t fold_element(acc_t acc, u64 i, u64 index) const {
    return op::fold_pair(acc, x[i], y[i], index);
  }
  __device__ __forceinline__ op::mapped_storage first_mapped() const { return map::apply(x[0], y[0]); }
  __device__ __forceinline__ bool rows_aligned(u64 leading) const {
    return (((u64)x | (u64)y | leading * sizeof(input_t)) % CUREDUCE_VECTOR_BYTES) == 0;
  }
  __device__ __forceinline__ pair_source from(u64 first) const { return pair_source{x + first, y + first}; }
};
typedef pair_source kernel_source;
#else
typedef single_source kernel_source;
#endif

// Every kernel takes its input, x, first and y last (NULL for one input): the source they make.
__device__ __forceinline__ kernel_source source_of(const input_t *__restrict__ x, const input_t *__restrict__ y) {
#if CUREDUCE_PAIR
  return pair_source{x, y};
#else
  (void)y;
  return single_source{x};
#endif
}

// The accumulator a sequence whose first mapped value is `first` starts from: identity(), but the
// moments' take it as their shift (moments_reduction).
__device__ __forceinline__ acc_t value_start(op::mapped_storage first) {
  return op::shifted ? op::start(first) : op::identity();
}

// The accumulator a fold of the sequence's n elements starts from (value_start), its first element
// read for the moments only.
template <typename S> __device__ __forceinline__ acc_t sequence_start(const S &sequence, u64 n) {
  return op::shifted && n != 0 ? value_start(sequence.first_mapped()) : op::identity();
}

// The elements [0, n) of the source, taken by `threads` threads of which this is `thread`: whole
// loads in a strided loop, CUREDUCE_UNROLL in flight, the head and tail element by element.
// Indices are from the source's start.
template <typename S>
__device__ __forceinline__ acc_t strided_accumulate(const S &source, u64 n, u64 thread, u64 threads) {
  const u64 head = source.head(n);
  const u64 vectors = (n - head) / vector_elements;
  const u64 tail_start = head + vectors * vector_elements;
  const typename S::body_t body = source.body(head);

  acc_t acc[thread_accumulators];
#pragma unroll
  for (int k = 0; k < thread_accumulators; k++) acc[k] = sequence_start(source, n);

  u64 v = thread;
  for (; v + (CUREDUCE_UNROLL - 1) * threads < vectors; v += CUREDUCE_UNROLL * threads) {
    typename S::loads loaded[CUREDUCE_UNROLL];
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++) loaded[k] = S::load(body, v + k * threads);
    S::fold_all(acc, loaded, head + v * vector_elements, threads * vector_elements);
  }
  for (; v < vectors; v += threads) acc[0] = S::fold_one(acc[0], S::load(body, v), head + v * vector_elements);
  // Fewer threads than head or tail elements only in a small group (row_groups.cu).
  for (u64 i = thread; i < head; i += threads) acc[0] = source.fold_element(acc[0], i, i);
  for (u64 i = tail_start + thread; i < n; i += threads) acc[0] = source.fold_element(acc[0], i, i);

#pragma unroll
  for (int k = 1; k < thread_accumulators; k++) acc[0] = op::combine(acc[0], acc[k]);
  return acc[0];
}

// The whole grid over the whole source.
__device__ __forceinline__ acc_t grid_stride_accumulate(const kernel_source &source, u64 n) {
  return strided_accumulate(source, n, (u64)blockIdx.x * CUREDUCE_BLOCK + threadIdx.x,
                            (u64)gridDim.x * CUREDUCE_BLOCK);
}

// The partials p[i * stride] for i = first, first + step, ... below count, folded into v in that
// order with IN_FLIGHT loads at a time: taken one after another, each cost a round trip to L2
// (ptxas unrolled the sum's finish by itself, not argmax's, whose partials are two loads each).
template <unsigned IN_FLIGHT>
__device__ __forceinline__ acc_t fold_partials(acc_t v, const acc_t *p, unsigned first, unsigned step, unsigned count,
                                               u64 stride) {
  unsigned i = first;
#pragma unroll 1  // IN_FLIGHT at a time: ptxas unrolling further held a sum's partials in 8 more registers
  for (; i + (IN_FLIGHT - 1) * step < count; i += IN_FLIGHT * step) {
    acc_t loaded[IN_FLIGHT];
#pragma unroll
    for (unsigned k = 0; k < IN_FLIGHT; k++) loaded[k] = load_partial(p + (u64)(i + k * step) * stride);
#pragma unroll
    for (unsigned k = 0; k < IN_FLIGHT; k++) v = op::combine(v, loaded[k]);
  }
  for (; i < count; i += step) v = op::combine(v, load_partial(p + (u64)i * stride));
  return v;
}

// The single-pass finish of `blocks` blocks, this one the `place`-th: every block leaves its
// partial, and the last block to arrive folds all partials in block order (so the result does not
// depend on which block was last), writes the result, and re-arms the ticket for the next launch
// on this workspace. Rows and segments finish each with blocks of their own (row_blocks.cu).
__device__ __forceinline__ void finish_blocks(acc_t block_value, unsigned blocks, unsigned place, void *out,
                                              acc_t *partials, unsigned *ticket) {
  if (blocks == 1) {
    if (threadIdx.x == 0) store_result(out, op::finish(block_value));
    return;
  }
  __shared__ bool is_last_block;
  if (threadIdx.x == 0) {
    store_partial(&partials[place], block_value);
    __threadfence();
    is_last_block = atomicAdd(ticket, 1u) == blocks - 1;
  }
  __syncthreads();
  if (!is_last_block) return;
  __threadfence();
  acc_t v = fold_partials<4>(op::identity(), partials, threadIdx.x, CUREDUCE_BLOCK, blocks, 1);
  v = block_reduce(v);
  if (threadIdx.x == 0) {
    store_result(out, op::finish(v));
    *ticket = 0;
  }
}

__device__ __forceinline__ void finish_single_pass(acc_t block_value, void *out, acc_t *partials,
                                                  unsigned *ticket) {
  finish_blocks(block_value, gridDim.x, blockIdx.x, out, partials, ticket);
}

}  // namespace cureduce
