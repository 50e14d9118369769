// Rung 11, vectorized grid-stride: a grid sized to the device, each thread loading
// CUREDUCE_VECTOR_BYTES at a time in a grid-stride loop into registers, then the warp-shuffle
// block fold. Partials of later passes are read one element at a time.
namespace cureduce {
__device__ acc_t block_value(input_loader load, u64 n, acc_t *) { return block_reduce(grid_stride_accumulate(single_source{load.p}, n)); }

__device__ acc_t block_value(partial_loader load, u64 n, acc_t *) {
  acc_t v = op::identity();
  for (u64 i = (u64)blockIdx.x * CUREDUCE_BLOCK + threadIdx.x; i < n; i += (u64)gridDim.x * CUREDUCE_BLOCK)
    v = op::combine(v, load(i));
  return block_reduce(v);
}
}  // namespace cureduce
