// What rungs 0 to 11 of the classic reduce ladder share: where a pass reads from, and the
// classic finish. Each block leaves one partial; the host launches the strategy again over the
// partials (the second entry point) until one block remains, which writes the result.
//
// Each rung's file defines block_value(load, n, work): the value of this block's elements,
// valid in thread 0. `load(i)` gives element i as an accumulator; `work` is a global work area
// of one accumulator per launched thread (only rung 1 uses it). Every rung takes any n: an
// element past the end counts as the identity.

namespace cureduce {

struct input_loader {
  const input_t *p;
  __device__ __forceinline__ acc_t operator()(u64 i) const { return op::lift(p[i], i); }
};

struct partial_loader {
  const acc_t *p;
  __device__ __forceinline__ acc_t operator()(u64 i) const { return p[i]; }
};

template <typename Load> __device__ __forceinline__ acc_t load_or_identity(Load load, u64 i, u64 n) {
  return i < n ? load(i) : op::identity();
}

// The last warp of a shared-memory tree, folding 64 values without __syncthreads. volatile keeps
// each value in memory, and __syncwarp between the reads and the writes of a level orders the
// lanes: the classic version without it is a race on Volta and later.
__device__ __forceinline__ void fold_last_warp(volatile acc_t *tree, unsigned tid) {
#pragma unroll
  for (unsigned s = 32; s > 0; s >>= 1) {
    acc_t v = op::combine(tree[tid], tree[tid + s]);
    __syncwarp();
    tree[tid] = v;
    __syncwarp();
  }
}

// The loads of the rungs. One element per thread (rungs 1 to 4):
template <typename Load> __device__ __forceinline__ acc_t load_one(Load load, u64 n) {
  return load_or_identity(load, (u64)blockIdx.x * blockDim.x + threadIdx.x, n);
}

// Two elements per thread, `block` apart, folded as they load (rungs 5 to 7).
template <typename Load> __device__ __forceinline__ acc_t load_two(Load load, u64 n, unsigned block) {
  const u64 i = (u64)blockIdx.x * 2 * block + threadIdx.x;
  return op::combine(load_or_identity(load, i, n), load_or_identity(load, i + block, n));
}

// CUREDUCE_UNROLL elements per thread, CUREDUCE_BLOCK apart, folded in registers (rungs 8 to 10).
template <typename Load> __device__ __forceinline__ acc_t load_several(Load load, u64 n) {
  const u64 base = (u64)blockIdx.x * CUREDUCE_BLOCK * CUREDUCE_UNROLL + threadIdx.x;
  acc_t v = op::identity();
#pragma unroll
  for (int k = 0; k < CUREDUCE_UNROLL; k++) v = op::combine(v, load_or_identity(load, base + (u64)k * CUREDUCE_BLOCK, n));
  return v;
}

// The interleaved tree of rungs 1 and 2 over the block's values in `tree`: at each level the
// threads whose index is a multiple of 2s fold element tid + s into tid (divergent warps).
__device__ __forceinline__ void fold_interleaved(acc_t *tree, unsigned tid) {
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) tree[tid] = op::combine(tree[tid], tree[tid + s]);
    __syncthreads();
  }
}

// Sequential addressing from `from` down to `to` (exclusive): active threads are the first s.
__device__ __forceinline__ void fold_sequential(acc_t *tree, unsigned tid, unsigned from, unsigned to) {
  for (unsigned s = from; s > to; s >>= 1) {
    if (tid < s) tree[tid] = op::combine(tree[tid], tree[tid + s]);
    __syncthreads();
  }
}

// Sequential addressing with the block size a compile-time constant, down to 64 values: every
// level unrolled, and no test of s against the block size left at run time (rungs 7 to 9).
__device__ __forceinline__ void fold_unrolled_to_64(acc_t *tree, unsigned tid) {
#pragma unroll
  for (unsigned s = CUREDUCE_BLOCK / 2; s > 32; s >>= 1) {
    if (tid < s) tree[tid] = op::combine(tree[tid], tree[tid + s]);
    __syncthreads();
  }
}

}  // namespace cureduce
