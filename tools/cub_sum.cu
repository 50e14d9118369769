// CUB's sum, into the library's accumulator type.
#include <cuda/std/functional>

#include "cub_baseline.cuh"

int cub_sum(cureduce_dtype type, const cub_call &call) {
  return for_type<widening_reduce<cuda::std::plus, 0>::family>(type, call);
}
