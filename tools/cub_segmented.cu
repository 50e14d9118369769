// CUB's segmented sum, the shapes bench's baseline: rows as begin/end offsets computed from a
// counting iterator, ragged segments from the caller's offset arrays.
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "cub_baseline.cuh"

struct cub_segmented_call {
  const void *input;
  size_t segments, cols, leading;
  const int64_t *begin, *end;
  void *output, *temp;
  size_t *temp_bytes;
  cudaStream_t stream;
};

// Row r's first element, or one past its last (`past` = cols).
struct row_offset {
  long long leading, past;
  __host__ __device__ long long operator()(long long row) const { return row * leading + past; }
};

template <typename In, typename Acc> struct segmented_sum {
  template <typename Begin, typename End> static int run(const cub_segmented_call &c, Begin begin, End end) {
    return cub::DeviceSegmentedReduce::Reduce(c.temp, *c.temp_bytes, static_cast<const In *>(c.input),
                                              static_cast<Acc *>(c.output), (::cuda::std::int64_t)c.segments, begin,
                                              end, ::cuda::std::plus<Acc>{}, Acc(0), c.stream);
  }
  static int run(const cub_segmented_call &c) {
    if (c.begin)
      return run(c, c.begin, c.end);
    thrust::counting_iterator<long long> rows(0);
    return run(c, thrust::make_transform_iterator(rows, row_offset{(long long)c.leading, 0}),
               thrust::make_transform_iterator(rows, row_offset{(long long)c.leading, (long long)c.cols}));
  }
};

int cureduce_cub_segmented_sum(cureduce_dtype type, const void *input, size_t segments, size_t cols, size_t leading,
                               const int64_t *begin, const int64_t *end, void *output, void *temp, size_t *temp_bytes,
                               void *stream) {
  cub_segmented_call call = {input,  segments, cols, leading,   begin,
                             end,    output,   temp, temp_bytes, static_cast<cudaStream_t>(stream)};
  return for_type<segmented_sum>(type, call);
}
