// Whole vectors of input: their loads of CUREDUCE_VECTOR_BYTES, and their elements folded a vector
// (or a word of bytes or 16-bit halves, or keys) at a time.

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

// Sums of 8-bit integers take four bytes at a time: one dp4a against 0x01010101 adds them into a
// 32-bit partial (a 16-byte vector sums to at most 16 * 255 in magnitude), widened once per
// vector. Element by element, the sign extensions and 64-bit adds made these sums compute-bound
// (74% of the read ceiling for i8 at 2^28 on an H200). Integer sums are exact modulo 2^64 in any
// order, so the result has the same bits.
#define CUREDUCE_BYTE_SUM                                                                          \
  (CUREDUCE_OP == CUREDUCE_OP_SUM && CUREDUCE_VECTOR_BYTES % 4 == 0 &&                             \
   (CUREDUCE_INPUT == CUREDUCE_DTYPE_I8 || CUREDUCE_INPUT == CUREDUCE_DTYPE_U8) &&                 \
   CUREDUCE_TRANSFORM == CUREDUCE_TRANSFORM_NONE)

// The keyed paths read keys of the input type: a transform that keeps the type (abs) maps whole
// vectors first (map_vector); the others take the element-by-element path.
#define CUREDUCE_KEEPS_TYPE (CUREDUCE_TRANSFORM == CUREDUCE_TRANSFORM_NONE || CUREDUCE_TRANSFORM == CUREDUCE_TRANSFORM_ABS)
#define CUREDUCE_ARG_BY_VECTOR                                                                       \
  ((CUREDUCE_OP == CUREDUCE_OP_ARGMIN || CUREDUCE_OP == CUREDUCE_OP_ARGMAX) && CUREDUCE_VECTOR_BYTES % 4 == 0 && \
   CUREDUCE_KEEPS_TYPE)
// min and max of 8- and 16-bit types take the same keyed path, without the index: element by
// element, the byte extractions and conversions cost more than the read allows (i8 min and max
// of 2^28 elements took 72.4 us back to back on an H200, the dp4a sum 65.3 us).
#define CUREDUCE_EXTREME_BY_VECTOR                                                                 \
  ((CUREDUCE_OP == CUREDUCE_OP_MIN || CUREDUCE_OP == CUREDUCE_OP_MAX) && CUREDUCE_VECTOR_BYTES % 4 == 0 && \
   (CUREDUCE_INPUT == CUREDUCE_DTYPE_I8 || CUREDUCE_INPUT == CUREDUCE_DTYPE_U8 ||                  \
    CUREDUCE_INPUT == CUREDUCE_DTYPE_F16 || CUREDUCE_INPUT == CUREDUCE_DTYPE_BF16) &&              \
   CUREDUCE_KEEPS_TYPE)
#define CUREDUCE_KEYED_BY_VECTOR (CUREDUCE_ARG_BY_VECTOR || CUREDUCE_EXTREME_BY_VECTOR)

// Elements before the first whole vector of input, at most n.
__device__ __forceinline__ u64 head_of(const input_t *input, u64 n) {
  const u64 misalignment = (u64)input % CUREDUCE_VECTOR_BYTES;
  u64 head = misalignment ? (CUREDUCE_VECTOR_BYTES - misalignment) / sizeof(input_t) : 0;
  if (head > n) head = n;
  return head;
}

#if CUREDUCE_VECTOR_BYTES % 4 == 0
// A load as its 32-bit words, for the paths that take bytes or 16-bit halves a word at a time.
union vector_words {
  vector_t raw;
  unsigned word[CUREDUCE_VECTOR_BYTES / 4];
};
#endif

#if !CUREDUCE_PAIR  // one input; two: pair_source below
#if CUREDUCE_BYTE_SUM
__device__ __forceinline__ acc_t fold_vector(acc_t acc, vector_t raw, u64) {
  vector_words words;
  words.raw = raw;
#if CUREDUCE_INPUT == CUREDUCE_DTYPE_I8
  int sum = 0;
#pragma unroll
  for (int j = 0; j < CUREDUCE_VECTOR_BYTES / 4; j++) sum = __dp4a((int)words.word[j], 0x01010101, sum);
  return acc + (u64)(long long)sum;
#else
  unsigned sum = 0;
#pragma unroll
  for (int j = 0; j < CUREDUCE_VECTOR_BYTES / 4; j++) sum = __dp4a(words.word[j], 0x01010101u, sum);
  return acc + (u64)sum;
#endif
}
#elif CUREDUCE_KEYED_BY_VECTOR
// argmin and argmax fold the loads of an iteration together: every vector's keys, their largest
// over all the loads, compared once with the thread's accumulator. Only when that beats the
// accumulator does the thread look, in the vectors it holds, for the first element with the new
// key. A thread meets its elements in increasing index order (the loads of an iteration, then the
// next iteration) and replaces only a strictly larger key, so the first occurrence is kept.
// Element by element, the (value, index) comparisons made these operations compute-bound (argmax
// bf16 at 33% of the read ceiling on an H200); one accumulator per unrolled load made new
// extremes, each a warp-wide detour, several times as frequent. min and max of 8- and 16-bit
// types fold the same way and lift the largest key's element into their own accumulator.
//
// The keys are argmin's or argmax's (see arg_reduction): min keeps the largest argmin key.
typedef arg_reduction<CUREDUCE_INPUT, CUREDUCE_OP == CUREDUCE_OP_ARGMAX || CUREDUCE_OP == CUREDUCE_OP_MAX> key_order;
typedef key_order::K arg_key_t;

// The map on a whole vector, for the transforms that keep the type: abs clears every element's
// sign bit (an f64's is in its upper word).
__device__ __forceinline__ vector_t map_vector(vector_t raw) {
#if CUREDUCE_TRANSFORM == CUREDUCE_TRANSFORM_ABS
  vector_words v;
  v.raw = raw;
#pragma unroll
  for (int i = 0; i < CUREDUCE_VECTOR_BYTES / 4; i++)
    v.word[i] &= sizeof(input_t) == 2 ? 0x7fff7fffu : sizeof(input_t) == 8 && i % 2 == 0 ? 0xffffffffu : 0x7fffffffu;
  return v.raw;
#else
  return raw;
#endif
}

// Each vector_keys gives lanes_t (a vector's largest keys, packed where the type allows),
// best() of one vector, merge() of two, key_of() the largest key of a lanes_t, and first(key):
// the first element of the vector with that key, or -1.

// The first BITS-wide lane of the words equal to pattern's lanes, counted from lane 0 of word 0,
// or -1. A word of x = w ^ pattern has (x - ones) & ~x flag, in a lane's top bit, every zero lane
// and only lanes above a zero one besides (a borrow runs upwards only): so its lowest flag is a
// match. Three instructions a word: with random 8-bit data a warp meets new extremes in most of
// its first iterations, and a lane-by-lane search made argmax i8 spend more time there than in
// the loads.
template <int BITS>
__device__ __forceinline__ int first_zero_lane(const unsigned *word, unsigned pattern) {
  const unsigned ones = BITS == 8 ? 0x01010101u : 0x00010001u, tops = ones << (BITS - 1);
  int f = -1;
#pragma unroll
  for (int i = CUREDUCE_VECTOR_BYTES / 4 - 1; i >= 0; i--) {
    const unsigned x = word[i] ^ pattern, zero = (x - ones) & ~x & tops;
    const int lane = (int)(__brev(zero) ? __clz(__brev(zero)) : 0) / BITS;  // a select, not a branch
    f = zero ? i * (32 / BITS) + lane : f;
  }
  return f;
}

// 16-bit lanes: 8- and 16-bit keys go two to a word, and sm_90 folds a word in one instruction
// (max.s16x2; the 8-bit form, __vmaxs4, is emulated in about ten).
struct lanes_16x2 {
  typedef unsigned lanes_t;
  static __device__ __forceinline__ unsigned merge(unsigned a, unsigned b) { return __vmaxs2(a, b); }
  static __device__ __forceinline__ arg_key_t key_of(unsigned m) { return (short)(__vmaxs2(m, m >> 16) & 0xffffu); }
};

// O, the element's order, is a parameter so that each form compiles only for its own types.
template <int BYTES, typename O> struct vector_keys {  // 4- and 8-byte elements: a key each
  typedef arg_key_t lanes_t;
  arg_key_t key[vector_elements];
  __device__ __forceinline__ void of(vector_t raw) {
    unpacked u;
    u.raw = raw;
#pragma unroll
    for (int j = 0; j < vector_elements; j++) key[j] = key_order::key(u.element[j]);
  }
  __device__ __forceinline__ arg_key_t best() const {
    arg_key_t m = key[0];
#pragma unroll
    for (int j = 1; j < vector_elements; j++) m = max(m, key[j]);
    return m;
  }
  static __device__ __forceinline__ arg_key_t merge(arg_key_t a, arg_key_t b) { return max(a, b); }
  static __device__ __forceinline__ arg_key_t key_of(arg_key_t m) { return m; }
  __device__ __forceinline__ int first(arg_key_t m) const {
    int f = -1;
#pragma unroll
    for (int j = vector_elements - 1; j >= 0; j--)
      if (key[j] == m) f = j;
    return f;
  }
};
template <typename O> struct vector_keys<2, O> : lanes_16x2 {  // f16, bf16: two 16-bit keys a word
  unsigned word[CUREDUCE_VECTOR_BYTES / 4];
  static __device__ __forceinline__ unsigned top_bit_halves(unsigned w) {  // 0xffff where a half's top bit is set
    unsigned r;
    asm("prmt.b32 %0, %1, 0, 0xbb99;" : "=r"(r) : "r"(w));
    return r;
  }
  __device__ __forceinline__ void of(vector_t raw) {
    vector_words v;
    v.raw = raw;
#pragma unroll
    for (int i = 0; i < CUREDUCE_VECTOR_BYTES / 4; i++) {
      const unsigned w = v.word[i];
      // A magnitude above infinity's carries into its half's top bit (and never into the next half).
      const unsigned nan = top_bit_halves((w & 0x7fff7fffu) + (0x7fffu - O::inf_bits) * 0x00010001u);
      unsigned k = w ^ (top_bit_halves(w) & 0x7fff7fffu);
      if (!key_order::is_max) k = ~k;
      word[i] = (k & ~nan) | (0x7fff7fffu & nan);
    }
  }
  __device__ __forceinline__ unsigned best() const {
    unsigned m = word[0];
#pragma unroll
    for (int i = 1; i < CUREDUCE_VECTOR_BYTES / 4; i++) m = __vmaxs2(m, word[i]);
    return m;
  }
  __device__ __forceinline__ int first(arg_key_t m) const {
    return first_zero_lane<16>(word, (unsigned)(m & 0xffff) * 0x00010001u);
  }
};
template <typename O> struct vector_keys<1, O> : lanes_16x2 {  // i8, u8: four 8-bit keys a word
  unsigned word[CUREDUCE_VECTOR_BYTES / 4];
  // The even and the odd bytes of a word, sign-extended into 16-bit lanes (prmt's sign mode).
  static __device__ __forceinline__ unsigned lanes_of(unsigned w, unsigned selector) {
    unsigned r;
    asm("prmt.b32 %0, %1, 0, %2;" : "=r"(r) : "r"(w), "r"(selector));
    return r;
  }
  __device__ __forceinline__ void of(vector_t raw) {
    vector_words v;
    v.raw = raw;
#pragma unroll
    for (int i = 0; i < CUREDUCE_VECTOR_BYTES / 4; i++)
      word[i] = v.word[i] ^ ((CUREDUCE_INPUT == CUREDUCE_DTYPE_U8 ? 0x80808080u : 0u) ^
                             (key_order::is_max ? 0u : 0xffffffffu));
  }
  __device__ __forceinline__ unsigned best() const {
    unsigned m = __vmaxs2(lanes_of(word[0], 0xa280u), lanes_of(word[0], 0xb391u));
#pragma unroll
    for (int i = 1; i < CUREDUCE_VECTOR_BYTES / 4; i++)
      m = __vmaxs2(m, __vmaxs2(lanes_of(word[i], 0xa280u), lanes_of(word[i], 0xb391u)));
    return m;
  }
  __device__ __forceinline__ int first(arg_key_t m) const {
    return first_zero_lane<8>(word, (unsigned)(m & 0xff) * 0x01010101u);
  }
};
typedef vector_keys<(int)sizeof(input_t), order_key<CUREDUCE_INPUT> > keyed_vector;

// min's or max's accumulator with the element of key k folded in.
__device__ __forceinline__ acc_t fold_extreme_key(acc_t acc, arg_key_t k) {
  return op::combine(acc, op::lift(key_order::storage_of(k), 0));
}

// COUNT vectors, `stride` elements apart, the first at first_index.
template <int COUNT>
__device__ __forceinline__ acc_t fold_vectors(acc_t acc, const vector_t *loaded, u64 first_index, u64 stride) {
  keyed_vector keys[COUNT];
  keys[0].of(map_vector(loaded[0]));
  typename keyed_vector::lanes_t lanes = keys[0].best();
#pragma unroll
  for (int c = 1; c < COUNT; c++) {
    keys[c].of(map_vector(loaded[c]));
    lanes = keyed_vector::merge(lanes, keys[c].best());
  }
  const arg_key_t largest = keyed_vector::key_of(lanes);
#if CUREDUCE_ARG_BY_VECTOR
  if (largest > acc.key || acc.index == op::empty) {
    // The first vector holding the key (found by its best, which the fold computed already), then
    // the first element in that vector alone: a search of every vector cost more than the loads.
    int holder = COUNT - 1;
#pragma unroll
    for (int c = COUNT - 2; c >= 0; c--)
      if (keyed_vector::key_of(keys[c].best()) == largest) holder = c;
    keyed_vector held = keys[COUNT - 1];
#pragma unroll
    for (int c = COUNT - 2; c >= 0; c--)
      if (holder == c) held = keys[c];
    acc.key = largest;
    acc.index = first_index + holder * stride + held.first(largest);
  }
  return acc;
#else
  (void)first_index;
  (void)stride;
  return fold_extreme_key(acc, largest);
#endif
}

__device__ __forceinline__ acc_t fold_vector(acc_t acc, vector_t raw, u64 first_index) {
  return fold_vectors<1>(acc, &raw, first_index, 0);
}
__device__ __forceinline__ void fold_loads(acc_t *acc, const vector_t *loaded, u64 first_index, u64 stride) {
  acc[0] = fold_vectors<CUREDUCE_UNROLL>(acc[0], loaded, first_index, stride);
}
#else
__device__ __forceinline__ acc_t fold_vector(acc_t acc, vector_t raw, u64 first_index) {
  unpacked u;
  u.raw = raw;
  return op::fold_run(acc, u.element, first_index);
}
#endif

#if !CUREDUCE_KEYED_BY_VECTOR
// The loads of one iteration, `stride` elements apart, each into its own accumulator.
__device__ __forceinline__ void fold_loads(acc_t *acc, const vector_t *loaded, u64 first_index, u64 stride) {
#pragma unroll
  for (int k = 0; k < CUREDUCE_UNROLL; k++) {
    acc_t &into = acc[k % thread_accumulators];
    into = fold_vector(into, loaded[k], first_index + k * stride);
  }
}
#endif

}  // namespace cureduce
