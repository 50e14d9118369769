// CUB's ArgMin and ArgMax: the extreme value at byte 0 of the output, its int64 index at byte 8,
// the library's layout.
#include "cub_baseline.cuh"

template <typename In, typename Acc> struct arg_extreme_family {
  static int run(const cub_call &c) {
    const In *in = static_cast<const In *>(c.input);
    In *value = static_cast<In *>(c.output);
    long long *index = reinterpret_cast<long long *>(static_cast<char *>(c.output) + 8);
    const ::cuda::std::int64_t count = static_cast<::cuda::std::int64_t>(c.n);
    return c.op == CUREDUCE_OP_ARGMAX ? cub::DeviceReduce::ArgMax(c.temp, *c.temp_bytes, in, value, index, count, c.stream)
                                      : cub::DeviceReduce::ArgMin(c.temp, *c.temp_bytes, in, value, index, count, c.stream);
  }
};

int cub_arg_extreme(cureduce_dtype type, const cub_call &call) { return for_type<arg_extreme_family>(type, call); }
