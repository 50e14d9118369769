// Rung 8, several elements per thread: each thread folds CUREDUCE_UNROLL elements in registers
// (load_several) before the completely unrolled tree.
namespace cureduce {
template <typename Load> __device__ acc_t block_value(Load load, u64 n, acc_t *) {
  __shared__ acc_t tree[CUREDUCE_BLOCK];
  tree[threadIdx.x] = load_several(load, n);
  __syncthreads();
  fold_unrolled_to_64(tree, threadIdx.x);
  if (threadIdx.x < 32) fold_last_warp(tree, threadIdx.x);
  return tree[0];
}
}  // namespace cureduce
