// Rung 0, serial per block: thread 0 of each block walks the block's elements alone.
namespace cureduce {
template <typename Load> __device__ acc_t block_value(Load load, u64 n, acc_t *) {
  acc_t v = op::identity();
  if (threadIdx.x == 0) {
    const u64 begin = (u64)blockIdx.x * blockDim.x, end = begin + blockDim.x < n ? begin + blockDim.x : n;
    for (u64 i = begin; i < end; i++) v = op::combine(v, load(i));
  }
  return v;
}
}  // namespace cureduce
