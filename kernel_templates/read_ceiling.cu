// The read ceiling: how fast this device streams memory in, which cureduce-bench measures in the
// same run as the reductions. A plain kernel: 16-byte loads, four in flight per thread, in a
// grid-stride loop. The loaded words are folded with xor and written only when they equal a
// value that random data practically never gives, so the loads stay but the stores do not.

extern "C" __global__ void __launch_bounds__(256)
    cureduce_read_ceiling(const uint4 *__restrict__ input, unsigned long long vectors, unsigned *sink) {
  const unsigned long long stride = (unsigned long long)gridDim.x * 256;
  unsigned long long i = (unsigned long long)blockIdx.x * 256 + threadIdx.x;
  unsigned folded = 0;
  for (; i + 3 * stride < vectors; i += 4 * stride) {
    uint4 v[4];
#pragma unroll
    for (int k = 0; k < 4; k++) v[k] = __ldg(input + i + k * stride);
#pragma unroll
    for (int k = 0; k < 4; k++) folded ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  for (; i < vectors; i += stride) {
    uint4 v = __ldg(input + i);
    folded ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (folded == 0x9e3779b9u) *sink = folded;
}
