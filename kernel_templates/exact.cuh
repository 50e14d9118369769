// exact_sum: the exact mathematical sum of the inputs, rounded once to the output type (to
// nearest, ties to even). Every configuration, grid, alignment and GPU gives the same bits,
// because the only additions whose order varies are integer additions or float additions that
// provably round nothing.
//
// The prelude adds, from the host's table (src/exact.c):
//   CUREDUCE_EXACT_BASE    the exponent of the superaccumulator's lowest bit: the quantum every
//                          input of this type is a multiple of (2^-149 for f32)
//   CUREDUCE_EXACT_DIGITS  its 32-bit digits, a multiple of 32 (a whole number per warp lane)
//   CUREDUCE_EXACT_PRECISION, CUREDUCE_EXACT_LOWEST   the output type's significand bits and
//                          the exponent of its smallest subnormal
// and exact_round.h comes before it: the rounding (cureduce_exact_round), shared with the host.
// The kernels follow it: exact_sum.cu for a whole array, exact_rows.cu for rows and segments,
// exact_columns.cu for columns, exact_groups.cu for short rows, segments and columns.
//
// How a sum stays exact:
//  1. A thread adds its elements into a few double accumulators ("bands"), each of which only
//     ever receives addends that are multiples of its quantum q and below 2^39 q (f32, bf16) or at
//     most 2^40 q (f16, f64); fewer than 2^14 (resp. at most 2^13) such addends sum below 2^53 q,
//     so every addition is exact. Bands are placed by a warp-wide top exponent t.
//  2. An element outside the bands (larger than 2^(t+1), smaller than the lowest band, NaN or
//     infinite: rare in real data) is a "miss": the warp raises t for a larger one, after moving
//     its bands into the superaccumulator, and deposits the rest exactly, one element at a time.
//  3. The superaccumulator is a fixed-point integer of CUREDUCE_EXACT_DIGITS 32-bit digits spread
//     over the warp's registers, as 64-bit limbs that absorb many deposits between carry steps.
//     Warps add theirs into the block's (shared memory), blocks into the workspace (global
//     integer atomics), and the last block rounds once (a row's block rounds its row itself, a
//     column's warp its column).
//
// No overflow, for any n below 2^64 (the API's size_t): every input is below 2^128 (f32, bf16),
// 2^16 (f16) or 2^1024 (f64), so any partial sum is below 2^(64+128) = 2^192, 2^80 or 2^1088:
// from CUREDUCE_EXACT_BASE that is at most 341 bits (f32), 325 (bf16), 104 (f16) or 2162 (f64),
// below the 1024 (3072 for f64) bits held, with room for the sign. A limb takes deposits of less
// than 2^32 in magnitude and is carried (to below 2^33) at least every 2^30 deposits, so it stays
// below 2^63; the block adds at most 32 warps' limbs (below 2^38), the workspace at most
// CUREDUCE_MAX_GRID = 8192 blocks' (below 2^51).

using namespace cureduce;

namespace cureduce {
namespace exact {

typedef long long s64;
const unsigned full_warp = 0xffffffffu;
const int limbs_per_lane = CUREDUCE_EXACT_DIGITS / 32;
static_assert(CUREDUCE_EXACT_DIGITS % 32 == 0, "the digits fill whole warps");

__device__ __forceinline__ int warp_max(int v) {
#if __CUDA_ARCH__ >= 800
  return (int)__reduce_max_sync(full_warp, (unsigned)(v + (1 << 30))) - (1 << 30);
#else
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = max(v, __shfl_xor_sync(full_warp, v, offset));
  return v;
#endif
}

// The larger of each 16-bit lane: one instruction on sm_90 (CUDA's __vimax_*16x2 take three
// operands or signed lanes, __vmaxu2 is emulated).
__device__ __forceinline__ unsigned max_u16x2(unsigned a, unsigned b) {
#if __CUDA_ARCH__ >= 900
  unsigned larger;
  asm("max.u16x2 %0, %1, %2;" : "=r"(larger) : "r"(a), "r"(b));
  return larger;
#else
  return __vmaxu2(a, b);
#endif
}

__device__ __forceinline__ s64 warp_sum(s64 v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(full_warp, v, offset);
  return v;
}

// 2^e as a float or double: 0 below the smallest subnormal, infinity above the largest finite.
__device__ __forceinline__ float power_of_two_f(int e) {
  if (e < -149) return 0.0f;
  if (e > 127) return __int_as_float(0x7f800000);
  return e >= -126 ? __int_as_float((e + 127) << 23) : __int_as_float(1 << (e + 149));
}
__device__ __forceinline__ double power_of_two(int e) {  // e within the normal range
  return __longlong_as_double((s64)(e + 1023) << 52);
}

// The exponent of a nonzero finite magnitude: its largest power of two at most it (subnormals
// count as one below the smallest normal, an upper bound is all the bands need).
__device__ __forceinline__ int exponent_of(float a) { return (int)((__float_as_uint(a) >> 23) & 0xffu) - 127; }
__device__ __forceinline__ int exponent_of(double a) {
  return (int)((__double_as_longlong(a) >> 52) & 0x7ff) - 1023;
}

// ---- The superaccumulator of a warp ------------------------------------------------------------
// Digit d (worth 2^(CUREDUCE_EXACT_BASE + 32 d)) lives in lane d % 32, limb d / 32. Calls are
// warp-uniform: every lane passes the same arguments.
struct superaccumulator {
  s64 limb[limbs_per_lane];
  unsigned deposits;  // since the last carry step
  bool nan, plus_infinity, minus_infinity;

  __device__ __forceinline__ void clear() {
#pragma unroll
    for (int s = 0; s < limbs_per_lane; s++) limb[s] = 0;
    deposits = 0;
    nan = plus_infinity = minus_infinity = false;
  }

  // One carry step over all digits at once: each keeps its balanced low 32 bits (-2^31 to
  // 2^31) and passes the rest to the next; the highest digit keeps everything. Limbs below 2^63
  // come out below 2^33.
  __device__ void carry_step() {
    const int lane = threadIdx.x % 32;
    s64 carry[limbs_per_lane];
#pragma unroll
    for (int s = 0; s < limbs_per_lane; s++) {
      const bool highest = s == limbs_per_lane - 1 && lane == 31;
      carry[s] = highest ? 0 : (limb[s] + (1ll << 31)) >> 32;
      limb[s] -= carry[s] << 32;
    }
#pragma unroll
    for (int s = 0; s < limbs_per_lane; s++) {
      const s64 from_left = __shfl_up_sync(full_warp, carry[s], 1);
      const s64 from_previous_limb = s > 0 ? __shfl_sync(full_warp, carry[s > 0 ? s - 1 : 0], 31) : 0;
      limb[s] += lane > 0 ? from_left : from_previous_limb;
    }
    deposits = 0;
  }

  // Adds v * 2^exponent, a multiple of 2^CUREDUCE_EXACT_BASE with |v| < 2^63.
  __device__ void deposit(s64 v, int exponent) {
    if (v == 0) return;
    int position = exponent - CUREDUCE_EXACT_BASE;
    if (position < 0) {  // v's low bits are zero: it is a multiple of 2^BASE
      v >>= -position;
      position = 0;
    }
    const unsigned long long magnitude = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    const int digit = position / 32, shift = position % 32;
    const unsigned long long low = magnitude << shift, high = shift ? magnitude >> (64 - shift) : 0ull;
    s64 chunk[3] = {(s64)(low & 0xffffffffull), (s64)(low >> 32), (s64)high};
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int s = 0; s < limbs_per_lane; s++) {
      const int d = lane + 32 * s - digit;
      const s64 c = d == 0 ? chunk[0] : d == 1 ? chunk[1] : d == 2 ? chunk[2] : 0;
      limb[s] += v < 0 ? -c : c;
    }
    if (++deposits == (1u << 30)) carry_step();
  }

  // Adds a double exactly: its integer significand at its exponent; infinities and NaN are noted.
  __device__ void deposit_double(double x) {
    const s64 bits = __double_as_longlong(x);
    const int biased = (int)((bits >> 52) & 0x7ff);
    if (biased == 0x7ff) {
      if (x != x) nan = true;
      else if (x > 0) plus_infinity = true;
      else minus_infinity = true;
      return;
    }
    s64 significand = (bits & 0xfffffffffffffll) | (biased ? 1ll << 52 : 0);
    deposit(bits < 0 ? -significand : significand, (biased ? biased : 1) - 1075);
  }
};

// A double that is a multiple of 2^exponent, with at most 2^58 such units, as that integer.
__device__ __forceinline__ s64 units_of(double x, int exponent) {
  if (x == 0) return 0;
  const s64 bits = __double_as_longlong(x);
  const int biased = (int)((bits >> 52) & 0x7ff);
  const s64 significand = (bits & 0xfffffffffffffll) | (biased ? 1ll << 52 : 0);
  const int shift = (biased ? biased : 1) - 1075 - exponent;
  const s64 units = shift >= 0 ? significand << shift : significand >> -shift;
  return bits < 0 ? -units : units;
}

// ---- Bands for f32, bf16 and f16 ---------------------------------------------------------------
// Band k takes the elements whose exponent lies in [t - WIDTH (k+1) + 1, t - WIDTH k]: multiples of
// 2^(t - WIDTH (k+1) + 2 - SIGNIFICAND) and below 2^(t - WIDTH k + 1), a ratio of
// 2^(WIDTH + SIGNIFICAND - 1) = 2^39 with WIDTH 16 for f32 (24-bit significands) and 32 for bf16
// (8-bit). Subnormals are multiples of the smallest one, which is at least the quantum of any band
// that reaches them. f16 needs one fixed band: all of it is a multiple of 2^-24 below 2^16.
template <int SIGNIFICAND, int WIDTH, int COUNT, int FIXED_TOP> struct float_bands {
  typedef float value;
  static const int count = COUNT;
  static const int adds_log2 = FIXED_TOP ? 13 : 14;
  static const int first_top = -150;  // the bands of an empty start: only zeros fit below 2^-149
  static const bool fixed = FIXED_TOP != 0;
  float upper, lower[COUNT];  // band k: lower[k] <= |x| < (k ? lower[k - 1] : upper)
  int top;

  __device__ __forceinline__ void place(int t) {
    top = FIXED_TOP ? FIXED_TOP : t;
    upper = power_of_two_f(top + 1);
#pragma unroll
    for (int k = 0; k < COUNT; k++) lower[k] = FIXED_TOP ? 0.0f : power_of_two_f(top - WIDTH * (k + 1) + 1);
  }
  __device__ __forceinline__ int quantum_exponent(int k) const {
    return FIXED_TOP ? -24 : top - WIDTH * (k + 1) + 2 - SIGNIFICAND;
  }
  // Adds x to its band; true when it has none (a miss). Branch-free: one comparison a threshold,
  // predicated adds (the bands nest, so band k is "at least lower[k] and not at least lower[k-1]").
  __device__ __forceinline__ bool add(double *acc, float x) const {
    const float a = fabsf(x);
    const double d = (double)x;
    const bool fits = a < upper;  // false for NaN and infinity
    bool at_least[COUNT];
#pragma unroll
    for (int k = 0; k < COUNT; k++) at_least[k] = a >= lower[k];
    if (fits && at_least[0]) acc[0] = __dadd_rn(acc[0], d);
#pragma unroll
    for (int k = 1; k < COUNT; k++)
      if (at_least[k] && !at_least[k - 1]) acc[k] = __dadd_rn(acc[k], d);
    return !fits || (!at_least[COUNT - 1] && a != 0.0f);
  }
  // Adds x, known to be zero or within the first USED bands, to its band: one comparison a band
  // but the last, none for one band.
  template <int USED> __device__ __forceinline__ void add_within(double *acc, float x) const {
    const float a = fabsf(x);
    const double d = (double)x;
    bool added = false;
#pragma unroll
    for (int k = 0; k < USED; k++) {
      const bool here = !added && (k == USED - 1 || a >= lower[k]);
      if (here) acc[k] = __dadd_rn(acc[k], d);
      added |= here;
    }
  }
  // The bands' limits as the bits of a 2-byte input (magnitudes of floats order as their bits,
  // NaN above infinity): an element is within bands 0 to k when the bits of its magnitude are below
  // upper_bits() and zero or at least lower_bits(k). Both are powers of two, exact in the input type
  // where they lie within its range; beyond, upper rounds to infinity and lower to 0 or to the
  // smallest subnormal, which keeps the test exact.
  __device__ __forceinline__ unsigned upper_bits() const { return element<CUREDUCE_INPUT>::from_value(upper); }
  __device__ __forceinline__ unsigned lower_bits(int k) const { return element<CUREDUCE_INPUT>::from_value(lower[k]); }
  // What add() leaves out of the bands: x itself or nothing.
  __device__ __forceinline__ double leftover(float x) const {
    const float a = fabsf(x);
    return a < upper && (a >= lower[COUNT - 1] || a == 0.0f) ? 0.0 : (double)x;
  }
  __device__ __forceinline__ bool is_large(float x) const {
    const float a = fabsf(x);
    return a >= upper && a != 0.0f && a < __int_as_float(0x7f800000);
  }
};

// ---- Levels for f64 ----------------------------------------------------------------------------
// An f64 already fills a double, so each element is cut into pieces on fixed grids (levels):
// q_k = (r + M_k) - M_k with M_k = 1.5 * 2^(p - 40 (k+1) + 52) rounds the rest r to a multiple of
// 2^(p - 40 (k+1)) exactly, and r - q_k is exact too (the extraction of Demmel and Nguyen). For
// |x| < 2^p each piece is at most 2^40 quanta of its level. Three levels take every element whose
// exponent is within 67 of t whole; a smaller one leaves a nonzero rest, deposited exactly.
// p is kept within [-954, 1011] so that every M_k is a normal double: elements of 2^1011 or more
// always miss, and are deposited one by one (slow, exact).
struct double_levels {
  typedef double value;
  static const int count = 3;
  static const int adds_log2 = 13;
  static const int first_top = -2000;  // kept at p = -954: levels for the tiniest elements only
  static const bool fixed = false;
  double upper, m[3];
  int top;

  __device__ __forceinline__ void place(int t) {
    const int p = min(max(t + 1, -954), 1011);
    top = p - 1;
    upper = power_of_two(p);
#pragma unroll
    for (int k = 0; k < 3; k++) m[k] = 1.5 * power_of_two(p - 40 * (k + 1) + 52);
  }
  __device__ __forceinline__ int quantum_exponent(int k) const { return top + 1 - 40 * (k + 1); }
  __device__ __forceinline__ double rest_after(double *acc, double x, bool accumulate) const {
    double r = fabs(x) < upper ? x : 0.0;
    const double outside = fabs(x) < upper ? 0.0 : x;
#pragma unroll
    for (int k = 0; k < 3; k++) {
      const double q = __dsub_rn(__dadd_rn(r, m[k]), m[k]);
      if (accumulate) acc[k] = __dadd_rn(acc[k], q);
      r = __dsub_rn(r, q);
    }
    return __dadd_rn(r, outside);  // one of them is zero
  }
  __device__ __forceinline__ bool add(double *acc, double x) const {
    const double rest = rest_after(acc, x, true);
    return rest != 0.0 || rest != rest;
  }
  __device__ __forceinline__ double leftover(double x) const { return rest_after(NULL, x, false); }
  __device__ __forceinline__ bool is_large(double x) const {
    const double a = fabs(x);
    return a >= upper && a < __longlong_as_double(0x7ff0000000000000ll);
  }
};

// resident_threads: the threads an SM should hold, which caps the registers (__launch_bounds__):
// the fewer bands, the fewer registers a thread needs, and 16-bit types need the most loads in
// flight per byte of work. Measured on an H200 at 2^28: f16 fits 32 registers without spills,
// f32 48; bf16 needs 64 (its two fast paths spill at 40 or 32), f64 ran 5% faster with 70 than
// with 64 (its loop spills below 64).
template <int IN> struct bands_of;
template <> struct bands_of<CUREDUCE_DTYPE_F32> {
  typedef float_bands<24, 16, 3, 0> type;
  static const int resident_threads = 1280;
};
template <> struct bands_of<CUREDUCE_DTYPE_BF16> {
  typedef float_bands<8, 32, 2, 0> type;
  static const int resident_threads = 1024;
};
template <> struct bands_of<CUREDUCE_DTYPE_F16> {
  typedef float_bands<11, 40, 1, 15> type;
  static const int resident_threads = 2048;
};
template <> struct bands_of<CUREDUCE_DTYPE_F64> {
  typedef double_levels type;
  static const int resident_threads = 768;
};
typedef bands_of<CUREDUCE_INPUT>::type bands;
typedef bands::value value_t;
const int min_resident_blocks =
    bands_of<CUREDUCE_INPUT>::resident_threads >= 2 * CUREDUCE_BLOCK ? bands_of<CUREDUCE_INPUT>::resident_threads / CUREDUCE_BLOCK : 1;

// ---- A warp's running state ----------------------------------------------------------------------
// Bands are placed this many binades above the largest element seen: data that has crept up to
// its placement once (a value rounding up to the next power of two) would otherwise miss again,
// and on small inputs nearly every warp would take the rare path once. Two binades cost nothing
// but as much range at the bottom, where misses are rarer (band coverage of 46 binades or more).
const int placement_headroom = 2;

const int tile_elements = CUREDUCE_UNROLL * vector_elements;
// Tiles between two moves of the bands into the superaccumulator: each band meets at most
// tile_elements addends a tile, and must meet at most 2^adds_log2 (see bands).
const int tiles_per_flush = (1 << bands::adds_log2) / tile_elements;
static_assert(tiles_per_flush >= 1, "a tile fits within a band's budget");

__device__ __forceinline__ value_t element_value(input_t e) { return (value_t)element<CUREDUCE_INPUT>::to_value(e); }

// 2-byte inputs check their elements against the bands two at a time (warp_state::take_within):
// checked one by one, against three thresholds with predicated adds, they held bf16 to 74% of its
// plain sum's speed on an H200, the checks costing more than the additions.
const bool checks_in_pairs = sizeof(input_t) == 2 && CUREDUCE_VECTOR_BYTES >= 4;
const int pairs_per_vector = CUREDUCE_VECTOR_BYTES >= 4 ? CUREDUCE_VECTOR_BYTES / 4 : 1;
union paired {
  vector_t raw;
  input_t element[vector_elements];
  unsigned pair[pairs_per_vector];
};

// Columns (exact_columns.cu, and exact_groups.cu's rare path): a warp walks a column, whose
// elements lie `gap` apart (the matrix's leading dimension; its vectors are single elements);
// elsewhere they lie side by side, and gap is 1 at compile time.
#if defined(CUREDUCE_LAYOUT) && CUREDUCE_LAYOUT == CUREDUCE_LAYOUT_COLUMNS
const bool walks_columns = true;
#else
const bool walks_columns = false;
#endif

// A tile: the CUREDUCE_UNROLL vectors a lane loads in one iteration of the grid-stride loop, the
// k-th the (v + k * stride)-th, those at or past `vectors` read as zeros. The rare path reads its
// vectors again (from cache): an array indexed in a loop, or handed to a function that is not
// inlined, would live in local memory on the fast path too.
struct tile {
  const vector_t *body;
  u64 v, stride, vectors, gap;
  __device__ __forceinline__ const vector_t *at(u64 i) const { return body + (walks_columns ? i * gap : i); }
  __device__ __forceinline__ vector_t load(int k) const {
    const u64 i = v + (u64)k * stride;
    if (i < vectors) return __ldg(at(i));
    unpacked zero;
#pragma unroll
    for (int j = 0; j < vector_elements; j++) zero.element[j] = input_t(0);
    return zero.raw;
  }
};

struct warp_state {
  bands b;
  double acc[bands::count];
  superaccumulator total;
  int tiles;
  bool placed;    // the bands are placed by the warp's first tile
  bool one_band;  // 2-byte inputs: every tile so far fitted the top band (take)

  __device__ __forceinline__ void start() {
#pragma unroll
    for (int k = 0; k < bands::count; k++) acc[k] = 0.0;
    total.clear();
    tiles = 0;
    placed = bands::fixed;
    one_band = true;
    b.place(bands::first_top);
  }

  // Places the bands at the largest finite element of the warp's first tile, so that the first
  // tile does not take the rare path (which, on small inputs, most warps would: they see one tile).
  __device__ __forceinline__ void place(const vector_t *loaded) {
    int largest = -2000;
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++) {
      unpacked u;
      u.raw = loaded[k];
#pragma unroll
      for (int j = 0; j < vector_elements; j++) {
        const value_t x = element_value(u.element[j]), a = x < 0 ? -x : x;
        if (a != 0 && a - a == 0) largest = max(largest, exponent_of(a));  // a - a: NaN for infinity and NaN
      }
    }
    largest = warp_max(largest);
    if (largest > -2000) b.place(largest + placement_headroom);
    placed = true;
  }

  // Moves the bands' sums into the superaccumulator: each band's units summed over the warp
  // (below 2^58), then deposited once.
  __device__ __forceinline__ void flush() {
#pragma unroll
    for (int k = 0; k < bands::count; k++) {
      total.deposit(warp_sum(units_of(acc[k], b.quantum_exponent(k))), b.quantum_exponent(k));
      acc[k] = 0.0;
    }
    tiles = 0;
  }

  // Deposits each lane's `rest` (nonzero, infinite or NaN), one lane at a time.
  __device__ __forceinline__ void deposit_rests(double rest) {
    for (unsigned lanes = __ballot_sync(full_warp, rest != 0.0 || rest != rest); lanes; lanes &= lanes - 1)
      total.deposit_double(__shfl_sync(full_warp, rest, __ffs(lanes) - 1));
  }

  // Calls visit(x) on each element of the tile, read again (from cache), in loops: the rare paths'
  // way in. Unrolled, or handed the fast path's loads, they made the kernel several times larger,
  // slower to compile, and its fast path spill.
  template <typename Visit> __device__ __forceinline__ void for_each_reloaded(const tile &t, Visit visit) {
#pragma unroll 1
    for (int k = 0; k < CUREDUCE_UNROLL; k++) {
      unpacked u;
      u.raw = t.load(k);
#pragma unroll 1
      for (int j = 0; j < vector_elements; j++) visit(element_value(u.element[j]));
    }
  }

  // The rare path, warp-wide: raise the bands to the largest finite element that missed, then add
  // or deposit, one element of one lane at a time, what the first pass left out.
  __device__ __forceinline__ void take_misses(const tile &t) {
    int largest = -2000;
    for_each_reloaded(t, [&](value_t x) {
      if (b.is_large(x)) largest = max(largest, exponent_of(x < 0 ? -x : x));
    });
    largest = warp_max(largest);
    const bands before = b;
    if (largest > -2000) {
      flush();
      b.place(largest + placement_headroom);
    }
    for_each_reloaded(t, [&](value_t x) {
      const double missed = before.leftover(x);  // what the first pass left out
      double rest = 0.0;
      if (missed != 0.0 || missed != missed) {
        rest = b.leftover((value_t)missed);
        b.add(acc, (value_t)missed);
      }
      deposit_rests(rest);
    });
  }

  // Each element checked against the bands as it is added; the rare path for those outside.
  __device__ __forceinline__ void take_checked(const vector_t *loaded, const tile &t) {
    bool missed = false;
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++) {
      unpacked u;
      u.raw = loaded[k];
#pragma unroll
      for (int j = 0; j < vector_elements; j++) missed |= b.add(acc, element_value(u.element[j]));
    }
    if (__any_sync(full_warp, missed)) take_misses(t);
  }

  // take_checked on the tile read again, for 2-byte inputs whose fast paths did not fit it.
  __device__ __forceinline__ void take_checked_again(const tile &t) {
    bool missed = false;
    for_each_reloaded(t, [&](value_t x) { missed |= b.add(acc, x); });
    if (__any_sync(full_warp, missed)) take_misses(t);
  }

  // 2-byte inputs: each element added unchecked to its band among the first USED, while the bits
  // of the magnitudes are tracked two at a time as 16-bit lanes (one instruction a pair on sm_90):
  // the largest, and the smallest nonzero less one (zero wraps to the top). True when the whole
  // warp's tile lay within those bands; otherwise the caller sets the bands back and tries again.
  // A template on the bands, so that only 2-byte inputs' bands need add_within and their bits.
  template <int USED, typename B>
  __device__ __forceinline__ bool take_within(const B &placed_bands, const vector_t *loaded) {
    unsigned largest = 0, smallest_less_one = 0xffffffffu;
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++) {
      paired u;
      u.raw = loaded[k];
#pragma unroll
      for (int j = 0; j < vector_elements; j++) placed_bands.template add_within<USED>(acc, element_value(u.element[j]));
#pragma unroll
      for (int i = 0; i < pairs_per_vector; i++) {
        const unsigned magnitudes = u.pair[i] & 0x7fff7fffu;
        largest = max_u16x2(largest, magnitudes);
        if (!B::fixed) smallest_less_one = __viaddmin_u16x2(magnitudes, 0xffffffffu, smallest_less_one);
      }
    }
    const unsigned top = max(largest & 0xffffu, largest >> 16);
    const int bottom_less_one = (int)min(smallest_less_one & 0xffffu, smallest_less_one >> 16);
    const bool within = top < placed_bands.upper_bits() &&
                        (B::fixed || bottom_less_one >= (int)placed_bands.lower_bits(USED - 1) - 1);
    return __all_sync(full_warp, within);
  }

  static __device__ __forceinline__ void copy_sums(double *to, const double *from) {
#pragma unroll
    for (int k = 0; k < bands::count; k++) to[k] = from[k];
  }

  __device__ __forceinline__ void take(const vector_t *loaded, const tile &t) {
    if (!placed) place(loaded);
    if constexpr (checks_in_pairs) {
      // Into the top band alone while the warp's data fits it (one add an element), else into
      // all bands; a tile that fits neither way is set back and taken checked.
      double before[bands::count];
      copy_sums(before, acc);
      bool taken = one_band && take_within<1>(b, loaded);
      if (!taken && bands::count > 1) {
        copy_sums(acc, before);
        one_band = false;  // this warp's data is wider than one band: stop trying
        taken = take_within<bands::count>(b, loaded);
      }
      if (!taken) {
        copy_sums(acc, before);
        take_checked_again(t);
      }
    } else {
      take_checked(loaded, t);
    }
    if (++tiles == tiles_per_flush) flush();
  }
};

// ---- Reading the input ------------------------------------------------------------------------------
// The grid-stride loop of accumulate.cuh, made warp-uniform (the warp's lanes run the same iterations,
// lanes past the end reading zeros) so that the warp can agree on its bands. `thread` of `threads`
// (whole warps) walk the input: the grid's for a whole array, a block's for a row, a warp's for a
// column, whose elements lie `gap` apart (walks_columns).
__device__ __forceinline__ void read_input(warp_state &w, const input_t *__restrict__ input, u64 n, u64 thread,
                                          u64 threads, u64 gap = 1) {
  const u64 lane = threadIdx.x % 32;
  const u64 misalignment = (u64)input % CUREDUCE_VECTOR_BYTES;
  u64 head = misalignment ? (CUREDUCE_VECTOR_BYTES - misalignment) / sizeof(input_t) : 0;
  if (head > n) head = n;
  const u64 vectors = (n - head) / vector_elements;
  const u64 tail_start = head + vectors * vector_elements;
  tile t = {(const vector_t *)(input + head), thread, threads, vectors, gap};

  // Whole iterations: every load of every lane in range.
  for (; t.v - lane + 31 + (CUREDUCE_UNROLL - 1) * threads < vectors; t.v += CUREDUCE_UNROLL * threads) {
    vector_t loaded[CUREDUCE_UNROLL];
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++) loaded[k] = __ldg(t.at(t.v + k * threads));
    w.take(loaded, t);
  }
  // The last, partly filled iterations.
  for (; t.v - lane < vectors; t.v += CUREDUCE_UNROLL * threads) {
    vector_t loaded[CUREDUCE_UNROLL];
#pragma unroll
    for (int k = 0; k < CUREDUCE_UNROLL; k++) loaded[k] = t.load(k);
    w.take(loaded, t);
  }
  // The head and the tail, a few elements for the first warp of the walkers: deposited one by one.
  if (thread - lane == 0) {
    w.deposit_rests(thread < head ? (double)element_value(input[thread]) : 0.0);
    w.deposit_rests(thread < n - tail_start ? (double)element_value(input[tail_start + thread]) : 0.0);
  }
}

}  // namespace exact
}  // namespace cureduce

using namespace cureduce::exact;

// Output i64: the sum itself, not rounded, for the caller to combine with others (cureduce.h,
// "exact partials"): the digits carried into [-2^31, 2^31) (the highest keeps the rest), one
// value has one such form, so every configuration writes the same words; then the three counts.
// Partials so written add word by word, as 64-bit integers, more than 2^31 of them.
const bool writes_words = CUREDUCE_OUTPUT == CUREDUCE_DTYPE_I64;

__device__ void write_words(s64 *out, const s64 *words) {
  s64 carry = 0;
  for (int d = 0; d < CUREDUCE_EXACT_DIGITS; d++) {
    const s64 v = words[d] + carry;
    const s64 digit = d == CUREDUCE_EXACT_DIGITS - 1 ? v : ((v + (1ll << 31)) & 0xffffffffll) - (1ll << 31);
    carry = (v - digit) >> 32;
    out[d] = digit;
  }
  for (int i = CUREDUCE_EXACT_DIGITS; i < CUREDUCE_EXACT_DIGITS + 3; i++) out[i] = words[i];
}

const int block_word_count = CUREDUCE_EXACT_DIGITS + 3;  // the digits, then the counts of NaN, +inf, -inf

// Sets words to zero, `thread` of `threads` (a block's, or a warp's lanes for a warp's own words);
// the caller synchronizes before they are added to.
__device__ __forceinline__ void clear_words(s64 *words, unsigned thread, unsigned threads) {
  for (unsigned i = thread; i < block_word_count; i += threads) words[i] = 0;
}

// Moves what a warp has read into the block's words (shared memory; or the warp's own, for a
// column): its bands into its digits, carried, then added digit by digit, and its counts of
// special values.
__device__ __forceinline__ void add_to_block_words(warp_state &w, s64 *block_words) {
  w.flush();
  w.total.carry_step();
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int s = 0; s < limbs_per_lane; s++)
    if (w.total.limb[s]) atomicAdd((unsigned long long *)&block_words[lane + 32 * s], (unsigned long long)w.total.limb[s]);
  if (lane < 3 && (lane == 0 ? w.total.nan : lane == 1 ? w.total.plus_infinity : w.total.minus_infinity))
    atomicAdd((unsigned long long *)&block_words[CUREDUCE_EXACT_DIGITS + lane], 1ull);
}

// Rounds words into out, serially, over the window of digits that holds the nonzero ones.
__device__ void round_window(void *out, s64 *words, int lowest_nonzero, int highest_nonzero) {
  store_result(out, cureduce_exact_round_nonzero(words, CUREDUCE_EXACT_DIGITS, words + CUREDUCE_EXACT_DIGITS,
                                                 lowest_nonzero, highest_nonzero, CUREDUCE_EXACT_BASE,
                                                 CUREDUCE_EXACT_PRECISION, CUREDUCE_EXACT_LOWEST));
}

// Rounds the block's words into out: thread 0 rounds, serially, only the window of digits that
// holds the nonzero ones, which the whole block finds first.
__device__ void round_nonzero_digits(void *out, s64 *words) {
  __shared__ int lowest_nonzero, highest_nonzero;
  if (threadIdx.x == 0) {
    lowest_nonzero = CUREDUCE_EXACT_DIGITS;
    highest_nonzero = -1;
  }
  __syncthreads();
  for (int d = threadIdx.x; d < CUREDUCE_EXACT_DIGITS; d += CUREDUCE_BLOCK)
    if (words[d]) {
      atomicMin(&lowest_nonzero, d);
      atomicMax(&highest_nonzero, d);
    }
  __syncthreads();
  if (threadIdx.x == 0) round_window(out, words, lowest_nonzero, highest_nonzero);
}

// The same for a warp's own words (a column's): the warp finds the window, its lane 0 rounds.
// Every lane calls it, after a __syncwarp that orders the words' additions before it.
__device__ void round_warp_words(void *out, s64 *words) {
  const int lane = threadIdx.x % 32;
  int lowest_nonzero = CUREDUCE_EXACT_DIGITS, highest_nonzero = -1;
  for (int d = lane; d < CUREDUCE_EXACT_DIGITS; d += 32)
    if (words[d]) {
      lowest_nonzero = min(lowest_nonzero, d);
      highest_nonzero = max(highest_nonzero, d);
    }
  lowest_nonzero = -warp_max(-lowest_nonzero);
  highest_nonzero = warp_max(highest_nonzero);
  if (lane == 0) round_window(out, words, lowest_nonzero, highest_nonzero);
}

// Adds the block's `count` words (one sum's block_word_count, or one a warp for columns) into
// `grid_words` (global memory, zero before the first of `blocks` blocks adds to them) and counts
// the block in on `ticket` (likewise zero): the last of them to finish takes the whole into its
// block_words, leaves grid_words and the ticket zero again for the next launch, and alone returns
// true. Every thread of the block calls it.
__device__ bool gather_block_words(s64 *block_words, s64 *grid_words, unsigned count, unsigned *ticket,
                                   unsigned blocks) {
  __shared__ bool is_last_block;
  for (unsigned i = threadIdx.x; i < count; i += CUREDUCE_BLOCK)
    if (block_words[i]) atomicAdd((unsigned long long *)&grid_words[i], (unsigned long long)block_words[i]);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) is_last_block = atomicAdd(ticket, 1u) == blocks - 1;
  __syncthreads();
  if (!is_last_block) return false;
  __threadfence();
  for (unsigned i = threadIdx.x; i < count; i += CUREDUCE_BLOCK) {
    block_words[i] = *(volatile s64 *)&grid_words[i];
    grid_words[i] = 0;
  }
  if (threadIdx.x == 0) *ticket = 0;  // every block of the launch has counted itself in
  __syncthreads();
  return true;
}

// The block's words as its result: the words themselves (output i64) or rounded once. Every thread
// of the block calls it.
__device__ __forceinline__ void store_block_words(void *out, s64 *words) {
  if (writes_words) {
    if (threadIdx.x == 0) write_words((s64 *)out, words);
  } else {
    round_nonzero_digits(out, words);
  }
}
