// Rung 9, shuffles for the last warp: as rung 8, but the last 64 values are folded in registers
// with __shfl_down_sync instead of through shared memory.
namespace cureduce {
template <typename Load> __device__ acc_t block_value(Load load, u64 n, acc_t *) {
  __shared__ acc_t tree[CUREDUCE_BLOCK];
  const unsigned tid = threadIdx.x;
  tree[tid] = load_several(load, n);
  __syncthreads();
  fold_unrolled_to_64(tree, tid);
  acc_t v = op::identity();
  if (tid < 32) v = warp_reduce(op::combine(tree[tid], tree[tid + 32]));
  return v;
}
}  // namespace cureduce
