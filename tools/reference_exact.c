/* The host's exact sum, written apart from the kernel's (kernel_templates/exact.cuh) so that
 * one checks the other: every input is read as a double (exactly) and its integer significand is
 * added, at its exponent, into one of two unsigned big integers, one for the positive and one for
 * the negative inputs, counted from 2^-1074, the smallest subnormal double, and every other
 * type's quantum is a multiple of that. The difference is rounded once, to nearest even.
 * tests/exact_reference.py checks this code itself against Python's exact rationals. */
#include <math.h>
#include <string.h>

#include "reference.h"

enum { WORDS = 72 }; /* 2304 bits: 2^-1074 to 2^1230, past 2^64 of the largest double */

typedef struct big {
  uint32_t word[WORDS];
} big;

static void big_add_at(big *b, uint64_t significand, int bit) {
  int index = bit / 32, shift = bit % 32;
  uint64_t low = significand << shift, high = shift ? significand >> (64 - shift) : 0;
  uint64_t parts[3] = {low & 0xffffffffu, low >> 32, high};
  uint64_t carry = 0;
  for (int i = index; i < WORDS && (i < index + 3 || carry); i++) {
    uint64_t v = (uint64_t)b->word[i] + (i < index + 3 ? parts[i - index] : 0) + carry;
    b->word[i] = (uint32_t)v;
    carry = v >> 32;
  }
}

static int big_compare(const big *a, const big *b) {
  for (int i = WORDS - 1; i >= 0; i--)
    if (a->word[i] != b->word[i])
      return a->word[i] < b->word[i] ? -1 : 1;
  return 0;
}

static big big_subtract(const big *a, const big *b) { /* a >= b */
  big d;
  int64_t borrow = 0;
  for (int i = 0; i < WORDS; i++) {
    int64_t v = (int64_t)a->word[i] - b->word[i] - borrow;
    borrow = v < 0;
    d.word[i] = (uint32_t)(v + (borrow << 32));
  }
  return d;
}

static int big_bit(const big *b, int bit) { return bit >= 0 && bit < 32 * WORDS && (b->word[bit / 32] >> (bit % 32)) & 1; }

static bool big_any_below(const big *b, int bit) { /* a bit set in [0, bit)? */
  if (bit <= 0)
    return false;
  for (int i = 0; i < bit / 32; i++)
    if (b->word[i])
      return true;
  return bit % 32 && (b->word[bit / 32] & ((1u << (bit % 32)) - 1));
}

static int big_highest_bit(const big *b) {
  for (int i = WORDS - 1; i >= 0; i--)
    if (b->word[i])
      return 32 * i + 31 - __builtin_clz(b->word[i]);
  return -1;
}

/* Inputs are first summed by sign and binary exponent, as 128-bit integer significands (below
 * 2^53 each, so 2^75 of them fit), which makes the reference fast enough for n > 2^32; each bin
 * then goes into the big integer at its exponent. Only the bins of the exponents met are visited
 * and cleared, so that a million rows of two cost a million short sums, not a million sweeps of
 * every exponent. */
__extension__ typedef unsigned __int128 wide;

typedef struct bins {
  wide sum[2][2047]; /* [negative][biased exponent of the double]; zero outside [low, high] */
  unsigned low[2], high[2];
} bins;

static void bin_double(bins *b, double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  unsigned biased = (unsigned)(bits >> 52) & 0x7ff, negative = (unsigned)(bits >> 63);
  uint64_t significand = (bits & 0xfffffffffffffull) | (biased ? 1ull << 52 : 0);
  b->sum[negative][biased] += significand;
  if (biased < b->low[negative])
    b->low[negative] = biased;
  if (biased > b->high[negative])
    b->high[negative] = biased;
}

/* Moves the bins of one sign into the big integer, leaving them zero and empty. */
static void drain_bins(big *into, bins *b, unsigned negative) {
  for (unsigned biased = b->low[negative]; biased <= b->high[negative]; biased++) {
    int bit = (biased ? (int)biased : 1) - 1; /* the significand's unit is 2^(biased - 1075) */
    wide *sum = &b->sum[negative][biased];
    big_add_at(into, (uint64_t)*sum, bit);
    big_add_at(into, (uint64_t)(*sum >> 64), bit + 64);
    *sum = 0;
  }
  b->low[negative] = 2047;
  b->high[negative] = 0;
}

/* sign * magnitude * 2^-1074 rounded to the output type, as a double (exact: the rounded value
 * is representable, or infinite). */
static double round_to_double(cureduce_dtype output, bool negative, const big *magnitude) {
  int precision = output == CUREDUCE_F64 ? 53 : output == CUREDUCE_F32 ? 24 : output == CUREDUCE_F16 ? 11 : 8;
  int lowest = output == CUREDUCE_F64 ? -1074 : output == CUREDUCE_F32 ? -149 : output == CUREDUCE_F16 ? -24 : -133;
  int highest = big_highest_bit(magnitude);
  double value = 0.0;
  if (highest >= 0) {
    int low = highest - precision + 1;
    if (low < lowest + 1074)
      low = lowest + 1074;
    uint64_t kept = 0;
    for (int bit = highest; bit >= low; bit--)
      kept = kept << 1 | (uint64_t)big_bit(magnitude, bit);
    bool sticky = big_any_below(magnitude, low - 1);
    if (big_bit(magnitude, low - 1) && (sticky || (kept & 1)))
      kept++;
    value = ldexp((double)kept, low - 1074); /* exact, or infinity beyond the double range */
    if (negative)
      value = -value;
  }
  return value;
}

cureduce_ref_result cureduce_ref_exact_sum(cureduce_dtype input, cureduce_dtype output, const void *data, size_t n) {
  static _Thread_local bins binned = {.low = {2047, 2047}};
  bool nan = false, plus_infinity = false, minus_infinity = false;
  for (size_t i = 0; i < n; i++) {
    double x = cureduce_ref_float_at(input, data, i);
    if (isnan(x))
      nan = true;
    else if (isinf(x))
      *(x > 0 ? &plus_infinity : &minus_infinity) = true;
    else
      bin_double(&binned, x);
  }
  big positive = {{0}}, negative = {{0}};
  drain_bins(&positive, &binned, 0);
  drain_bins(&negative, &binned, 1);
  cureduce_ref_result expected = {.value = {.index = -1}, .tolerance = 0};
  if (nan || plus_infinity || minus_infinity) {
    cureduce_ref_store_float(output, nan || (plus_infinity && minus_infinity) ? NAN : plus_infinity ? INFINITY : -INFINITY,
                             &expected.value);
    return expected;
  }
  int order = big_compare(&positive, &negative);
  big difference = order >= 0 ? big_subtract(&positive, &negative) : big_subtract(&negative, &positive);
  cureduce_ref_store_float(output, round_to_double(output, order < 0, &difference), &expected.value);
  return expected;
}
