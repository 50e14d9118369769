// CUB's product: a Reduce with a multiply, into the library's accumulator type (integers wrap
// modulo 2^64, as the library's do).
#include <cuda/std/functional>

#include "cub_baseline.cuh"

int cub_product(cureduce_dtype type, const cub_call &call) {
  return for_type<widening_reduce<cuda::std::multiplies, 1>::family>(type, call);
}
