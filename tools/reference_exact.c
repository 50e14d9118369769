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

static int big_highest_bit(const big *b) {
  for (int i = WORDS - 1; i >= 0; i--)
    for (int j = 31; j >= 0; j--)
      if ((b->word[i] >> j) & 1)
        return 32 * i + j;
  return -1;
}

/* Inputs are first summed by sign and binary exponent, as 128-bit integer significands (below
 * 2^53 each, so 2^75 of them fit), which makes the reference fast enough for n > 2^32; each bin
 * then goes into the big integer at its exponent. */
__extension__ typedef unsigned __int128 wide;

typedef struct bins {
  wide sum[2][2047]; /* [negative][biased exponent of the double] */
} bins;

static void bin_double(bins *b, double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  unsigned biased = (unsigned)(bits >> 52) & 0x7ff;
  uint64_t significand = (bits & 0xfffffffffffffull) | (biased ? 1ull << 52 : 0);
  b->sum[bits >> 63][biased] += significand;
}

static void add_bins(big *b, const wide *sum) {
  for (unsigned biased = 0; biased < 2047; biased++) {
    int bit = (biased ? (int)biased : 1) - 1; /* the significand's unit is 2^(biased - 1075) */
    big_add_at(b, (uint64_t)sum[biased], bit);
    big_add_at(b, (uint64_t)(sum[biased] >> 64), bit + 64);
  }
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
    bool sticky = false;
    for (int bit = low - 2; bit >= 0 && !sticky; bit--)
      sticky = big_bit(magnitude, bit);
    if (big_bit(magnitude, low - 1) && (sticky || (kept & 1)))
      kept++;
    value = ldexp((double)kept, low - 1074); /* exact, or infinity beyond the double range */
    if (negative)
      value = -value;
  }
  return value;
}

cureduce_ref_result cureduce_ref_exact_sum(cureduce_dtype input, cureduce_dtype output, const void *data, size_t n) {
  static _Thread_local bins binned;
  memset(&binned, 0, sizeof binned);
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
  cureduce_ref_result expected = {.value = {.index = -1}, .tolerance = 0};
  if (nan || plus_infinity || minus_infinity) {
    cureduce_ref_store_float(output, nan || (plus_infinity && minus_infinity) ? NAN : plus_infinity ? INFINITY : -INFINITY,
                             &expected.value);
    return expected;
  }
  big positive = {{0}}, negative = {{0}};
  add_bins(&positive, binned.sum[0]);
  add_bins(&negative, binned.sum[1]);
  int order = big_compare(&positive, &negative);
  big difference = order >= 0 ? big_subtract(&positive, &negative) : big_subtract(&negative, &positive);
  cureduce_ref_store_float(output, round_to_double(output, order < 0, &difference), &expected.value);
  return expected;
}
