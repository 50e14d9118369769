// CUB's sum, into the library's accumulator type.
#include <cuda/std/functional>

#include "cub_baseline.cuh"

template <typename In, typename Acc> struct sum_family {
  static int run(const cub_call &c) {
    return cub::DeviceReduce::TransformReduce(c.temp, *c.temp_bytes, static_cast<const In *>(c.input),
                                              static_cast<Acc *>(c.output), c.n, cuda::std::plus<Acc>{},
                                              widen<In, Acc>{}, Acc(0), c.stream);
  }
};

int cub_sum(cureduce_dtype type, const cub_call &call) { return for_type<sum_family>(type, call); }
