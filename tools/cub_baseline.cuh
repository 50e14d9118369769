// What the CUB baseline's translation units share: one call's arguments, and the dispatch from the
// library's type to (element type, accumulator type). Each operation family lives in a .cu of its
// own so that nvcc compiles them in parallel: CUB's kernels for ten types take a minute each.
#ifndef CUREDUCE_CUB_BASELINE_CUH
#define CUREDUCE_CUB_BASELINE_CUH

#include <cub/device/device_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cub_baseline.h"

struct cub_call {
  cureduce_op op;
  const void *input;
  size_t n;
  void *output;
  void *temp;
  size_t *temp_bytes;
  cudaStream_t stream;
};

// Runs FAMILY<In, Acc>::run(call) for the library's type: In its element type, Acc the accumulator
// of its sums and products (f16, bf16, f32 in f32; integers in 64 bits).
template <template <typename, typename> class FAMILY, typename CALL> int for_type(cureduce_dtype type, const CALL &call) {
  switch (type) {
  case CUREDUCE_F16: return FAMILY<__half, float>::run(call);
  case CUREDUCE_BF16: return FAMILY<__nv_bfloat16, float>::run(call);
  case CUREDUCE_F32: return FAMILY<float, float>::run(call);
  case CUREDUCE_F64: return FAMILY<double, double>::run(call);
  case CUREDUCE_I8: return FAMILY<signed char, long long>::run(call);
  case CUREDUCE_U8: return FAMILY<unsigned char, unsigned long long>::run(call);
  case CUREDUCE_I32: return FAMILY<int, long long>::run(call);
  case CUREDUCE_U32: return FAMILY<unsigned, unsigned long long>::run(call);
  case CUREDUCE_I64: return FAMILY<long long, long long>::run(call);
  case CUREDUCE_U64: return FAMILY<unsigned long long, unsigned long long>::run(call);
  default: return -1;
  }
}

// Reads an element as the accumulator type.
template <typename In, typename Acc> struct widen {
  __device__ Acc operator()(In x) const { return static_cast<Acc>(x); }
};

// TransformReduce into the accumulator with OP, starting from INIT: sum and product.
template <template <typename> class OP, int INIT> struct widening_reduce {
  template <typename In, typename Acc> struct family {
    static int run(const cub_call &c) {
      return cub::DeviceReduce::TransformReduce(c.temp, *c.temp_bytes, static_cast<const In *>(c.input),
                                                static_cast<Acc *>(c.output), c.n, OP<Acc>{}, widen<In, Acc>{},
                                                Acc(INIT), c.stream);
    }
  };
};

// One family each, in cub_<family>.cu.
int cub_sum(cureduce_dtype type, const cub_call &call);
int cub_product(cureduce_dtype type, const cub_call &call);
int cub_extreme(cureduce_dtype type, const cub_call &call);
int cub_arg_extreme(cureduce_dtype type, const cub_call &call);

#endif
