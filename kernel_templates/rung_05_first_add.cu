// Rung 5, first add during load: each thread folds two elements, blockDim apart, as it loads,
// so half as many blocks cover the input; then sequential addressing.
namespace cureduce {
template <typename Load> __device__ acc_t block_value(Load load, u64 n, acc_t *) {
  __shared__ acc_t tree[CUREDUCE_BLOCK];
  tree[threadIdx.x] = load_two(load, n, blockDim.x);
  __syncthreads();
  fold_sequential(tree, threadIdx.x, blockDim.x / 2, 0);
  return tree[0];
}
}  // namespace cureduce
