// The production strategy: one launch whatever n is. Vector loads in a grid-stride loop (see
// grid_stride_accumulate), warp-shuffle block folds, and the last block to finish folds the
// per-block partials in block order.

using namespace cureduce;

extern "C" __global__ void __launch_bounds__(CUREDUCE_BLOCK)
    cureduce_kernel(const input_t *__restrict__ input, u64 n, void *out, void *partials, void *work,
                    const input_t *__restrict__ second) {
  acc_t v = grid_stride_accumulate(source_of(input, second), n);
  v = block_reduce(v);
  finish_single_pass(v, out, (acc_t *)partials, (unsigned *)work);
}
