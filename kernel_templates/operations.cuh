// The operations: each one's accumulator, identity, lift and combine.

namespace cureduce {

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

}  // namespace cureduce
