// The production strategy: one launch whatever n is.
//
// Each thread walks the aligned body of the input in a grid-stride loop of CUREDUCE_VECTOR_BYTES
// loads, CUREDUCE_UNROLL of them in flight before the first is used, each into its own
// accumulator. The few elements before the first aligned address (the head) and after the last
// whole vector (the tail) are taken one by one by the first threads. Blocks fold with warp
// shuffles; the last block to finish folds the per-block partials in block order.

namespace cureduce {

template <int BYTES> struct raw_vector;
template <> struct raw_vector<1> { typedef unsigned char type; };
template <> struct raw_vector<2> { typedef unsigned short type; };
template <> struct raw_vector<4> { typedef unsigned type; };
template <> struct raw_vector<8> { typedef uint2 type; };
template <> struct raw_vector<16> { typedef uint4 type; };

typedef raw_vector<CUREDUCE_VECTOR_BYTES>::type vector_t;
const int vector_elements = CUREDUCE_VECTOR_BYTES / (int)sizeof(input_t);
static_assert(vector_elements >= 1 && CUREDUCE_VECTOR_BYTES % sizeof(input_t) == 0,
              "a vector holds a whole number of elements");

union unpacked {
  vector_t raw;
  input_t element[vector_elements];
};

__device__ __forceinline__ acc_t fold_vector(acc_t acc, vector_t raw, u64 first_index) {
  unpacked u;
  u.raw = raw;
#pragma unroll
  for (int j = 0; j < vector_elements; j++) acc = op::combine(acc, op::lift(u.element[j], first_index + j));
  return acc;
}

__device__ __forceinline__ acc_t thread_accumulate(const input_t *__restrict__ input, u64 n) {
  const u64 thread = (u64)blockIdx.x * CUREDUCE_BLOCK + threadIdx.x;
  const u64 threads = (u64)gridDim.x * CUREDUCE_BLOCK;
  const u64 misalignment = (u64)input % CUREDUCE_VECTOR_BYTES;
  u64 head = misalignment ? (CUREDUCE_VECTOR_BYTES - misalignment) / sizeof(input_t) : 0;
  if (head > n) head = n;
  const u64 vectors = (n - head) / vector_elements;
  const u64 tail_start = head + vectors * vector_elements;
  const vector_t *body = (const vector_t *)(input + head);

  acc_t acc[CUREDUCE_UNROLL];
#pragma unroll
  for (int k = 0; k < CUREDUCE_UNROLL; k++) acc[k] = op::identity();

  u64 v = thread;
  for (; v + (CUREDUCE_UNROLL - 1) * threads < vectors; v += CUREDUCE_UNROLL * threads) {
    vector_t loaded[CUREDUCE_UNROLL];
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++) loaded[k] = __ldg(body + v + k * threads);
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++)
      acc[k] = fold_vector(acc[k], loaded[k], head + (v + k * threads) * vector_elements);
  }
  for (; v < vectors; v += threads) acc[0] = fold_vector(acc[0], __ldg(body + v), head + v * vector_elements);
  if (thread < head) acc[0] = op::combine(acc[0], op::lift(input[thread], thread));
  if (thread < n - tail_start) acc[0] = op::combine(acc[0], op::lift(input[tail_start + thread], tail_start + thread));

#pragma unroll
  for (int k = 1; k < CUREDUCE_UNROLL; k++) acc[0] = op::combine(acc[0], acc[k]);
  return acc[0];
}

}  // namespace cureduce

using namespace cureduce;

extern "C" __global__ void __launch_bounds__(CUREDUCE_BLOCK)
    cureduce_kernel(const input_t *__restrict__ input, u64 n, void *out, void *partials, unsigned *ticket) {
  acc_t v = thread_accumulate(input, n);
  v = block_reduce(v);
  finish_single_pass(v, out, (acc_t *)partials, ticket);
}
