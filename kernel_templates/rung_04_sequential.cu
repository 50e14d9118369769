// Rung 4, sequential addressing: s runs from blockDim/2 down and the first s threads fold
// element tid + s into tid: contiguous active threads, no bank conflicts.
namespace cureduce {
template <typename Load> __device__ acc_t block_value(Load load, u64 n, acc_t *) {
  __shared__ acc_t tree[CUREDUCE_BLOCK];
  tree[threadIdx.x] = load_one(load, n);
  __syncthreads();
  fold_sequential(tree, threadIdx.x, blockDim.x / 2, 0);
  return tree[0];
}
}  // namespace cureduce
