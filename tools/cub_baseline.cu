// cub::DeviceReduce for cureduce-bench's baseline column, for every operation: Sum (TransformReduce
// into the accumulator), prod (TransformReduce with a multiply), Min, Max, ArgMin and ArgMax (value
// and int64 index outputs). The accumulator follows the library's rules, so both sides do the same
// work. The families live in cub_sum.cu, cub_product.cu, cub_extreme.cu and cub_arg_extreme.cu.
#include "cub_baseline.cuh"

extern "C" int cureduce_cub_reduce(cureduce_op op, cureduce_dtype type, const void *input, size_t n, void *output,
                                   void *temp, size_t *temp_bytes, void *stream) {
  const cub_call call = {op, input, n, output, temp, temp_bytes, static_cast<cudaStream_t>(stream)};
  switch (op) {
  case CUREDUCE_OP_SUM: return cub_sum(type, call);
  /* Against exact sums, CUB's plain (run-to-run deterministic) Sum: the toolkit's CUB 3.0.1 has no
   * gpu_to_gpu determinism to compare with. */
  case CUREDUCE_OP_EXACT_SUM: return cub_sum(type, call);
  case CUREDUCE_OP_PROD: return cub_product(type, call);
  case CUREDUCE_OP_MIN:
  case CUREDUCE_OP_MAX: return cub_extreme(type, call);
  case CUREDUCE_OP_ARGMIN:
  case CUREDUCE_OP_ARGMAX: return cub_arg_extreme(type, call);
  default: return -1;
  }
}

extern "C" int cureduce_cub_version(void) { return CUB_VERSION; }
