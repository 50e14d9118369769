// CUB's product: a Reduce with a multiply, into the library's accumulator type (integers wrap
// modulo 2^64, as the library's do).
#include <cuda/std/functional>

#include "cub_baseline.cuh"

template <typename In, typename Acc> struct product_family {
  static int run(const cub_call &c) {
    return cub::DeviceReduce::TransformReduce(c.temp, *c.temp_bytes, static_cast<const In *>(c.input),
                                              static_cast<Acc *>(c.output), c.n, cuda::std::multiplies<Acc>{},
                                              widen<In, Acc>{}, Acc(1), c.stream);
  }
};

int cub_product(cureduce_dtype type, const cub_call &call) { return for_type<product_family>(type, call); }
