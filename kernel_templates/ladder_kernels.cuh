// The two entry points of every ladder rung: the first pass reads the input, later passes read
// the partials of the pass before. A launch of one block writes the result.

namespace cureduce {
__device__ __forceinline__ void finish_pass(acc_t v, void *out, acc_t *partials) {
  if (threadIdx.x != 0) return;
  if (gridDim.x == 1)
    store_result(out, op::finish(v));
  else
    partials[blockIdx.x] = v;
}
}  // namespace cureduce

using namespace cureduce;

extern "C" __global__ void __launch_bounds__(CUREDUCE_BLOCK)
    cureduce_kernel(const input_t *__restrict__ input, u64 n, void *out, void *partials, void *work) {
  input_loader load = {input};
  finish_pass(block_value(load, n, (acc_t *)work), out, (acc_t *)partials);
}

extern "C" __global__ void __launch_bounds__(CUREDUCE_BLOCK)
    cureduce_kernel_partials(const acc_t *__restrict__ input, u64 n, void *out, void *partials, void *work) {
  partial_loader load = {input};
  finish_pass(block_value(load, n, (acc_t *)work), out, (acc_t *)partials);
}
