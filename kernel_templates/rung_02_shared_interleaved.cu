// Rung 2, interleaved tree in shared memory: one element per thread loaded to shared memory,
// then the same modulo-selected, divergent tree.
namespace cureduce {
template <typename Load> __device__ acc_t block_value(Load load, u64 n, acc_t *) {
  __shared__ acc_t tree[CUREDUCE_BLOCK];
  const unsigned tid = threadIdx.x;
  tree[tid] = load_one(load, n);
  __syncthreads();
  fold_interleaved(tree, tid);
  return tree[0];
}
}  // namespace cureduce
