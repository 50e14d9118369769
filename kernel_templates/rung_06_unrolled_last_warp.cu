// Rung 6, unrolled last warp: the shared-memory tree stops at 64 values, and the first warp
// folds those without __syncthreads (with __syncwarp, which Volta and later need).
namespace cureduce {
template <typename Load> __device__ acc_t block_value(Load load, u64 n, acc_t *) {
  __shared__ acc_t tree[CUREDUCE_BLOCK];
  tree[threadIdx.x] = load_two(load, n, blockDim.x);
  __syncthreads();
  fold_sequential(tree, threadIdx.x, blockDim.x / 2, 32);
  if (threadIdx.x < 32) fold_last_warp(tree, threadIdx.x);
  return tree[0];
}
}  // namespace cureduce
