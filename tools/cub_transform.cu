// CUB against the library's transforms (cureduce-bench --transform): TransformReduce with the same
// map for L1 (sum of |x|), amax (max of |x|), the sum of squares and the count of nonzeros, and
// ArgMax over a transform iterator for argmax of |x| (BLAS i?amax). Maps compute in the float
// accumulator type (f32 for f16, bf16 and f32; f64 for f64), as the library's do; counts in u64.
#include <cuda/std/functional>
#include <thrust/iterator/transform_iterator.h>

#include "cub_baseline.cuh"

template <typename Acc> struct absolute {
  template <typename In> __device__ Acc operator()(In x) const {
    const Acc v = static_cast<Acc>(x);
    return v < Acc(0) ? -v : v;
  }
};
template <typename Acc> struct square {
  template <typename In> __device__ Acc operator()(In x) const {
    const Acc v = static_cast<Acc>(x);
    return v * v;
  }
};
template <typename Acc> struct nonzero {
  template <typename In> __device__ unsigned long long operator()(In x) const { return static_cast<Acc>(x) != Acc(0); }
};
template <typename Acc> struct larger {
  __device__ Acc operator()(Acc a, Acc b) const { return a < b ? b : a; }
};

struct transform_call {
  cureduce_op op;
  cureduce_transform transform;
  cub_call call;
};

template <typename In, typename Acc> struct transform_family {
  static int run(const transform_call &t) {
    const cub_call &c = t.call;
    const In *in = static_cast<const In *>(c.input);
    if (t.transform == CUREDUCE_TRANSFORM_NONZERO && t.op == CUREDUCE_OP_SUM)
      return cub::DeviceReduce::TransformReduce(c.temp, *c.temp_bytes, in, static_cast<unsigned long long *>(c.output),
                                                c.n, cuda::std::plus<unsigned long long>{}, nonzero<Acc>{}, 0ull,
                                                c.stream);
    if (t.transform == CUREDUCE_TRANSFORM_SQUARE && t.op == CUREDUCE_OP_SUM)
      return cub::DeviceReduce::TransformReduce(c.temp, *c.temp_bytes, in, static_cast<Acc *>(c.output), c.n,
                                                cuda::std::plus<Acc>{}, square<Acc>{}, Acc(0), c.stream);
    if (t.transform != CUREDUCE_TRANSFORM_ABS)
      return -1;
    Acc *out = static_cast<Acc *>(c.output);
    switch (t.op) {
    case CUREDUCE_OP_SUM:
      return cub::DeviceReduce::TransformReduce(c.temp, *c.temp_bytes, in, out, c.n, cuda::std::plus<Acc>{},
                                                absolute<Acc>{}, Acc(0), c.stream);
    case CUREDUCE_OP_MAX:
      return cub::DeviceReduce::TransformReduce(c.temp, *c.temp_bytes, in, out, c.n, larger<Acc>{}, absolute<Acc>{},
                                                Acc(0), c.stream);
    case CUREDUCE_OP_ARGMAX: {
      long long *index = reinterpret_cast<long long *>(static_cast<char *>(c.output) + 8);
      auto magnitudes = thrust::make_transform_iterator(in, absolute<Acc>{});
      return cub::DeviceReduce::ArgMax(c.temp, *c.temp_bytes, magnitudes, out, index,
                                       static_cast<::cuda::std::int64_t>(c.n), c.stream);
    }
    default: return -1;
    }
  }
};

extern "C" int cureduce_cub_transform_reduce(cureduce_op op, cureduce_transform transform, cureduce_dtype type,
                                             const void *input, size_t n, void *output, void *temp,
                                             size_t *temp_bytes, void *stream) {
  const transform_call call = {op, transform, {op, input, n, output, temp, temp_bytes, static_cast<cudaStream_t>(stream)}};
  switch (type) {
  case CUREDUCE_F16: return transform_family<__half, float>::run(call);
  case CUREDUCE_BF16: return transform_family<__nv_bfloat16, float>::run(call);
  case CUREDUCE_F32: return transform_family<float, float>::run(call);
  case CUREDUCE_F64: return transform_family<double, double>::run(call);
  default: return -1;
  }
}
