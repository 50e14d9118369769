// Element types, accumulators and the algebra of each operation, shared by every strategy.
//
// Compiled only by NVRTC, after a prelude that the host writes for one kernel specification:
//   CUREDUCE_OP_*, CUREDUCE_DTYPE_*, CUREDUCE_TRANSFORM_*   the ids of the public header's enums
//   CUREDUCE_OP, CUREDUCE_INPUT, CUREDUCE_OUTPUT, CUREDUCE_TRANSFORM   this kernel's operation,
//                                                    types and the map before the operation
//   CUREDUCE_BLOCK, CUREDUCE_UNROLL, CUREDUCE_VECTOR_BYTES   its shape
// No header is included: the kernel must compile with nothing but NVRTC's built-ins.

namespace cureduce {

typedef unsigned long long u64;

// ---- Element types --------------------------------------------------------------------------
// storage: the bits in memory. value: what min/max compare and return (exact for every type).
// wide: what sum and prod accumulate in. Integer sums wrap modulo 2^64, so every integer type
// widens to u64 (signed ones sign-extended first): two's complement makes that the same bits as
// a signed 64-bit wrap-around, without signed-overflow undefined behaviour.

template <int D> struct element;

struct float_like {
  static __device__ __forceinline__ bool is_nan(float x) { return x != x; }
  static __device__ __forceinline__ bool sign_bit(float x) { return __float_as_int(x) < 0; }
  static __device__ __forceinline__ float highest() { return __int_as_float(0x7f800000); }
  static __device__ __forceinline__ float lowest() { return __int_as_float((int)0xff800000); }
};

template <> struct element<CUREDUCE_DTYPE_F16> : float_like {
  typedef unsigned short storage;
  typedef float value;
  typedef float wide;
  static __device__ __forceinline__ float to_value(storage s) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(s));
    return f;
  }
  static __device__ __forceinline__ storage from_value(float f) {
    storage s;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(s) : "f"(f));
    return s;
  }
  static __device__ __forceinline__ wide to_wide(storage s) { return to_value(s); }
};

template <> struct element<CUREDUCE_DTYPE_BF16> : float_like {
  typedef unsigned short storage;
  typedef float value;
  typedef float wide;
  static __device__ __forceinline__ float to_value(storage s) {
    return __int_as_float((int)((unsigned)s << 16));
  }
  static __device__ __forceinline__ storage from_value(float f) {
#if __CUDA_ARCH__ >= 800
    storage s;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(s) : "f"(f));
    return s;
#else
    // cvt.rn.bf16.f32 needs sm_80: round to nearest even by hand, NaN kept quiet.
    unsigned u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (storage)((u >> 16) | 0x40u);
    return (storage)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
#endif
  }
  static __device__ __forceinline__ wide to_wide(storage s) { return to_value(s); }
};

template <> struct element<CUREDUCE_DTYPE_F32> : float_like {
  typedef float storage;
  typedef float value;
  typedef float wide;
  static __device__ __forceinline__ float to_value(storage s) { return s; }
  static __device__ __forceinline__ storage from_value(float f) { return f; }
  static __device__ __forceinline__ wide to_wide(storage s) { return s; }
};

template <> struct element<CUREDUCE_DTYPE_F64> {
  typedef double storage;
  typedef double value;
  typedef double wide;
  static __device__ __forceinline__ double to_value(storage s) { return s; }
  static __device__ __forceinline__ storage from_value(double d) { return d; }
  static __device__ __forceinline__ wide to_wide(storage s) { return s; }
  static __device__ __forceinline__ bool is_nan(double x) { return x != x; }
  static __device__ __forceinline__ bool sign_bit(double x) { return __double_as_longlong(x) < 0; }
  static __device__ __forceinline__ double highest() { return __longlong_as_double(0x7ff0000000000000LL); }
  static __device__ __forceinline__ double lowest() {
    return __longlong_as_double((long long)0xfff0000000000000ULL);
  }
};

// Integers: value is the storage type; NaN and signed zeros do not exist.
template <typename T, typename SIGNED_WIDE, T LOWEST, T HIGHEST> struct integer_element {
  typedef T storage;
  typedef T value;
  typedef u64 wide;
  static __device__ __forceinline__ T to_value(storage s) { return s; }
  static __device__ __forceinline__ storage from_value(T v) { return v; }
  static __device__ __forceinline__ wide to_wide(storage s) { return (u64)(SIGNED_WIDE)s; }
  static __device__ __forceinline__ bool is_nan(T) { return false; }
  static __device__ __forceinline__ bool sign_bit(T) { return false; }
  static __device__ __forceinline__ T highest() { return HIGHEST; }
  static __device__ __forceinline__ T lowest() { return LOWEST; }
};

template <> struct element<CUREDUCE_DTYPE_I8> : integer_element<signed char, long long, -128, 127> {};
template <> struct element<CUREDUCE_DTYPE_U8> : integer_element<unsigned char, u64, 0, 255> {};
template <> struct element<CUREDUCE_DTYPE_I32>
    : integer_element<int, long long, (-2147483647 - 1), 2147483647> {};
template <> struct element<CUREDUCE_DTYPE_U32> : integer_element<unsigned, u64, 0u, 4294967295u> {};
template <> struct element<CUREDUCE_DTYPE_I64>
    : integer_element<long long, long long, (-9223372036854775807LL - 1), 9223372036854775807LL> {};
template <> struct element<CUREDUCE_DTYPE_U64>
    : integer_element<u64, u64, 0ull, 18446744073709551615ull> {};

// ---- Operations -------------------------------------------------------------------------------
// Each gives: acc (the running value), identity(), lift(element, index) and combine(a, b).
// combine is associative and commutative (min/max/arg through a total order), so any fixed
// order of combination gives one bitwise result; the strategies fix the order.

template <bool C, typename A, typename B> struct conditional { typedef A type; };
template <typename A, typename B> struct conditional<false, A, B> { typedef B type; };

// finish(acc) gives the value the result is written from.
template <int OP, int IN> struct reduction;

template <int IN> struct reduction<CUREDUCE_OP_SUM, IN> {
  typedef element<IN> E;
  typedef typename E::wide acc;
  static __device__ __forceinline__ acc identity() { return acc(0); }
  static __device__ __forceinline__ acc lift(typename E::storage s, u64) { return E::to_wide(s); }
  static __device__ __forceinline__ acc combine(acc a, acc b) { return a + b; }
  static __device__ __forceinline__ acc finish(acc a) { return a; }
};

// exact_sum keeps an accumulator of its own (exact.cuh); the sum's algebra gives the shared
// loaders their types.
template <int IN> struct reduction<CUREDUCE_OP_EXACT_SUM, IN> : reduction<CUREDUCE_OP_SUM, IN> {};

template <int IN> struct reduction<CUREDUCE_OP_PROD, IN> {
  typedef element<IN> E;
  typedef typename E::wide acc;
  static __device__ __forceinline__ acc identity() { return acc(1); }
  static __device__ __forceinline__ acc lift(typename E::storage s, u64) { return E::to_wide(s); }
  static __device__ __forceinline__ acc combine(acc a, acc b) { return a * b; }
  static __device__ __forceinline__ acc finish(acc a) { return a; }
};

// norm2, the Euclidean norm. 16- and 32-bit floats square and add in f64, whose range holds the
// sum of any number of their squares (2^128 squared times 2^64 elements is far below 2^1024, the
// smallest subnormal f32 squared far above f64's): no overflow, no underflow, one sqrt at the end.
template <int IN> struct reduction<CUREDUCE_OP_NORM2, IN> {
  typedef element<IN> E;
  typedef double acc;
  static __device__ __forceinline__ acc identity() { return 0.0; }
  static __device__ __forceinline__ acc lift(typename E::storage s, u64) {
    const double v = E::to_value(s);
    return v * v;
  }
  static __device__ __forceinline__ acc combine(acc a, acc b) { return a + b; }
  static __device__ __forceinline__ double finish(acc a) { return sqrt(a); }
};

// f64 squares would overflow or vanish at the ends of its range: Blue's three sums, as LAPACK's
// dnrm2 (3.10) keeps them. Magnitudes above 2^486 add (x 2^-538)^2, below 2^-511 (x 2^537)^2, the
// rest x^2; each sum then holds any number of its squares, powers of two scale them exactly, and
// the finish joins the sums once. A NaN goes to the middle sum (its comparisons are false) and
// stays NaN; an infinity to the big one.
struct norm2_sums {
  double small, medium, big;
};
template <> struct reduction<CUREDUCE_OP_NORM2, CUREDUCE_DTYPE_F64> {
  typedef norm2_sums acc;
  static constexpr double small_threshold = 0x1p-511, big_threshold = 0x1p486;
  static constexpr double small_scale = 0x1p537, big_scale = 0x1p-538;
  static __device__ __forceinline__ acc identity() { return acc{0.0, 0.0, 0.0}; }
  static __device__ __forceinline__ acc lift(double x, u64) {
    const double magnitude = fabs(x);
    const bool big = magnitude > big_threshold, small = magnitude < small_threshold;
    const double scaled = magnitude * (big ? big_scale : small ? small_scale : 1.0), square = scaled * scaled;
    return acc{small ? square : 0.0, big || small ? 0.0 : square, big ? square : 0.0};
  }
  static __device__ __forceinline__ acc combine(acc a, acc b) {
    return acc{a.small + b.small, a.medium + b.medium, a.big + b.big};
  }
  // Whether x is in the middle range, 2^-511 <= |x| < 2^486, or a zero (whose square adds nothing
  // to any sum), read from its exponent bits by integer instructions, off the f64 pipes. Everything
  // else (tiny, huge, infinite, NaN, exactly 2^486) takes lift's classification.
  static __device__ __forceinline__ bool in_middle_range(double x) {
    const u64 bits = (u64)__double_as_longlong(x);
    const unsigned exponent = (unsigned)(bits >> 52) & 0x7ffu;
    return exponent - 512u <= 1508u - 512u || (bits << 1) == 0;
  }
  // N elements, all in the middle range (in practice nearly always): a fma each into the middle
  // sum, where lift and combine spent seven f64 instructions (two compares, two multiplies, three
  // adds); else each through lift. The middle sum's squares are then rounded once, not twice.
  template <int N> static __device__ __forceinline__ acc fold_elements(acc a, const double (&x)[N]) {
    bool middle = true;
#pragma unroll
    for (int j = 0; j < N; j++) middle &= in_middle_range(x[j]);
    if (middle) {
#pragma unroll
      for (int j = 0; j < N; j++) a.medium = fma(x[j], x[j], a.medium);
      return a;
    }
#pragma unroll
    for (int j = 0; j < N; j++) a = combine(a, lift(x[j], 0));
    return a;
  }
  static __device__ __forceinline__ double finish(acc a) {
    const bool medium = a.medium > 0 || a.medium != a.medium;  // nonzero, or NaN
    if (a.big > 0)
      return sqrt(medium ? a.big + (a.medium * big_scale) * big_scale : a.big) / big_scale;
    if (a.small > 0) {
      if (!medium)
        return sqrt(a.small) / small_scale;
      const double from_medium = sqrt(a.medium), from_small = sqrt(a.small) / small_scale;
      const double lower = fmin(from_medium, from_small), upper = fmax(from_medium, from_small);
      return upper * sqrt(1.0 + (lower / upper) * (lower / upper));
    }
    return sqrt(a.medium);
  }
};

// mean, variances and standard deviations: one accumulator, the moments of the elements folded so
// far: their count, and their deviations from `shift` summed and squared-and-summed, in f64. The
// shift is the first element of the sequence (the array, row, column or segment), which every
// thread reads before its own (start, and sequence_start below), so that the sums stay near the
// data's spread and the sum of squares formula's cancellation never bites: every |x - shift| is at
// most twice the largest deviation from the mean, D, so the squared deviations' sum errs by a few
// epsilons of n D^2 per addition, however far the mean is from 0 (tools/reference.c states the
// bound). With one shift for the whole sequence, accumulators join by adding their sums, in every
// tree; a shift per thread, moved at each merge (sum + count d, squares + d (2 sum + count d)),
// put chains of dependent f64 operations in every tree: the variance of 2^20 f32 elements took
// 5.79-5.82 us back to back on an H200 that way, 5.56-5.64 with one shift (the sum 4.6-4.7). The
// count is an f64 too: exact to 2^53 elements, and never converted.
struct moments {
  double shift, sum, squares, count;
};
// The variances and standard deviations give their value with the mean (store_result writes both).
struct spread_pair {
  double value, mean;
};
template <int IN, int OP> struct moments_reduction {
  typedef element<IN> E;
  typedef moments acc;
  // Nothing folded, and no shift: a NaN one, so that elements folded into an accumulator that no
  // sequence started give NaN rather than sums from a shift that no other accumulator shares.
  static __device__ __forceinline__ acc identity() {
    return acc{__longlong_as_double(0x7ff8000000000000LL), 0.0, 0.0, 0.0};
  }
  static __device__ __forceinline__ acc start(typename E::storage first) { return acc{(double)E::to_value(first), 0.0, 0.0, 0.0}; }
  // The deviation is a subtraction of its own (__dsub_rn is never fused): an f64 map that ends in
  // a multiply (x * y, x * x) fused into it would leave the mapped value unrounded, half an ulp of
  // the value from the value the operation is defined on, which the bound (epsilons of the
  // spread, not of the values) does not cover when the values lie close together.
  static __device__ __forceinline__ acc fold_element(acc a, typename E::storage s) {
    const double d = __dsub_rn(E::to_value(s), a.shift);
    return acc{a.shift, a.sum + d, fma(d, d, a.squares), a.count + 1.0};
  }
  // N elements in order, as N fold_elements give them (the same bits), the count added once.
  template <int N> static __device__ __forceinline__ acc fold_elements(acc a, const typename E::storage (&s)[N]) {
#pragma unroll
    for (int j = 0; j < N; j++) {
      const double d = __dsub_rn(E::to_value(s[j]), a.shift);
      a.sum += d;
      a.squares = fma(d, d, a.squares);
    }
    a.count += N;
    return a;
  }
  static __device__ __forceinline__ double mean_of(acc a) { return a.shift + a.sum / a.count; }
  static __device__ __forceinline__ double squares_of(acc a) { return a.squares - a.sum * (a.sum / a.count); }
  // Two accumulators of one sequence: one shift, or none where nothing was folded.
  static __device__ __forceinline__ acc combine(acc a, acc b) {
    if (a.count == 0.0) return b;
    if (b.count == 0.0) return a;
    return acc{a.shift, a.sum + b.sum, a.squares + b.squares, a.count + b.count};
  }
  // A NaN or an infinity (or f64 deviations beyond f64's range) leaves the mean non-finite: then
  // every statistic is NaN. No elements: the mean is 0/0.
  typedef typename conditional<OP == CUREDUCE_OP_MEAN, double, spread_pair>::type result;
  static __device__ __forceinline__ result finish(acc a) {
    const double nan = __longlong_as_double(0x7ff8000000000000LL), mean = mean_of(a);
    const bool finite = fabs(mean) <= 1.7976931348623157e308;
    const bool sample = OP == CUREDUCE_OP_SAMPLE_VARIANCE || OP == CUREDUCE_OP_SAMPLE_STD;
    const double variance = fmax(squares_of(a), 0.0) / (a.count - (sample ? 1.0 : 0.0));
    const double value = OP == CUREDUCE_OP_STD || OP == CUREDUCE_OP_SAMPLE_STD ? sqrt(variance) : variance;
    result r;
    set_result(r, finite ? value : nan, finite ? mean : nan);
    return r;
  }
  static __device__ __forceinline__ void set_result(double &r, double, double mean) { r = mean; }
  static __device__ __forceinline__ void set_result(spread_pair &r, double value, double mean) {
    r = spread_pair{value, mean};
  }
};
template <int IN> struct reduction<CUREDUCE_OP_MEAN, IN> : moments_reduction<IN, CUREDUCE_OP_MEAN> {};
template <int IN> struct reduction<CUREDUCE_OP_VARIANCE, IN> : moments_reduction<IN, CUREDUCE_OP_VARIANCE> {};
template <int IN> struct reduction<CUREDUCE_OP_SAMPLE_VARIANCE, IN> : moments_reduction<IN, CUREDUCE_OP_SAMPLE_VARIANCE> {};
template <int IN> struct reduction<CUREDUCE_OP_STD, IN> : moments_reduction<IN, CUREDUCE_OP_STD> {};
template <int IN> struct reduction<CUREDUCE_OP_SAMPLE_STD, IN> : moments_reduction<IN, CUREDUCE_OP_SAMPLE_STD> {};

// logsumexp: the largest element so far and the sum of exp(x - largest), rescaled when a larger one
// comes: nothing overflows, and an element costs one exp (fold_element). A NaN makes the sum NaN
// and leaves the largest alone (so that the largest is never NaN); the same infinity twice scales
// by 1 (not exp(inf - inf)). f32 takes the hardware's exp2 (ex2.approx, within 2 ulp): its error
// grows with |x - largest|, but so shrinks that term. Empty: -inf + log(0) = -inf.
template <typename F> struct log_sum {
  F largest, sum;
};
// e^x as 2^(x log2 e) by the SFU, as __expf, but with subnormal results flushed to 0 (.ftz):
// __expf's ex2 guarded them with a compare and two multiplies, three instructions an element in a
// kernel bound by its instruction issue (bf16 logsumexp at 2^28). Every exp here is a term or a
// rescale of at most 1 beside a term of exactly 1, so a flushed one, below 2^-126, is far below
// the sum's rounding.
__device__ __forceinline__ float exp_of(float x) {
  float power;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(power) : "f"(x * 1.44269504088896341f));
  return power;
}
__device__ __forceinline__ double exp_of(double x) { return exp(x); }
// What a sum of exp(x - largest) is multiplied by to count from m >= largest instead.
template <typename F> __device__ __forceinline__ F log_sum_scale(F largest, F m) {
  return largest == m ? F(1) : exp_of(largest - m);
}
template <int IN> struct reduction<CUREDUCE_OP_LOGSUMEXP, IN> {
  typedef element<IN> E;
  typedef typename E::value F;
  typedef log_sum<F> acc;
  static __device__ __forceinline__ acc identity() { return acc{E::lowest(), F(0)}; }
  static __device__ __forceinline__ acc fold_element(acc a, typename E::storage s) {
    const F x = E::to_value(s), e = exp_of(-fabs(x == a.largest ? F(0) : x - a.largest));
    const bool larger = x > a.largest;
    return acc{larger ? x : a.largest, larger ? fma(a.sum, e, F(1)) : a.sum + e};
  }
  static __device__ __forceinline__ acc lift(typename E::storage s, u64) { return fold_element(identity(), s); }
  static __device__ __forceinline__ acc combine(acc a, acc b) {
    const F m = a.largest > b.largest ? a.largest : b.largest;
    return acc{m, a.sum * log_sum_scale(a.largest, m) + b.sum * log_sum_scale(b.largest, m)};
  }
  static __device__ __forceinline__ F finish(acc a) { return a.largest + log(a.sum); }
};

// min and max of integers: the plain order.
template <int IN, bool IS_MAX> struct integer_extreme {
  typedef element<IN> E;
  typedef typename E::value acc;
  static __device__ __forceinline__ acc identity() { return IS_MAX ? E::lowest() : E::highest(); }
  static __device__ __forceinline__ acc lift(typename E::storage s, u64) { return E::to_value(s); }
  static __device__ __forceinline__ acc combine(acc a, acc b) { return IS_MAX ? (a < b ? b : a) : (b < a ? b : a); }
  static __device__ __forceinline__ acc finish(acc a) { return a; }
};

// min and max of floats propagate NaN and order -0 below +0 (IEEE 754-2019 minimum and
// maximum). A float's bits with the magnitude bits of negatives flipped compare as a signed
// integer in exactly that order (-inf < ... < -0 < +0 < ... < +inf), so each element costs an
// integer min or max; a NaN becomes the key that always wins, and comes back as a NaN.
template <typename F> struct ordered_key;
template <> struct ordered_key<float> {
  typedef int type;
  static __device__ __forceinline__ int of(float x) {
    int i = __float_as_int(x);
    return i ^ ((i >> 31) & 0x7fffffff);
  }
  static __device__ __forceinline__ float value(int k) { return __int_as_float(k ^ ((k >> 31) & 0x7fffffff)); }
  static __device__ __forceinline__ int highest() { return 0x7fffffff; }
  static __device__ __forceinline__ int lowest() { return (int)0x80000000; }
  static __device__ __forceinline__ float nan() { return __int_as_float(0x7fffffff); }
};
template <> struct ordered_key<double> {
  typedef long long type;
  static __device__ __forceinline__ long long of(double x) {
    long long i = __double_as_longlong(x);
    return i ^ ((i >> 63) & 0x7fffffffffffffffLL);
  }
  static __device__ __forceinline__ double value(long long k) {
    return __longlong_as_double(k ^ ((k >> 63) & 0x7fffffffffffffffLL));
  }
  static __device__ __forceinline__ long long highest() { return 0x7fffffffffffffffLL; }
  static __device__ __forceinline__ long long lowest() { return (long long)0x8000000000000000ULL; }
  static __device__ __forceinline__ double nan() { return __longlong_as_double(0x7fffffffffffffffLL); }
};

template <int IN, bool IS_MAX> struct float_extreme {
  typedef element<IN> E;
  typedef ordered_key<typename E::value> K;
  typedef typename K::type acc;
  static __device__ __forceinline__ acc nan_key() { return IS_MAX ? K::highest() : K::lowest(); }
  static __device__ __forceinline__ acc identity() { return K::of(IS_MAX ? E::lowest() : E::highest()); }
  static __device__ __forceinline__ acc lift(typename E::storage s, u64) {
    typename E::value v = E::to_value(s);
    return E::is_nan(v) ? nan_key() : K::of(v);
  }
  static __device__ __forceinline__ acc combine(acc a, acc b) { return IS_MAX ? max(a, b) : min(a, b); }
  static __device__ __forceinline__ typename E::value finish(acc a) { return a == nan_key() ? K::nan() : K::value(a); }
};

template <int IN, bool IS_MAX>
struct extreme_reduction
    : conditional<IN == CUREDUCE_DTYPE_F16 || IN == CUREDUCE_DTYPE_BF16 || IN == CUREDUCE_DTYPE_F32 ||
                      IN == CUREDUCE_DTYPE_F64,
                  float_extreme<IN, IS_MAX>, integer_extreme<IN, IS_MAX> >::type {};
template <int IN> struct reduction<CUREDUCE_OP_MIN, IN> : extreme_reduction<IN, false> {};
template <int IN> struct reduction<CUREDUCE_OP_MAX, IN> : extreme_reduction<IN, true> {};

// argmin and argmax: the first NaN if any, else the first extreme element.
//
// Each element maps to an integer key whose signed order is the element order of the library
// (-inf < ... < -0 < +0 < ... < +inf for floats: the sign-magnitude bits with the magnitude of
// negatives flipped), reversed for argmin (bitwise not), with every NaN mapped to the largest key
// of all: so both operations keep the largest key, and a NaN wins. The accumulator is (key,
// index); equal keys go to the smaller index; an empty accumulator has index ~0, which loses
// every tie. 16- and 8-bit types keep 16- and 8-bit keys (sign-extended), so that packed SIMD
// maxima over a whole vector give the same keys (see vector_keys).

template <int IN> struct order_key;
template <typename T, typename K, T SIGN> struct signed_order {  // integers
  typedef K type;
  static const bool has_nan = false;
  static __device__ __forceinline__ K of(T s) { return (K)(s ^ SIGN); }
  static __device__ __forceinline__ T storage(K k) { return (T)((T)k ^ SIGN); }
  static __device__ __forceinline__ bool is_nan(T) { return false; }
  static __device__ __forceinline__ T nan_storage() { return 0; }  // integers have no NaN: never used
};
template <> struct order_key<CUREDUCE_DTYPE_I8> {
  typedef int type;
  static const bool has_nan = false;
  static __device__ __forceinline__ int of(signed char s) { return s; }
  static __device__ __forceinline__ signed char storage(int k) { return (signed char)k; }
  static __device__ __forceinline__ bool is_nan(signed char) { return false; }
  static __device__ __forceinline__ signed char nan_storage() { return 0; }
};
template <> struct order_key<CUREDUCE_DTYPE_U8> {
  typedef int type;
  static const bool has_nan = false;
  static __device__ __forceinline__ int of(unsigned char s) { return (signed char)(s ^ 0x80); }
  static __device__ __forceinline__ unsigned char storage(int k) { return (unsigned char)(k ^ 0x80); }
  static __device__ __forceinline__ bool is_nan(unsigned char) { return false; }
  static __device__ __forceinline__ unsigned char nan_storage() { return 0; }
};
template <> struct order_key<CUREDUCE_DTYPE_I32> : signed_order<int, int, 0> {};
template <> struct order_key<CUREDUCE_DTYPE_U32> : signed_order<unsigned, int, 0x80000000u> {};
template <> struct order_key<CUREDUCE_DTYPE_I64> : signed_order<long long, long long, 0> {};
template <> struct order_key<CUREDUCE_DTYPE_U64> : signed_order<u64, long long, 0x8000000000000000ull> {};

// Floats: the sign-magnitude bits with the magnitude of negatives flipped (an involution).
template <int INF_BITS> struct half_order {  // f16 and bf16, as their 16 bits
  typedef int type;
  static const bool has_nan = true;
  static const unsigned inf_bits = INF_BITS;
  static __device__ __forceinline__ int of(unsigned short s) {
    const int i = (short)s;
    return i ^ ((i >> 15) & 0x7fff);
  }
  static __device__ __forceinline__ unsigned short storage(int k) { return (unsigned short)of((unsigned short)k); }
  static __device__ __forceinline__ bool is_nan(unsigned short s) { return (s & 0x7fff) > INF_BITS; }
  static __device__ __forceinline__ unsigned short nan_storage() { return 0x7fff; }
};
template <> struct order_key<CUREDUCE_DTYPE_F16> : half_order<0x7c00> {};
template <> struct order_key<CUREDUCE_DTYPE_BF16> : half_order<0x7f80> {};
template <> struct order_key<CUREDUCE_DTYPE_F32> {
  typedef int type;
  static const bool has_nan = true;
  static __device__ __forceinline__ int of(float s) {
    const int i = __float_as_int(s);
    return i ^ ((i >> 31) & 0x7fffffff);
  }
  static __device__ __forceinline__ float storage(int k) { return __int_as_float(k ^ ((k >> 31) & 0x7fffffff)); }
  static __device__ __forceinline__ bool is_nan(float s) { return (__float_as_int(s) & 0x7fffffff) > 0x7f800000; }
  static __device__ __forceinline__ float nan_storage() { return __int_as_float(0x7fffffff); }
};
template <> struct order_key<CUREDUCE_DTYPE_F64> {
  typedef long long type;
  static const bool has_nan = true;
  static __device__ __forceinline__ long long of(double s) {
    const long long i = __double_as_longlong(s);
    return i ^ ((i >> 63) & 0x7fffffffffffffffLL);
  }
  static __device__ __forceinline__ double storage(long long k) {
    return __longlong_as_double(k ^ ((k >> 63) & 0x7fffffffffffffffLL));
  }
  static __device__ __forceinline__ bool is_nan(double s) {
    return (__double_as_longlong(s) & 0x7fffffffffffffffLL) > 0x7ff0000000000000LL;
  }
  static __device__ __forceinline__ double nan_storage() { return __longlong_as_double(0x7fffffffffffffffLL); }
};

template <typename V> struct arg_pair {
  V value;
  long long index;
};
template <typename K> struct arg_acc {
  K key;
  u64 index;
  static const u64 empty = ~0ull;  // the index of an accumulator that holds nothing
};

template <int IN, bool IS_MAX> struct arg_reduction {
  typedef element<IN> E;
  typedef order_key<IN> O;
  typedef typename O::type K;
  typedef arg_acc<K> acc;
  static const u64 empty = acc::empty;
  static const bool is_max = IS_MAX;
  // The largest key: sizeof(storage) bytes wide, so that packed maxima agree.
  static __device__ __forceinline__ K nan_key() {
    return (K)((1ull << (8 * (sizeof(typename E::storage) < sizeof(K) ? sizeof(typename E::storage) : sizeof(K)) - 1)) - 1);
  }
  static __device__ __forceinline__ K key(typename E::storage s) {
    if (O::has_nan && O::is_nan(s)) return nan_key();
    const K k = O::of(s);
    return IS_MAX ? k : (K)~k;
  }
  static __device__ __forceinline__ acc identity() {
    acc a;
    a.key = (K)0;
    a.index = empty;
    return a;
  }
  static __device__ __forceinline__ acc lift(typename E::storage s, u64 index) {
    acc a;
    a.key = key(s);
    a.index = index;
    return a;
  }
  static __device__ __forceinline__ acc combine(acc a, acc b) {
    if (a.index == empty) return b;
    if (b.index == empty) return a;
    return b.key > a.key || (b.key == a.key && b.index < a.index) ? b : a;
  }
  // combine(a, lift) for key k at an index after every one already in a (a column's rows, in
  // order): a tie keeps a, an empty a takes it, and no index is compared.
  static __device__ __forceinline__ acc later(acc a, K k, u64 index) {
    if (a.index == empty || k > a.key) a.key = k, a.index = index;
    return a;
  }
  // The element whose key is k (for a NaN key, the library's NaN).
  static __device__ __forceinline__ typename E::storage storage_of(K k) {
    return O::has_nan && k == nan_key() ? O::nan_storage() : O::storage(IS_MAX ? k : (K)~k);
  }
  // Nothing folded (an empty row, column or segment): min's or max's identity, index -1.
  static __device__ __forceinline__ arg_pair<typename E::value> finish(acc a) {
    arg_pair<typename E::value> r;
    r.value = a.index == empty ? (IS_MAX ? E::lowest() : E::highest()) : E::to_value(storage_of(a.key));
    r.index = a.index == empty ? -1 : (long long)a.index;
    return r;
  }
};
template <int IN> struct reduction<CUREDUCE_OP_ARGMIN, IN> : arg_reduction<IN, false> {};
template <int IN> struct reduction<CUREDUCE_OP_ARGMAX, IN> : arg_reduction<IN, true> {};

// ---- Transforms -------------------------------------------------------------------------------
// A map from an input element to the value the operation reduces, of the type `mapped`. abs clears
// the sign bit, exact in the input type, so the operation's keys and vector paths stay as they are
// (map_vector clears a whole vector's sign bits at once); square, nonzero and the caller's
// expression compute in the float accumulator type and give f32/f64 and u8 values.
template <int T, int IN> struct transform {  // none
  static const int mapped = IN;
  static __device__ __forceinline__ typename element<IN>::storage apply(typename element<IN>::storage s) { return s; }
};
__device__ __forceinline__ unsigned short clear_sign(unsigned short s) { return s & 0x7fff; }
__device__ __forceinline__ float clear_sign(float s) { return __int_as_float(__float_as_int(s) & 0x7fffffff); }
__device__ __forceinline__ double clear_sign(double s) {
  return __longlong_as_double(__double_as_longlong(s) & 0x7fffffffffffffffLL);
}
template <int IN> struct transform<CUREDUCE_TRANSFORM_ABS, IN> {
  static const int mapped = IN;
  static __device__ __forceinline__ typename element<IN>::storage apply(typename element<IN>::storage s) {
    return clear_sign(s);
  }
};
template <int IN> struct transform<CUREDUCE_TRANSFORM_SQUARE, IN> {
  static const int mapped = IN == CUREDUCE_DTYPE_F64 ? CUREDUCE_DTYPE_F64 : CUREDUCE_DTYPE_F32;
  static __device__ __forceinline__ typename element<mapped>::storage apply(typename element<IN>::storage s) {
    const typename element<mapped>::value v = element<IN>::to_value(s);
    return v * v;
  }
};
#if CUREDUCE_TRANSFORM == CUREDUCE_TRANSFORM_EXPRESSION
// The caller's map: cureduce_user_map, written by the host before this file.
template <int IN> struct transform<CUREDUCE_TRANSFORM_EXPRESSION, IN> {
  static const int mapped = IN == CUREDUCE_DTYPE_F64 ? CUREDUCE_DTYPE_F64 : CUREDUCE_DTYPE_F32;
  static __device__ __forceinline__ typename element<mapped>::storage apply(typename element<IN>::storage s) {
    return cureduce_user_map(element<IN>::to_value(s));
  }
};
#endif
// Maps of two inputs: element i of x with element i of y, in the float accumulator type; the
// loaders read both (pair_source).
#define CUREDUCE_PAIR \
  (CUREDUCE_TRANSFORM == CUREDUCE_TRANSFORM_PRODUCT || CUREDUCE_TRANSFORM == CUREDUCE_TRANSFORM_PAIR_EXPRESSION)
template <int IN> struct transform<CUREDUCE_TRANSFORM_PRODUCT, IN> {
  static const int mapped = IN == CUREDUCE_DTYPE_F64 ? CUREDUCE_DTYPE_F64 : CUREDUCE_DTYPE_F32;
  typedef typename element<mapped>::value value;
  static __device__ __forceinline__ value apply(typename element<IN>::storage x, typename element<IN>::storage y) {
    return (value)element<IN>::to_value(x) * (value)element<IN>::to_value(y);
  }
};
#if CUREDUCE_TRANSFORM == CUREDUCE_TRANSFORM_PAIR_EXPRESSION
template <int IN> struct transform<CUREDUCE_TRANSFORM_PAIR_EXPRESSION, IN> {
  static const int mapped = IN == CUREDUCE_DTYPE_F64 ? CUREDUCE_DTYPE_F64 : CUREDUCE_DTYPE_F32;
  static __device__ __forceinline__ typename element<mapped>::value apply(typename element<IN>::storage x,
                                                                          typename element<IN>::storage y) {
    return cureduce_user_map(element<IN>::to_value(x), element<IN>::to_value(y));
  }
};
#endif
template <int IN> struct transform<CUREDUCE_TRANSFORM_NONZERO, IN> {
  static const int mapped = CUREDUCE_DTYPE_U8;
  static __device__ __forceinline__ unsigned char apply(typename element<IN>::storage s) {
    return element<IN>::to_value(s) != 0;  // a NaN is not zero
  }
};

typedef transform<CUREDUCE_TRANSFORM, CUREDUCE_INPUT> map;

// What the accumulators that start from identity() share: their start, and a run folded element
// by element through Folds::fold (Folds: the element_fold that derives from this).
template <typename R, typename A, typename Folds> struct unshifted_folds {
  static const bool shifted = false;
  template <typename S> static __device__ __forceinline__ A start(S) { return R::identity(); }
  template <int N, typename S> static __device__ __forceinline__ A fold_run(A a, const S (&s)[N], u64 first_index) {
#pragma unroll
    for (int j = 0; j < N; j++) a = Folds::fold(a, s[j], first_index + j);
    return a;
  }
};

// One element into an accumulator: combine(acc, lift(element)), but for the accumulators whose
// operations fold a single element more cheaply (fold_element: the moments' and logsumexp's); and
// a run of N elements in index order, the first at first_index, which the moments fold at once.
// A sequence's accumulators start from identity(), but the moments' (shifted) from its first element.
template <typename R, typename A> struct element_fold : unshifted_folds<R, A, element_fold<R, A> > {
  template <typename S> static __device__ __forceinline__ A fold(A a, S s, u64 index) {
    return R::combine(a, R::lift(s, index));
  }
};
template <typename R> struct element_fold<R, moments> {
  static const bool shifted = true;
  template <typename S> static __device__ __forceinline__ moments start(S first) { return R::start(first); }
  template <typename S> static __device__ __forceinline__ moments fold(moments a, S s, u64) { return R::fold_element(a, s); }
  template <int N, typename S> static __device__ __forceinline__ moments fold_run(moments a, const S (&s)[N], u64) {
    return R::fold_elements(a, s);
  }
};
template <typename R> struct element_fold<R, norm2_sums> : unshifted_folds<R, norm2_sums, element_fold<R, norm2_sums> > {
  static __device__ __forceinline__ norm2_sums fold(norm2_sums a, double x, u64) {
    const double one[1] = {x};
    return R::fold_elements(a, one);
  }
  template <int N> static __device__ __forceinline__ norm2_sums fold_run(norm2_sums a, const double (&x)[N], u64) {
    return R::fold_elements(a, x);
  }
};
template <typename R, typename F>
struct element_fold<R, log_sum<F> > : unshifted_folds<R, log_sum<F>, element_fold<R, log_sum<F> > > {
  template <typename S> static __device__ __forceinline__ log_sum<F> fold(log_sum<F> a, S s, u64) {
    return R::fold_element(a, s);
  }
};

// An element whose index follows every one already in the accumulator (a column's rows, in order):
// folded as any, but by argmin and argmax through their later(), which compares no index.
template <typename R, typename A> struct later_fold {
  template <typename S> static __device__ __forceinline__ A fold(A a, S s, u64 index) {
    return element_fold<R, A>::fold(a, s, index);
  }
};
template <typename R, typename K> struct later_fold<R, arg_acc<K> > {
  template <typename S> static __device__ __forceinline__ arg_acc<K> fold(arg_acc<K> a, S s, u64 index) {
    return R::later(a, R::key(s), index);
  }
};

// The operation on mapped values, lifting and folding input elements (pairs of them, for a map of
// two inputs) through the map; fold_later and fold_pair_later: later_fold's.
template <int OP> struct mapped_reduction : reduction<OP, map::mapped> {
  typedef reduction<OP, map::mapped> base;
  typedef typename base::acc acc;
  typedef element_fold<base, acc> folds;
  typedef typename element<CUREDUCE_INPUT>::storage input_storage;
  typedef typename element<map::mapped>::storage mapped_storage;
  static const bool shifted = folds::shifted;
  static __device__ __forceinline__ acc start(mapped_storage first) { return folds::start(first); }
#if CUREDUCE_PAIR
  static __device__ __forceinline__ acc fold_pair(acc a, input_storage x, input_storage y, u64 index) {
    return folds::fold(a, map::apply(x, y), index);
  }
  static __device__ __forceinline__ acc fold_pair_later(acc a, input_storage x, input_storage y, u64 index) {
    return later_fold<base, acc>::fold(a, map::apply(x, y), index);
  }
  template <int N>
  static __device__ __forceinline__ acc fold_pair_run(acc a, const input_storage (&x)[N], const input_storage (&y)[N],
                                                      u64 first_index) {
    mapped_storage mapped[N];
#pragma unroll
    for (int j = 0; j < N; j++) mapped[j] = map::apply(x[j], y[j]);
    return folds::fold_run(a, mapped, first_index);
  }
#else
  static __device__ __forceinline__ acc lift(input_storage s, u64 index) { return base::lift(map::apply(s), index); }
  static __device__ __forceinline__ acc fold(acc a, input_storage s, u64 index) {
    return folds::fold(a, map::apply(s), index);
  }
  static __device__ __forceinline__ acc fold_later(acc a, input_storage s, u64 index) {
    return later_fold<base, acc>::fold(a, map::apply(s), index);
  }
  template <int N> static __device__ __forceinline__ acc fold_run(acc a, const input_storage (&s)[N], u64 first_index) {
    mapped_storage mapped[N];
#pragma unroll
    for (int j = 0; j < N; j++) mapped[j] = map::apply(s[j]);
    return folds::fold_run(a, mapped, first_index);
  }
#endif
};

// ---- This kernel's choices --------------------------------------------------------------------
typedef mapped_reduction<CUREDUCE_OP> op;
typedef op::acc acc_t;
typedef element<CUREDUCE_INPUT>::storage input_t;

// How many accumulators a thread folds its loads into: one a load, so that the folds of a round do
// not wait on each other; logsumexp's all into one. Its folds wait on each other only through the
// running largest's compare, not through the exps, while every accumulator more costs two exps
// when a thread's accumulators are combined, and spends its first element's exp on an empty
// accumulator's -inf (at 2^20 f64 elements, 8 a thread with four accumulators: 15 exps a thread,
// the warp fold's rescale counted, where one accumulator takes 9).
template <typename A> struct accumulators_of {
  static const int count = CUREDUCE_UNROLL;
};
template <typename F> struct accumulators_of<log_sum<F> > {
  static const int count = 1;
};
const int thread_accumulators = accumulators_of<acc_t>::count;

// ---- Warp and block building blocks ----------------------------------------------------------
template <typename T> __device__ __forceinline__ T shuffle_down(T v, int offset) {
  return __shfl_down_sync(0xffffffffu, v, offset);
}
__device__ __forceinline__ signed char shuffle_down(signed char v, int offset) {
  return (signed char)__shfl_down_sync(0xffffffffu, (int)v, offset);
}
__device__ __forceinline__ unsigned char shuffle_down(unsigned char v, int offset) {
  return (unsigned char)__shfl_down_sync(0xffffffffu, (unsigned)v, offset);
}
template <typename K> __device__ __forceinline__ arg_acc<K> shuffle_down(arg_acc<K> p, int offset) {
  p.key = shuffle_down(p.key, offset);
  p.index = shuffle_down(p.index, offset);
  return p;
}
// Accumulators of several plain numbers move as their 32-bit words.
template <typename T> union words_of {
  T value;
  unsigned word[sizeof(T) / 4];
};
template <typename T> __device__ __forceinline__ T shuffle_words_down(T v, int offset) {
  words_of<T> w;
  w.value = v;
#pragma unroll
  for (int i = 0; i < (int)(sizeof(T) / 4); i++) w.word[i] = __shfl_down_sync(0xffffffffu, w.word[i], offset);
  return w.value;
}
__device__ __forceinline__ norm2_sums shuffle_down(norm2_sums s, int offset) { return shuffle_words_down(s, offset); }
__device__ __forceinline__ moments shuffle_down(moments m, int offset) { return shuffle_words_down(m, offset); }
template <typename F> __device__ __forceinline__ log_sum<F> shuffle_down(log_sum<F> l, int offset) {
  return shuffle_words_down(l, offset);
}

// Folds a full warp's values with shuffles; lane 0 holds the result.
template <typename A> struct warp_fold {
  static __device__ __forceinline__ A reduce(A v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v = op::combine(v, shuffle_down(v, offset));
    return v;
  }
};
// A float or double summed over a warp's lanes in shuffle_down's tree, the sum in lane 0.
template <typename F> __device__ __forceinline__ F warp_sum_down(F v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}
// Three f64 sums of a warp's lanes, each folded in the tree of shuffle_down's fold (lane l adds
// lane l + 16, then l + 8, ...), so with the same bits, but with the work split between the lanes:
// at offset 16 the lower half-warp keeps the first two sums and the upper half the third (and a
// zero), trading the others; at offset 8 each half splits its pair again; the last three levels
// move one double. 12 shuffles, and 4 to bring the sums to lane 0, where the three sums at every
// level took 30: an SM shuffles 32 lanes a clock, and at 2^20 elements the moments' warp folds of
// a launch (512 blocks, nine folds each: its eight warps', then warp 0's) queue some 1100 shuffles
// an SM, about 0.55 us, where a sum's take 0.18. The lanes' partners are by xor: where lane l
// meets l + d, lane l + d computes the same sum in the other order, which IEEE addition leaves the
// same.
__device__ __forceinline__ void warp_sum_three(double &first, double &second, double &third) {
  const int lane = threadIdx.x % 32;
  const bool upper_half = lane & 16, upper_quarter = lane & 8;
  double kept_a = upper_half ? third : first, kept_b = upper_half ? 0.0 : second;
  kept_a += __shfl_xor_sync(0xffffffffu, upper_half ? first : third, 16);
  kept_b += __shfl_xor_sync(0xffffffffu, upper_half ? second : 0.0, 16);
  double kept = upper_quarter ? kept_b : kept_a;
  kept += __shfl_xor_sync(0xffffffffu, upper_quarter ? kept_a : kept_b, 8);
#pragma unroll
  for (int offset = 4; offset > 0; offset >>= 1) kept += __shfl_xor_sync(0xffffffffu, kept, offset);
  // Lane 0 now holds the first sum, lane 8 the second, lane 16 the third.
  first = kept;
  second = __shfl_sync(0xffffffffu, kept, 8);
  third = __shfl_sync(0xffffffffu, kept, 16);
}
// The moments of one sequence share its shift: a warp adds sums, squares and counts, and takes
// the shift of a lane that holds elements (the others may have none), which the tree's shuffles
// hide.
template <> struct warp_fold<moments> {
  static __device__ __forceinline__ moments reduce(moments v) {
    const unsigned holders = __ballot_sync(0xffffffffu, v.count != 0.0);
    v.shift = __shfl_sync(0xffffffffu, v.shift, holders ? __ffs(holders) - 1 : 0);
    warp_sum_three(v.sum, v.squares, v.count);
    return v;
  }
};
// norm2's f64 sums: nearly always only the middle one holds anything, and then the warp folds it
// alone, a double a level; else all three (warp_sum_three). Adding zeros changes no sum, so the
// result is the same bits either way.
template <> struct warp_fold<norm2_sums> {
  static __device__ __forceinline__ norm2_sums reduce(norm2_sums v) {
    if (__any_sync(0xffffffffu, v.small != 0.0 || v.big != 0.0)) {
      warp_sum_three(v.small, v.medium, v.big);
      return v;
    }
    v.medium = warp_sum_down(v.medium);
    return v;
  }
};
#if __CUDA_ARCH__ >= 800
// The largest integer key of the lanes that hold one, by the warp's integer max instruction
// (redux.sync; a 64-bit key's high word, then its low word among those with that high word): one
// or two instructions where a shuffle tree takes five levels, each waiting on the one before.
__device__ __forceinline__ int warp_largest_key(int key, bool holds) {
  return __reduce_max_sync(0xffffffffu, holds ? key : -0x7fffffff - 1);
}
__device__ __forceinline__ long long warp_largest_key(long long key, bool holds) {
  const int high = (int)(key >> 32), largest_high = warp_largest_key(high, holds);
  const unsigned low = __reduce_max_sync(0xffffffffu, holds && high == largest_high ? (unsigned)key : 0u);
  return (long long)((u64)(unsigned)largest_high << 32 | low);
}
#endif
// logsumexp's merge takes two exps a level (ten a lane); the warp first agrees on its largest
// element and each lane rescales once to it, then each level adds. The largest (never a NaN) is
// the largest of the floats' ordered integer keys (order_key: -0 below +0, which changes no sum).
template <typename F> __device__ __forceinline__ F warp_largest(F v) {
#if __CUDA_ARCH__ >= 800
  typedef order_key<sizeof(F) == 8 ? CUREDUCE_DTYPE_F64 : CUREDUCE_DTYPE_F32> key;
  return key::storage(warp_largest_key(key::of(v), true));
#else
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
#endif
}
template <typename F> struct warp_fold<log_sum<F> > {
  static __device__ __forceinline__ log_sum<F> reduce(log_sum<F> v) {
    const F largest = warp_largest(v.largest);  // never NaN: a NaN element leaves it alone
    return log_sum<F>{largest, warp_sum_down(v.sum * log_sum_scale(v.largest, largest))};
  }
};
#if __CUDA_ARCH__ >= 800
// argmin and argmax: the largest key (warp_largest_key), then the smallest index among its holders
// by two integer mins, word by word the same way. The shuffle tree took five levels of three
// shuffles and a compare chain each, and the arg kernels fold twice a launch on their latency
// path. Empty lanes take no part, and a warp of them stays empty.
__device__ __forceinline__ u64 warp_first_index(u64 index, bool holds) {
  const unsigned high = (unsigned)(index >> 32);
  const unsigned smallest_high = __reduce_min_sync(0xffffffffu, holds ? high : ~0u);
  const unsigned low = __reduce_min_sync(0xffffffffu, holds && high == smallest_high ? (unsigned)index : ~0u);
  return (u64)smallest_high << 32 | low;
}
template <typename K> struct warp_fold<arg_acc<K> > {
  static __device__ __forceinline__ arg_acc<K> reduce(arg_acc<K> v) {
    const bool holds = v.index != arg_acc<K>::empty;
    const K largest = warp_largest_key(v.key, holds);
    v.index = warp_first_index(v.index, holds && v.key == largest);
    v.key = largest;
    return v;
  }
};
#endif
__device__ __forceinline__ acc_t warp_reduce(acc_t v) { return warp_fold<acc_t>::reduce(v); }

// Folds a block's values: each warp with shuffles, then warp 0 folds one slot per warp.
// Thread 0 holds the result. The caller separates two calls with __syncthreads().
__device__ __forceinline__ acc_t block_reduce(acc_t v) {
  __shared__ acc_t warp_results[CUREDUCE_BLOCK / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_reduce(v);
  if (lane == 0) warp_results[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < CUREDUCE_BLOCK / 32 ? warp_results[lane] : op::identity();
    v = warp_reduce(v);
  }
  return v;
}

// Writes the result in the output type: for argmin/argmax the value, then the index at byte 8.
template <typename A> __device__ __forceinline__ void store_result(void *out, A a) {
  typedef element<CUREDUCE_OUTPUT> O;
  *(typename O::storage *)out = O::from_value((typename O::value)a);
}
template <typename V> __device__ __forceinline__ void store_result(void *out, arg_pair<V> a) {
  store_result(out, a.value);
  *(long long *)((char *)out + 8) = a.index;
}
// A variance or standard deviation: a whole cureduce_value, the mean at byte 16.
__device__ __forceinline__ void store_result(void *out, spread_pair a) {
  store_result(out, a.value);
  *(long long *)((char *)out + 8) = -1;
  store_result((char *)out + 16, a.mean);
}

// Partials cross between blocks through L2: volatile accesses keep them out of the
// non-coherent L1.
template <typename T> __device__ __forceinline__ void store_partial(T *p, T v) { *(volatile T *)p = v; }
template <typename T> __device__ __forceinline__ T load_partial(const T *p) { return *(const volatile T *)p; }
template <typename K> __device__ __forceinline__ void store_partial(arg_acc<K> *p, arg_acc<K> v) {
  store_partial(&p->key, v.key);
  store_partial(&p->index, v.index);
}
template <typename K> __device__ __forceinline__ arg_acc<K> load_partial(const arg_acc<K> *p) {
  arg_acc<K> v;
  v.key = load_partial(&p->key);
  v.index = load_partial(&p->index);
  return v;
}
template <typename T> __device__ __forceinline__ void store_partial_words(T *p, T v) {
  words_of<T> w;
  w.value = v;
#pragma unroll
  for (int i = 0; i < (int)(sizeof(T) / 4); i++) store_partial((unsigned *)p + i, w.word[i]);
}
template <typename T> __device__ __forceinline__ T load_partial_words(const T *p) {
  words_of<T> w;
#pragma unroll
  for (int i = 0; i < (int)(sizeof(T) / 4); i++) w.word[i] = load_partial((const unsigned *)p + i);
  return w.value;
}
__device__ __forceinline__ void store_partial(norm2_sums *p, norm2_sums v) { store_partial_words(p, v); }
__device__ __forceinline__ norm2_sums load_partial(const norm2_sums *p) { return load_partial_words(p); }
__device__ __forceinline__ void store_partial(moments *p, moments v) { store_partial_words(p, v); }
__device__ __forceinline__ moments load_partial(const moments *p) { return load_partial_words(p); }
template <typename F> __device__ __forceinline__ void store_partial(log_sum<F> *p, log_sum<F> v) { store_partial_words(p, v); }
template <typename F> __device__ __forceinline__ log_sum<F> load_partial(const log_sum<F> *p) { return load_partial_words(p); }

// ---- The vector grid-stride loader ------------------------------------------------------------
// Each thread walks the aligned body of the input in a grid-stride loop of CUREDUCE_VECTOR_BYTES
// loads, CUREDUCE_UNROLL of them in flight before the first is used, each into its own
// accumulator. The few elements before the first aligned address (the head) and after the last
// whole vector (the tail) are taken one by one by the first threads.

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
  return op::combine(acc, op::lift(key_order::storage_of(largest), 0));
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

// Where a thread's elements come from, for strided_accumulate and the shaped kernels: `loads`,
// what one load brings; the elements before the first whole load (head); the body, where whole
// loads start after them, and its load v; the load starting at element i (a whole load's start);
// the folds of a load, of an iteration's loads, of element j of a load and of element i, the last
// two as the element of a given index (a column's: its row; element j's after every index already
// in the accumulator: later_fold); whether rows `leading` elements apart all start at a whole
// load; the source from element `first` on. One input here; a map of two inputs reads pairs
// (pair_source).
struct single_source {
  const input_t *__restrict__ input;
  typedef vector_t loads;
  typedef const vector_t *body_t;
  __device__ __forceinline__ u64 head(u64 n) const { return head_of(input, n); }
  __device__ __forceinline__ body_t body(u64 head) const { return (const vector_t *)(input + head); }
  static __device__ __forceinline__ loads load(body_t body, u64 v) { return __ldg(body + v); }
  __device__ __forceinline__ loads load_at(u64 i) const { return __ldg((const vector_t *)(input + i)); }
  static __device__ __forceinline__ void fold_all(acc_t *acc, const loads *loaded, u64 first_index, u64 stride) {
    fold_loads(acc, loaded, first_index, stride);
  }
  static __device__ __forceinline__ acc_t fold_one(acc_t acc, loads loaded, u64 first_index) {
    return fold_vector(acc, loaded, first_index);
  }
  static __device__ __forceinline__ acc_t fold_lane(acc_t acc, loads loaded, int j, u64 index) {
    unpacked u;
    u.raw = loaded;
    return op::fold_later(acc, u.element[j], index);
  }
  __device__ __forceinline__ acc_t fold_element(acc_t acc, u64 i, u64 index) const { return op::fold(acc, input[i], index); }
  __device__ __forceinline__ op::mapped_storage first_mapped() const { return map::apply(input[0]); }
  __device__ __forceinline__ bool rows_aligned(u64 leading) const {
    return (((u64)input | leading * sizeof(input_t)) % CUREDUCE_VECTOR_BYTES) == 0;
  }
  __device__ __forceinline__ single_source from(u64 first) const { return single_source{input + first}; }
};
#endif

#if CUREDUCE_PAIR
// Two inputs, element i of x with element i of y. Where they lie equally far from a vector boundary
// both are read in whole vectors; otherwise every element is taken one by one (any alignment is
// right, a different one slower).
struct vector_pair {
  vector_t x, y;
};
struct pair_source {
  const input_t *__restrict__ x;
  const input_t *__restrict__ y;
  typedef vector_pair loads;
  struct body_t {
    const vector_t *x, *y;
  };
  __device__ __forceinline__ u64 head(u64 n) const {
    return ((u64)x - (u64)y) % CUREDUCE_VECTOR_BYTES == 0 ? head_of(x, n) : n;
  }
  __device__ __forceinline__ body_t body(u64 head) const {
    return body_t{(const vector_t *)(x + head), (const vector_t *)(y + head)};
  }
  static __device__ __forceinline__ loads load(body_t body, u64 v) {
    return vector_pair{__ldg(body.x + v), __ldg(body.y + v)};
  }
  __device__ __forceinline__ loads load_at(u64 i) const {
    return vector_pair{__ldg((const vector_t *)(x + i)), __ldg((const vector_t *)(y + i))};
  }
  static __device__ __forceinline__ acc_t fold_lane(acc_t acc, loads loaded, int j, u64 index) {
    unpacked ux, uy;
    ux.raw = loaded.x, uy.raw = loaded.y;
    return op::fold_pair_later(acc, ux.element[j], uy.element[j], index);
  }
  static __device__ __forceinline__ acc_t fold_one(acc_t acc, loads loaded, u64 first_index) {
    unpacked ux, uy;
    ux.raw = loaded.x, uy.raw = loaded.y;
    return op::fold_pair_run(acc, ux.element, uy.element, first_index);
  }
  static __device__ __forceinline__ void fold_all(acc_t *acc, const loads *loaded, u64 first_index, u64 stride) {
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++) {
      acc_t &into = acc[k % thread_accumulators];
      into = fold_one(into, loaded[k], first_index + k * stride);
    }
  }
  __device__ __forceinline__ acc_t fold_element(acc_t acc, u64 i, u64 index) const {
    return op::fold_pair(acc, x[i], y[i], index);
  }
  __device__ __forceinline__ op::mapped_storage first_mapped() const { return map::apply(x[0], y[0]); }
  __device__ __forceinline__ bool rows_aligned(u64 leading) const {
    return (((u64)x | (u64)y | leading * sizeof(input_t)) % CUREDUCE_VECTOR_BYTES) == 0;
  }
  __device__ __forceinline__ pair_source from(u64 first) const { return pair_source{x + first, y + first}; }
};
typedef pair_source kernel_source;
#else
typedef single_source kernel_source;
#endif

// Every kernel takes its input, x, first and y last (NULL for one input): the source they make.
__device__ __forceinline__ kernel_source source_of(const input_t *__restrict__ x, const input_t *__restrict__ y) {
#if CUREDUCE_PAIR
  return pair_source{x, y};
#else
  (void)y;
  return single_source{x};
#endif
}

// The accumulator a sequence whose first mapped value is `first` starts from: identity(), but the
// moments' take it as their shift (moments_reduction).
__device__ __forceinline__ acc_t value_start(op::mapped_storage first) {
  return op::shifted ? op::start(first) : op::identity();
}

// The accumulator a fold of the sequence's n elements starts from (value_start), its first element
// read for the moments only.
template <typename S> __device__ __forceinline__ acc_t sequence_start(const S &sequence, u64 n) {
  return op::shifted && n != 0 ? value_start(sequence.first_mapped()) : op::identity();
}

// The elements [0, n) of the source, taken by `threads` threads of which this is `thread`: whole
// loads in a strided loop, CUREDUCE_UNROLL in flight, the head and tail element by element.
// Indices are from the source's start.
template <typename S>
__device__ __forceinline__ acc_t strided_accumulate(const S &source, u64 n, u64 thread, u64 threads) {
  const u64 head = source.head(n);
  const u64 vectors = (n - head) / vector_elements;
  const u64 tail_start = head + vectors * vector_elements;
  const typename S::body_t body = source.body(head);

  acc_t acc[thread_accumulators];
#pragma unroll
  for (int k = 0; k < thread_accumulators; k++) acc[k] = sequence_start(source, n);

  u64 v = thread;
  for (; v + (CUREDUCE_UNROLL - 1) * threads < vectors; v += CUREDUCE_UNROLL * threads) {
    typename S::loads loaded[CUREDUCE_UNROLL];
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++) loaded[k] = S::load(body, v + k * threads);
    S::fold_all(acc, loaded, head + v * vector_elements, threads * vector_elements);
  }
  for (; v < vectors; v += threads) acc[0] = S::fold_one(acc[0], S::load(body, v), head + v * vector_elements);
  // Fewer threads than head or tail elements only in a small group (row_groups.cu).
  for (u64 i = thread; i < head; i += threads) acc[0] = source.fold_element(acc[0], i, i);
  for (u64 i = tail_start + thread; i < n; i += threads) acc[0] = source.fold_element(acc[0], i, i);

#pragma unroll
  for (int k = 1; k < thread_accumulators; k++) acc[0] = op::combine(acc[0], acc[k]);
  return acc[0];
}

// The whole grid over the whole source.
__device__ __forceinline__ acc_t grid_stride_accumulate(const kernel_source &source, u64 n) {
  return strided_accumulate(source, n, (u64)blockIdx.x * CUREDUCE_BLOCK + threadIdx.x,
                            (u64)gridDim.x * CUREDUCE_BLOCK);
}

// The partials p[i * stride] for i = first, first + step, ... below count, folded into v in that
// order with IN_FLIGHT loads at a time: taken one after another, each cost a round trip to L2
// (ptxas unrolled the sum's finish by itself, not argmax's, whose partials are two loads each).
template <unsigned IN_FLIGHT>
__device__ __forceinline__ acc_t fold_partials(acc_t v, const acc_t *p, unsigned first, unsigned step, unsigned count,
                                               u64 stride) {
  unsigned i = first;
#pragma unroll 1  // IN_FLIGHT at a time: ptxas unrolling further held a sum's partials in 8 more registers
  for (; i + (IN_FLIGHT - 1) * step < count; i += IN_FLIGHT * step) {
    acc_t loaded[IN_FLIGHT];
#pragma unroll
    for (unsigned k = 0; k < IN_FLIGHT; k++) loaded[k] = load_partial(p + (u64)(i + k * step) * stride);
#pragma unroll
    for (unsigned k = 0; k < IN_FLIGHT; k++) v = op::combine(v, loaded[k]);
  }
  for (; i < count; i += step) v = op::combine(v, load_partial(p + (u64)i * stride));
  return v;
}

// The single-pass finish of `blocks` blocks, this one the `place`-th: every block leaves its
// partial, and the last block to arrive folds all partials in block order (so the result does not
// depend on which block was last), writes the result, and re-arms the ticket for the next launch
// on this workspace. Rows and segments finish each with blocks of their own (row_blocks.cu).
__device__ __forceinline__ void finish_blocks(acc_t block_value, unsigned blocks, unsigned place, void *out,
                                              acc_t *partials, unsigned *ticket) {
  if (blocks == 1) {
    if (threadIdx.x == 0) store_result(out, op::finish(block_value));
    return;
  }
  __shared__ bool is_last_block;
  if (threadIdx.x == 0) {
    store_partial(&partials[place], block_value);
    __threadfence();
    is_last_block = atomicAdd(ticket, 1u) == blocks - 1;
  }
  __syncthreads();
  if (!is_last_block) return;
  __threadfence();
  acc_t v = fold_partials<4>(op::identity(), partials, threadIdx.x, CUREDUCE_BLOCK, blocks, 1);
  v = block_reduce(v);
  if (threadIdx.x == 0) {
    store_result(out, op::finish(v));
    *ticket = 0;
  }
}

__device__ __forceinline__ void finish_single_pass(acc_t block_value, void *out, acc_t *partials,
                                                  unsigned *ticket) {
  finish_blocks(block_value, gridDim.x, blockIdx.x, out, partials, ticket);
}

}  // namespace cureduce
