// Rung 3, strided index: thread tid folds element 2*s*tid + s into 2*s*tid. No modulo and
// no divergence within a warp, but the strided accesses conflict in the shared-memory banks.
namespace cureduce {
template <typename Load> __device__ acc_t block_value(Load load, u64 n, acc_t *) {
  __shared__ acc_t tree[CUREDUCE_BLOCK];
  const unsigned tid = threadIdx.x;
  tree[tid] = load_one(load, n);
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * tid;
    if (index < blockDim.x) tree[index] = op::combine(tree[index], tree[index + s]);
    __syncthreads();
  }
  return tree[0];
}
}  // namespace cureduce
