// cub::DeviceReduce for cureduce-bench's baseline column, for every operation: Sum (TransformReduce
// into the accumulator), prod (TransformReduce with a multiply), Min, Max, ArgMin and ArgMax (value
// and int64 index outputs). The accumulator follows the library's rules (sum and prod of f16, bf16,
// f32 in f32; of integers in 64 bits), so both sides do the same work.
#include <cub/device/device_reduce.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cub_baseline.h"

namespace {

// Reads an element as the accumulator type.
template <typename In, typename Acc> struct widen {
  __device__ Acc operator()(In x) const { return static_cast<Acc>(x); }
};

template <typename In, typename Acc>
int sum(const void *input, size_t n, void *output, void *temp, size_t *temp_bytes, cudaStream_t stream) {
  return cub::DeviceReduce::TransformReduce(temp, *temp_bytes, static_cast<const In *>(input), static_cast<Acc *>(output),
                                            n, cuda::std::plus<Acc>{}, widen<In, Acc>{}, Acc(0), stream);
}

template <typename T>
int extreme(cureduce_op op, const void *input, size_t n, void *output, void *temp, size_t *temp_bytes,
            cudaStream_t stream) {
  const T *in = static_cast<const T *>(input);
  T *out = static_cast<T *>(output);
  return op == CUREDUCE_OP_MAX ? cub::DeviceReduce::Max(temp, *temp_bytes, in, out, n, stream)
                               : cub::DeviceReduce::Min(temp, *temp_bytes, in, out, n, stream);
}

// Products wrap modulo 2^64 for integers, as the library's do.
template <typename In, typename Acc>
int product(const void *input, size_t n, void *output, void *temp, size_t *temp_bytes, cudaStream_t stream) {
  return cub::DeviceReduce::TransformReduce(temp, *temp_bytes, static_cast<const In *>(input), static_cast<Acc *>(output),
                                            n, cuda::std::multiplies<Acc>{}, widen<In, Acc>{}, Acc(1), stream);
}

// The extreme value at byte 0 of the output, its int64 index at byte 8: the library's layout.
template <typename T>
int arg_extreme(cureduce_op op, const void *input, size_t n, void *output, void *temp, size_t *temp_bytes,
                cudaStream_t stream) {
  const T *in = static_cast<const T *>(input);
  T *value = static_cast<T *>(output);
  long long *index = reinterpret_cast<long long *>(static_cast<char *>(output) + 8);
  const ::cuda::std::int64_t count = static_cast<::cuda::std::int64_t>(n);
  return op == CUREDUCE_OP_ARGMAX ? cub::DeviceReduce::ArgMax(temp, *temp_bytes, in, value, index, count, stream)
                                  : cub::DeviceReduce::ArgMin(temp, *temp_bytes, in, value, index, count, stream);
}

template <typename In, typename Acc>
int reduce(cureduce_op op, const void *input, size_t n, void *output, void *temp, size_t *temp_bytes,
           cudaStream_t stream) {
  switch (op) {
  case CUREDUCE_OP_SUM: return sum<In, Acc>(input, n, output, temp, temp_bytes, stream);
  case CUREDUCE_OP_PROD: return product<In, Acc>(input, n, output, temp, temp_bytes, stream);
  case CUREDUCE_OP_MIN:
  case CUREDUCE_OP_MAX: return extreme<In>(op, input, n, output, temp, temp_bytes, stream);
  case CUREDUCE_OP_ARGMIN:
  case CUREDUCE_OP_ARGMAX: return arg_extreme<In>(op, input, n, output, temp, temp_bytes, stream);
  default: return -1;
  }
}

}  // namespace

extern "C" int cureduce_cub_reduce(cureduce_op op, cureduce_dtype type, const void *input, size_t n, void *output,
                                   void *temp, size_t *temp_bytes, void *stream_pointer) {
  cudaStream_t stream = static_cast<cudaStream_t>(stream_pointer);
  switch (type) {
  case CUREDUCE_F16: return reduce<__half, float>(op, input, n, output, temp, temp_bytes, stream);
  case CUREDUCE_BF16: return reduce<__nv_bfloat16, float>(op, input, n, output, temp, temp_bytes, stream);
  case CUREDUCE_F32: return reduce<float, float>(op, input, n, output, temp, temp_bytes, stream);
  case CUREDUCE_F64: return reduce<double, double>(op, input, n, output, temp, temp_bytes, stream);
  case CUREDUCE_I8: return reduce<signed char, long long>(op, input, n, output, temp, temp_bytes, stream);
  case CUREDUCE_U8: return reduce<unsigned char, unsigned long long>(op, input, n, output, temp, temp_bytes, stream);
  case CUREDUCE_I32: return reduce<int, long long>(op, input, n, output, temp, temp_bytes, stream);
  case CUREDUCE_U32: return reduce<unsigned, unsigned long long>(op, input, n, output, temp, temp_bytes, stream);
  case CUREDUCE_I64: return reduce<long long, long long>(op, input, n, output, temp, temp_bytes, stream);
  case CUREDUCE_U64: return reduce<unsigned long long, unsigned long long>(op, input, n, output, temp, temp_bytes, stream);
  default: return -1;
  }
}

extern "C" int cureduce_cub_version(void) { return CUB_VERSION; }
