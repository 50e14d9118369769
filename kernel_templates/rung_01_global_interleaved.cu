// Rung 1, interleaved tree in global memory: each thread copies its element to the work area,
// then at each level the threads whose index is a multiple of 2s fold element tid + s into tid.
namespace cureduce {
template <typename Load> __device__ acc_t block_value(Load load, u64 n, acc_t *work) {
  const unsigned tid = threadIdx.x;
  acc_t *tree = work + (u64)blockIdx.x * blockDim.x;
  tree[tid] = load_one(load, n);
  __syncthreads();
  fold_interleaved(tree, tid);
  return tree[0];
}
}  // namespace cureduce
