// Rung 7, completely unrolled: the block size is the compile-time constant CUREDUCE_BLOCK, so
// the loads and every level of the tree are unrolled (fold_unrolled_to_64) and the tests of s
// against the block size vanish.
namespace cureduce {
template <typename Load> __device__ acc_t block_value(Load load, u64 n, acc_t *) {
  __shared__ acc_t tree[CUREDUCE_BLOCK];
  tree[threadIdx.x] = load_two(load, n, CUREDUCE_BLOCK);
  __syncthreads();
  fold_unrolled_to_64(tree, threadIdx.x);
  if (threadIdx.x < 32) fold_last_warp(tree, threadIdx.x);
  return tree[0];
}
}  // namespace cureduce
