/* Rounding an exact sum's superaccumulator once: shared, as one text, by the exact_sum kernels
 * (NVRTC compiles it before exact.cuh) and the host library (src/exact.c includes it), so that
 * the host's rounding, checked on the CPU against exact rationals, is the kernels' own.
 *
 * digit: `digits` 64-bit digits, digit d worth 2^(base + 32 d), each holding any value as long as
 * the sum stays within the digits (the carry-save form of exact.cuh); counts: the counts of
 * NaNs, +infinities and -infinities. The result is the value rounded to nearest, ties to even, to
 * a format of `precision` significand bits whose smallest subnormal is 2^lowest, as a double
 * (exact: the rounded value is representable, or an infinity); an exact zero is +0. The digits are
 * overwritten. Plain C that CUDA C++ also takes: no header, no bool. */
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define CUREDUCE_EXACT_FUNCTION static __device__
#define CUREDUCE_EXACT_ENTRY static __device__ __noinline__ /* once a launch: not worth registers */
#define CUREDUCE_EXACT_CLZLL(x) __clzll(x)
#define CUREDUCE_EXACT_NAN __longlong_as_double(0x7ff8000000000000ll)
#define CUREDUCE_EXACT_INFINITY __longlong_as_double(0x7ff0000000000000ll)
#define CUREDUCE_EXACT_UNROLL _Pragma("unroll 8") /* the loads do not wait for the carries */
#else /* C: after <math.h> */
#define CUREDUCE_EXACT_FUNCTION static inline /* not every includer calls every function */
#define CUREDUCE_EXACT_ENTRY static inline
#define CUREDUCE_EXACT_CLZLL(x) __builtin_clzll(x)
#define CUREDUCE_EXACT_NAN NAN
#define CUREDUCE_EXACT_INFINITY HUGE_VAL
#define CUREDUCE_EXACT_UNROLL
#endif

/* 64 bits of the magnitude from bit `position` (>= 0) up; digits are in [0, 2^32) by then. */
CUREDUCE_EXACT_FUNCTION unsigned long long cureduce_exact_bits_from(const long long *digit, int digits, int position) {
  const int d = position / 32, shift = position % 32;
  unsigned long long word[3];
  for (int i = 0; i < 3; i++) word[i] = d + i < digits ? (unsigned long long)digit[d + i] : 0ull;
  const unsigned long long low = word[0] | word[1] << 32;
  return shift ? low >> shift | word[2] << (64 - shift) : low;
}

/* Whether any bit below `position` is set. */
CUREDUCE_EXACT_FUNCTION int cureduce_exact_any_below(const long long *digit, int position) {
  for (int d = 0; d < position / 32; d++)
    if (digit[d]) return 1;
  return position % 32 && ((unsigned long long)digit[position / 32] & ((1ull << (position % 32)) - 1ull));
}

/* Carries every digit into [0, 2^32), then makes the digits the magnitude; 1 when negative. */
CUREDUCE_EXACT_FUNCTION int cureduce_exact_magnitude(long long *digit, int digits) {
  long long carry = 0;
  CUREDUCE_EXACT_UNROLL
  for (int d = 0; d < digits; d++) {
    const long long v = digit[d] + carry;
    digit[d] = v & 0xffffffffll;
    carry = v >> 32; /* floor: the digits stay the two's complement of the value */
  }
  if (carry >= 0) return 0;
  unsigned long long increment = 1; /* negate: not the digits, plus one */
  CUREDUCE_EXACT_UNROLL
  for (int d = 0; d < digits; d++) {
    const unsigned long long v = (~(unsigned long long)digit[d] & 0xffffffffull) + increment;
    digit[d] = (long long)(v & 0xffffffffull);
    increment = v >> 32;
  }
  return 1;
}

CUREDUCE_EXACT_ENTRY double cureduce_exact_round(long long *words, int digits, const long long *counts, int base,
                                                    int precision, int lowest) {
  const long long nans = counts[0], plus = counts[1], minus = counts[2];
  if (nans || (plus && minus)) return CUREDUCE_EXACT_NAN;
  if (plus || minus) return plus ? CUREDUCE_EXACT_INFINITY : -CUREDUCE_EXACT_INFINITY;

  const int negative = cureduce_exact_magnitude(words, digits);
  int highest = -1;
  for (int d = digits - 1; d >= 0 && highest < 0; d--)
    if (words[d]) highest = 32 * d + 63 - CUREDUCE_EXACT_CLZLL((unsigned long long)words[d]);
  if (highest < 0) return 0.0;

  /* Keep `precision` bits from the highest, but none below the output's smallest subnormal. */
  int low = highest - precision + 1;
  if (low < lowest - base) low = lowest - base;
  if (low < 0) low = 0;
  unsigned long long kept = cureduce_exact_bits_from(words, digits, low) & ((2ull << (highest - low)) - 1);
  if (low > 0) {
    const int half = (cureduce_exact_bits_from(words, digits, low - 1) & 1) != 0;
    if (half && (cureduce_exact_any_below(words, low - 1) || (kept & 1))) kept++; /* 2^precision is exact too */
  }
  const double rounded = scalbn((double)kept, low + base); /* infinity past the double's range */
  return negative ? -rounded : rounded;
}

/* cureduce_exact_round of the window of the digits that holds every nonzero one (from
 * lowest_nonzero to highest_nonzero, -1 when there is none) and two more above, where the carries
 * settle: the same value, as the digits left out are zero, in fewer serial steps. Sums of real
 * data span a few digits of the many the type's range needs (f64: 96). */
CUREDUCE_EXACT_FUNCTION double cureduce_exact_round_nonzero(long long *digit, int digits, const long long *counts,
                                                           int lowest_nonzero, int highest_nonzero, int base,
                                                           int precision, int lowest) {
  const int first = highest_nonzero < 0 ? 0 : lowest_nonzero;
  const int end = (highest_nonzero < 0 ? 0 : highest_nonzero) + 3;
  const int window = (end < digits ? end : digits) - first;
  return cureduce_exact_round(digit + first, window, counts, base + 32 * first, precision, lowest);
}
