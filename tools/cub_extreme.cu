// CUB's Min and Max, in the input type.
#include "cub_baseline.cuh"

template <typename In, typename Acc> struct extreme_family {
  static int run(const cub_call &c) {
    const In *in = static_cast<const In *>(c.input);
    In *out = static_cast<In *>(c.output);
    return c.op == CUREDUCE_OP_MAX ? cub::DeviceReduce::Max(c.temp, *c.temp_bytes, in, out, c.n, c.stream)
                                   : cub::DeviceReduce::Min(c.temp, *c.temp_bytes, in, out, c.n, c.stream);
  }
};

int cub_extreme(cureduce_dtype type, const cub_call &call) { return for_type<extreme_family>(type, call); }
