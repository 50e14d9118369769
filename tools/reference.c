/* The host side of every correctness check, shared by the tests and the tools: a seeded random
 * generator, f16 and bf16 conversions, random data suited to each operation, and the result of
 * each reduction computed in higher precision with the distance a correct result may have. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reference.h"

/* One generator per thread, so that threads may draw at once: the thread that seeds starts from
 * the seed, every other thread from the seed and the order in which it first draws. */
static _Thread_local uint64_t rng_state[4];
static _Thread_local bool rng_seeded;
static _Atomic uint64_t rng_seed, rng_streams;

static uint64_t splitmix(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t cureduce_ref_seed(void) {
  const char *given = getenv("CUREDUCE_TEST_SEED");
  uint64_t seed;
  if (given && *given) { /* set but empty: as if unset */
    char *end;
    errno = 0;
    seed = strtoull(given, &end, 0);
    if (given[0] < '0' || given[0] > '9' || *end != '\0' || errno != 0) {
      /* a mistyped replay would otherwise run seed 0, or 2^64 - 1, as if asked to */
      fprintf(stderr, "CUREDUCE_TEST_SEED=%s is not a seed: digits, or 0x and hex digits, below 2^64\n", given);
      exit(2);
    }
  } else {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    seed = (uint64_t)now.tv_sec * 1000000007ull ^ (uint64_t)now.tv_nsec;
  }
  rng_seed = seed;
  uint64_t state = seed;
  for (int i = 0; i < 4; i++)
    rng_state[i] = splitmix(&state);
  rng_seeded = true;
  return seed;
}

static void seed_this_thread(void) {
  uint64_t state = atomic_load(&rng_seed) + 0x632be59bd9b4e019ull * (atomic_fetch_add(&rng_streams, 1) + 1);
  for (int i = 0; i < 4; i++)
    rng_state[i] = splitmix(&state);
  rng_seeded = true;
}

/* ---- random (xoshiro256**) ------------------------------------------------------------------- */

static uint64_t rotate_left(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t cureduce_ref_random(void) {
  if (!rng_seeded)
    seed_this_thread();
  uint64_t *s = rng_state;
  uint64_t result = rotate_left(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotate_left(s[3], 45);
  return result;
}

int64_t cureduce_ref_random_range(int64_t low, int64_t high) {
  uint64_t span = (uint64_t)high - (uint64_t)low + 1;
  return span == 0 ? (int64_t)cureduce_ref_random() : (int64_t)((uint64_t)low + cureduce_ref_random() % span);
}

double cureduce_ref_random_unit(void) { return (double)(cureduce_ref_random() >> 11) * 0x1.0p-53; }

/* ---- f16 and bf16 -------------------------------------------------------------------------- */

static float f16_to_float_slow(uint16_t bits) {
  int sign = bits >> 15, exponent = (bits >> 10) & 31, mantissa = bits & 1023;
  float magnitude;
  if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    magnitude = ldexpf((float)mantissa, -24);
  else
    magnitude = ldexpf((float)(mantissa | 1024), exponent - 25);
  return sign ? -magnitude : magnitude;
}

/* References over 2^24 elements convert each one; a table of all 65536 makes that cheap. */
static float f16_table[65536];
static pthread_once_t f16_table_once = PTHREAD_ONCE_INIT;
static void fill_f16_table(void) {
  for (uint32_t bits = 0; bits < 65536; bits++)
    f16_table[bits] = f16_to_float_slow((uint16_t)bits);
}

float cureduce_ref_f16_to_float(uint16_t bits) {
  pthread_once(&f16_table_once, fill_f16_table);
  return f16_table[bits];
}

uint16_t cureduce_ref_float_to_f16(float value) {
  uint16_t sign = signbit(value) ? 0x8000 : 0;
  float magnitude = fabsf(value);
  if (isnan(value))
    return sign | 0x7e00;
  if (magnitude >= 65520.0f) /* rounds to infinity */
    return sign | 0x7c00;
  if (magnitude < 0x1.0p-14f) /* subnormal: a multiple of 2^-24, rounded to nearest even */
    return sign | (uint16_t)nearbyintf(magnitude * 0x1.0p24f);
  int exponent;
  frexpf(magnitude, &exponent); /* magnitude = m * 2^exponent, m in [0.5, 1) */
  float scaled = nearbyintf(ldexpf(magnitude, 11 - exponent)); /* 11 significant bits */
  if (scaled >= 2048.0f) {
    scaled /= 2;
    exponent++;
  }
  return sign | (uint16_t)((exponent + 14) << 10) | ((uint16_t)scaled & 1023);
}

float cureduce_ref_bf16_to_float(uint16_t bits) {
  uint32_t word = (uint32_t)bits << 16;
  float value;
  memcpy(&value, &word, sizeof value);
  return value;
}

uint16_t cureduce_ref_float_to_bf16(float value) {
  uint32_t word;
  memcpy(&word, &value, sizeof word);
  if (isnan(value))
    return (uint16_t)((word >> 16) | 0x40);
  word += 0x7fff + ((word >> 16) & 1); /* round to nearest even */
  return (uint16_t)(word >> 16);
}

/* ---- element access ------------------------------------------------------------------------- */

static bool is_float(cureduce_dtype type) { return type <= CUREDUCE_F64; }
static bool is_signed(cureduce_dtype type) {
  return type == CUREDUCE_I8 || type == CUREDUCE_I32 || type == CUREDUCE_I64;
}

double cureduce_ref_float_at(cureduce_dtype type, const void *data, size_t i) {
  switch (type) {
  case CUREDUCE_F16: return cureduce_ref_f16_to_float(((const uint16_t *)data)[i]);
  case CUREDUCE_BF16: return cureduce_ref_bf16_to_float(((const uint16_t *)data)[i]);
  case CUREDUCE_F32: return ((const float *)data)[i];
  default: return ((const double *)data)[i];
  }
}

/* Integers widened as the library does: sign-extended to 64 bits, then taken modulo 2^64. */
static uint64_t integer_at(cureduce_dtype type, const void *data, size_t i) {
  switch (type) {
  case CUREDUCE_I8: return (uint64_t)(int64_t)((const int8_t *)data)[i];
  case CUREDUCE_U8: return ((const uint8_t *)data)[i];
  case CUREDUCE_I32: return (uint64_t)(int64_t)((const int32_t *)data)[i];
  case CUREDUCE_U32: return ((const uint32_t *)data)[i];
  default: return ((const uint64_t *)data)[i];
  }
}

void cureduce_ref_store_float(cureduce_dtype type, long double x, cureduce_value *value) {
  switch (type) {
  case CUREDUCE_F16: value->value.f16_bits = cureduce_ref_float_to_f16((float)x); break;
  case CUREDUCE_BF16: value->value.bf16_bits = cureduce_ref_float_to_bf16((float)x); break;
  case CUREDUCE_F32: value->value.f32 = (float)x; break;
  default: value->value.f64 = (double)x; break;
  }
}

static void store_integer(cureduce_dtype type, uint64_t x, cureduce_value *value) {
  switch (cureduce_dtype_size(type)) {
  case 1: value->value.u8 = (uint8_t)x; break;
  case 4: value->value.u32 = (uint32_t)x; break;
  default: value->value.u64 = x; break;
  }
}

double cureduce_ref_value_as_double(cureduce_dtype type, const cureduce_value *value) {
  if (is_float(type))
    return cureduce_ref_float_at(type, &value->value, 0);
  uint64_t bits = integer_at(type, &value->value, 0);
  return is_signed(type) ? (double)(int64_t)bits : (double)bits;
}

/* ---- data ------------------------------------------------------------------------------------ */

/* Float sums use multiples of SUM_STEP no larger than 1 in magnitude; see exact_sum_bound(). */
#define SUM_STEP 0x1.0p-5
#define SUM_LIMIT 32

void cureduce_ref_put_float(cureduce_dtype type, void *data, size_t i, double x) {
  switch (type) {
  case CUREDUCE_F16: ((uint16_t *)data)[i] = cureduce_ref_float_to_f16((float)x); break;
  case CUREDUCE_BF16: ((uint16_t *)data)[i] = cureduce_ref_float_to_bf16((float)x); break;
  case CUREDUCE_F32: ((float *)data)[i] = (float)x; break;
  default: ((double *)data)[i] = x; break;
  }
}

static void put_integer(cureduce_dtype type, void *data, size_t i, uint64_t x) {
  switch (cureduce_dtype_size(type)) {
  case 1: ((uint8_t *)data)[i] = (uint8_t)x; break;
  case 4: ((uint32_t *)data)[i] = (uint32_t)x; break;
  default: ((uint64_t *)data)[i] = x; break;
  }
}

/* Float products: factors exp(+-d), d uniform in (0, spread], with the sign of each exponent
 * chosen to pull the running logarithm of the product (of the values as stored, after rounding
 * to the type) back towards 0. Every window of the data then has a product far from underflow and
 * overflow, for any length, although rounding to a narrow type is one-sided near 1; the values
 * themselves stay random. The spread is a few of the type's steps near 1. */
static void fill_products(cureduce_dtype type, void *data, size_t count) {
  double spread = type == CUREDUCE_BF16 ? 0x1.0p-5 : type == CUREDUCE_F16 ? 0x1.0p-7 : 0x1.0p-8;
  double log_product = 0;
  for (size_t i = 0; i < count; i++) {
    double d = (1 - cureduce_ref_random_unit()) * spread;
    cureduce_ref_put_float(type, data, i, exp(log_product > 0 ? -d : d));
    log_product += log(cureduce_ref_float_at(type, data, i));
  }
}

/* The reference's own account of which operations are the moments (mean, the variances and
 * standard deviations), and which of them give the mean beside their value. */
static bool is_moments(cureduce_op op) { return op >= CUREDUCE_OP_MEAN && op <= CUREDUCE_OP_SAMPLE_STD; }
static bool gives_mean(cureduce_op op) { return op >= CUREDUCE_OP_VARIANCE && op <= CUREDUCE_OP_SAMPLE_STD; }

void cureduce_ref_fill(cureduce_op op, cureduce_dtype type, void *data, size_t count) {
  /* data whose sums round: exactness is what is checked; the statistics of rounding data */
  if (op == CUREDUCE_OP_EXACT_SUM || is_moments(op)) {
    cureduce_ref_fill_rounding(type, data, count);
    return;
  }
  if (op == CUREDUCE_OP_LOGSUMEXP) { /* full-mantissa values in [-16, 16): terms of many sizes */
    for (size_t i = 0; i < count; i++)
      cureduce_ref_put_float(type, data, i, 32 * cureduce_ref_random_unit() - 16);
    return;
  }
  if (is_float(type) && op == CUREDUCE_OP_PROD) {
    fill_products(type, data, count);
    return;
  }
  for (size_t i = 0; i < count; i++) {
    if (is_float(type)) {
      double x = op == CUREDUCE_OP_SUM ? (double)cureduce_ref_random_range(-SUM_LIMIT, SUM_LIMIT) * SUM_STEP
                                       : (double)cureduce_ref_random_range(-1000, 1000) * 0x1.0p-4;
      cureduce_ref_put_float(type, data, i, x);
    } else {
      uint64_t x = cureduce_ref_random();
      if (op == CUREDUCE_OP_PROD)
        x |= 1; /* odd factors: the wrapped product never collapses to 0 */
      put_integer(type, data, i, x);
    }
  }
}

/* The binades of cureduce_ref_fill_rounding's values, each side of 1: narrower for the 16-bit
 * types, whose sums must stay finite. */
static int rounding_binades(cureduce_dtype type) { return type == CUREDUCE_F16 || type == CUREDUCE_BF16 ? 4 : 10; }

double cureduce_ref_rounding_bound(cureduce_dtype type) {
  return ldexp(1.0, rounding_binades(type) + 2); /* below 2^(binades + 1), but for the near-negations' 1 +- 2^-21 */
}

void cureduce_ref_fill_rounding(cureduce_dtype type, void *data, size_t count) {
  int binades = rounding_binades(type);
  for (size_t i = 0; i < count; i++) {
    double x;
    if (i % 4 == 3 && i > 8) { /* nearly cancels one of the last few */
      size_t earlier = i - (size_t)cureduce_ref_random_range(1, 8);
      x = -cureduce_ref_float_at(type, data, earlier) * (1 + ldexp(cureduce_ref_random_unit() - 0.5, -20));
    } else {
      double mantissa = 1 + cureduce_ref_random_unit(); /* 53 random bits: every stored bit is used */
      x = ldexp(mantissa, (int)cureduce_ref_random_range(-binades, binades));
      x = cureduce_ref_random() & 1 ? -x : x;
    }
    cureduce_ref_put_float(type, data, i, x);
  }
}

/* ---- reference ------------------------------------------------------------------------------- */

static int precision_bits(cureduce_dtype accumulator) { return accumulator == CUREDUCE_F64 ? 53 : 24; }

/* Distance between neighbours of x in the output type: what rounding to it may add. */
static double output_ulp(cureduce_dtype type, double x) {
  int mantissa = type == CUREDUCE_F16 ? 10 : type == CUREDUCE_BF16 ? 7 : type == CUREDUCE_F32 ? 23 : 52;
  int min_exponent = type == CUREDUCE_F16 ? -14 : type == CUREDUCE_F64 ? -1022 : -126;
  int exponent = 0;
  if (x != 0 && isfinite(x))
    frexp(x, &exponent);
  exponent = exponent - 1 > min_exponent ? exponent - 1 : min_exponent;
  return ldexp(1.0, exponent - mantissa);
}

/* How far a float sum computed in any order may be from the exact one.
 * When every element is a multiple of SUM_STEP, every partial sum is exact in the accumulator
 * while its magnitude stays under 2^p * SUM_STEP. The kernels' partial sums are sums of
 * interleaved subsets of independent, zero-mean data, so their magnitude stays within 64
 * standard deviations, 64 * sqrt(count) * max|x|, with certainty for practical purposes; when
 * that bound is under the exact range the whole sum is exact and the tolerance is 0. Otherwise
 * the worst-case bound of any summation order applies: (n - 1) u sum|x|. */
static double sum_tolerance(cureduce_dtype accumulator, size_t n, bool on_grid, long double max_abs,
                            long double sum_abs) {
  int p = precision_bits(accumulator);
  if (on_grid && 64.0L * sqrtl((long double)n) * max_abs < ldexpl(SUM_STEP, p))
    return 0.0;
  return (double)((long double)(n ? n - 1 : 0) * ldexpl(1.0L, -p) * sum_abs);
}

/* Products: each of the n - 1 multiplications, in whatever order, rounds with relative error at
 * most u, so the result is within (1 + u)^(n-1) - 1 of the exact product, relatively. That bound
 * is the only one that holds for every order: on the H200 the kernels' order showed a systematic
 * bias (-3.4e-3 relative at n = 2^20 for f32, reproduced on the host in the same order), so a
 * statistical sqrt(n) bound would be wrong. It is loose at large n; the exact float sums and
 * integer products are what prove that no element is dropped or counted twice. Underflow adds
 * at most the accumulator's smallest normal. */
static double product_tolerance(cureduce_dtype accumulator, size_t n, long double product) {
  long double u = ldexpl(1.0L, -precision_bits(accumulator));
  long double relative = expm1l((long double)(n ? n - 1 : 0) * log1pl(u));
  return (double)(fabsl(product) * relative) + (accumulator == CUREDUCE_F64 ? DBL_MIN : FLT_MIN);
}

/* Whether x is a multiple of SUM_STEP: x / SUM_STEP is exact (a power of two), and an integer
 * when it survives a round trip through int64 (anything on the grid is far below 2^62). */
static bool is_on_grid(long double x) {
  long double steps = x / SUM_STEP;
  return fabsl(steps) < 0x1p62L && (long double)(long long)steps == steps;
}

static cureduce_ref_result float_reference(cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                                        const void *data, size_t n) {
  cureduce_dtype accumulator;
  cureduce_accumulator_type(op, input, &accumulator);
  long double total = op == CUREDUCE_OP_PROD ? 1.0L : 0.0L, max_abs = 0, sum_abs = 0;
  bool on_grid = true;
  for (size_t i = 0; i < n; i++) {
    long double x = cureduce_ref_float_at(input, data, i);
    if (op == CUREDUCE_OP_PROD) {
      total *= x;
    } else {
      total += x;
      sum_abs += fabsl(x);
      max_abs = fabsl(x) > max_abs ? fabsl(x) : max_abs;
      on_grid = on_grid && is_on_grid(x);
    }
  }
  cureduce_ref_result expected = {.value = {.index = -1}};
  cureduce_ref_store_float(output, total, &expected.value);
  expected.tolerance = op == CUREDUCE_OP_PROD ? product_tolerance(accumulator, n, total)
                                              : sum_tolerance(accumulator, n, on_grid, max_abs, sum_abs);
  return expected;
}

/* Any evaluation tree of additions: each element reaches the result as x_i (1 + t_i) with
 * |t_i| <= gamma(d_i), d_i the number of additions on its way (Higham, Accuracy and Stability of
 * Numerical Algorithms, 2nd ed., section 4.2, whose argument for recursive summation holds for
 * any tree), so |computed - exact| <= gamma(depth) sum|x_i|. A bound for every input; what it
 * cannot see (one small element dropped) the exact-sum data of cureduce_ref_fill catches. */
cureduce_ref_result cureduce_ref_expected_sum(cureduce_dtype input, cureduce_dtype output, const void *data, size_t n,
                                              unsigned depth) {
  cureduce_dtype accumulator;
  cureduce_accumulator_type(CUREDUCE_OP_SUM, input, &accumulator);
  long double total = 0, sum_abs = 0;
  for (size_t i = 0; i < n; i++) {
    long double x = cureduce_ref_float_at(input, data, i);
    total += x;
    sum_abs += fabsl(x);
  }
  long double du = (long double)depth * ldexpl(1.0L, -precision_bits(accumulator));
  cureduce_ref_result expected = {.value = {.index = -1}};
  cureduce_ref_store_float(output, total, &expected.value);
  expected.tolerance = du < 1 ? (double)(du / (1 - du) * sum_abs) : INFINITY;
  return expected;
}

static cureduce_ref_result integer_reference(cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                                          const void *data, size_t n) {
  uint64_t total = op == CUREDUCE_OP_PROD ? 1 : 0;
  for (size_t i = 0; i < n; i++)
    total = op == CUREDUCE_OP_PROD ? total * integer_at(input, data, i) : total + integer_at(input, data, i);
  cureduce_ref_result expected = {.value = {.index = -1}};
  store_integer(output, total, &expected.value);
  return expected;
}

/* The total order the library documents: NaN beyond everything, -0 below +0. true when x is
 * strictly better than y for min (or max). */
static bool better(long double x, long double y, bool is_max) {
  if (isnan(x) || isnan(y))
    return isnan(x) && !isnan(y);
  if (x != y)
    return is_max ? x > y : x < y;
  return signbit(x) != signbit(y) && (signbit(x) ? !is_max : is_max);
}

static cureduce_ref_result extreme_reference(cureduce_op op, cureduce_dtype input, const void *data, size_t n) {
  bool is_max = op == CUREDUCE_OP_MAX || op == CUREDUCE_OP_ARGMAX;
  bool is_arg = op == CUREDUCE_OP_ARGMIN || op == CUREDUCE_OP_ARGMAX;
  size_t best = 0;
  for (size_t i = 1; i < n; i++) {
    bool replace;
    if (is_float(input)) {
      replace = better(cureduce_ref_float_at(input, data, i), cureduce_ref_float_at(input, data, best), is_max);
    } else if (is_signed(input)) {
      int64_t x = (int64_t)integer_at(input, data, i), y = (int64_t)integer_at(input, data, best);
      replace = is_max ? x > y : x < y;
    } else {
      uint64_t x = integer_at(input, data, i), y = integer_at(input, data, best);
      replace = is_max ? x > y : x < y;
    }
    if (replace)
      best = i;
  }
  cureduce_ref_result expected = {.value = {.index = is_arg ? (int64_t)best : -1}};
  memcpy(&expected.value.value, (const char *)data + best * cureduce_dtype_size(input), cureduce_dtype_size(input));
  return expected;
}

/* sqrt of the sum of squares in long double (whose range holds any f64's square); the library adds
 * its squares in f64 in some tree (at most n levels deep) and Blue's finish rounds a few times
 * more: relative error at most (n + 8) 2^-53. */
static cureduce_ref_result norm2_reference(cureduce_dtype input, cureduce_dtype output, const void *data, size_t n) {
  long double squares = 0;
  for (size_t i = 0; i < n; i++) {
    long double x = cureduce_ref_float_at(input, data, i);
    squares += x * x;
  }
  long double norm = sqrtl(squares);
  cureduce_ref_result expected = {.value = {.index = -1}};
  cureduce_ref_store_float(output, norm, &expected.value);
  expected.tolerance = (double)(norm * ldexpl((long double)n + 8, -53));
  return expected;
}

/* Merges of partial results a value meets on its way to the result, at most: warp, block, the
 * unrolled accumulators and the grid's partials, with room to spare. */
#define MERGE_DEPTH 64

/* The mean, and the squared deviations from it, in long double, in two passes: the textbook's
 * stable way, with 64-bit significands against the library's f64; NaN for both when an element is
 * not finite, as the library documents.
 * The library's bound. It sums x - c and (x - c)^2 from a shift c, the first element of the
 * sequence, so with D = max|x - mean| every |x - c| <= 2D, and M2 <= n D^2. A thread folds at
 * most `depth` elements, each in at most three roundings; a merge adds two accumulators' sums, of
 * one shift, in one rounding each of quantities below 2 D n and 4 D^2 n (the bound allows four
 * roundings of 4 D n_b and 16 D^2 n_b a merge, which also covers merges that move a sum to another
 * element's shift), and a value meets at most MERGE_DEPTH merges. So the sums err by
 *   |S1 error| <= (4 depth + 16 MERGE_DEPTH) eps D n,   |S2 error| <= (12 depth + 64 MERGE_DEPTH) eps D^2 n,
 * the mean, c + S1 / n, by |S1 error| / n and the roundings of the division and the addition,
 *   |mean error| <= ((4 depth + 16 MERGE_DEPTH + 2) D + max|x|) eps,
 * and M2 = S2 - S1 (S1 / n), with |S1| <= 2 D n, by
 *   |M2 error| <= |S2 error| + 4 D |S1 error| + 3 eps 4 D^2 n <= (28 depth + 128 MERGE_DEPTH + 12) eps n D^2,
 * whatever the mean's distance from 0; the square root halves a relative error. The output
 * type's rounding comes on top (cureduce_ref_matches). */
static cureduce_ref_result moments_reference(cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                                             const void *data, size_t n, size_t depth) {
  long double total = 0, max_abs = 0, squares = 0, max_deviation = 0;
  for (size_t i = 0; i < n; i++) {
    long double x = cureduce_ref_float_at(input, data, i);
    total += x;
    max_abs = fmaxl(max_abs, fabsl(x));
  }
  long double mean = isfinite(max_abs) ? total / (long double)n : NAN;
  for (size_t i = 0; i < n; i++) {
    long double deviation = cureduce_ref_float_at(input, data, i) - mean;
    squares += deviation * deviation;
    max_deviation = fmaxl(max_deviation, fabsl(deviation));
  }
  long double eps = ldexpl(1.0L, -53), count = (long double)n, within = (long double)depth;
  long double mean_error = ((4 * within + 16 * MERGE_DEPTH + 2) * max_deviation + max_abs) * eps;
  long double squares_error = (28 * within + 128 * MERGE_DEPTH + 12) * eps * count * max_deviation * max_deviation;
  bool sample = op == CUREDUCE_OP_SAMPLE_VARIANCE || op == CUREDUCE_OP_SAMPLE_STD;
  long double divisor = count - (sample ? 1 : 0), variance = squares / divisor;
  long double variance_error = squares_error / divisor;
  cureduce_ref_result expected = {.value = {.index = -1}};
  if (op == CUREDUCE_OP_MEAN) {
    cureduce_ref_store_float(output, mean, &expected.value);
    expected.tolerance = (double)mean_error;
    return expected;
  }
  bool is_std = op == CUREDUCE_OP_STD || op == CUREDUCE_OP_SAMPLE_STD;
  long double value = is_std ? sqrtl(variance) : variance;
  cureduce_ref_store_float(output, value, &expected.value);
  cureduce_value mean_value;
  cureduce_ref_store_float(output, mean, &mean_value);
  expected.value.mean = mean_value.value;
  /* sqrt(v + e) - sqrt(v) <= e / (2 sqrt(v)), and <= sqrt(e) */
  expected.tolerance = (double)(is_std ? fminl(variance_error / (2 * value), sqrtl(variance_error)) : variance_error);
  expected.mean_tolerance = (double)mean_error;
  return expected;
}

/* The largest element m, then m + log(sum of exp(x - m)) in long double. The library's sum of the
 * scaled terms (each at most 1, the largest's exactly 1, so the sum s >= 1) errs by at most
 * (depth + MERGE_DEPTH) u of s in its additions, depth a thread's elements at most; each exp, f32's hardware exp2 within
 * (2 + 1.16 |argument|) ulp, f64's within 1 ulp, rescales a term (a partial sum at a merge)
 * relatively, by at most MERGE_DEPTH such factors for arguments within the data's range R = m -
 * min x (capped where the terms vanish: 104 for f32, 746 for f64). So s is off by at most a
 * relative r = (depth + MERGE_DEPTH (3 + 1.16 R)) u, and the result by log(1 + r) <= 1.01 r. */
static cureduce_ref_result logsumexp_reference(cureduce_dtype input, cureduce_dtype output, const void *data,
                                               size_t n, size_t depth) {
  long double largest = -INFINITY, smallest = INFINITY, sum = 0;
  bool nan = false;
  for (size_t i = 0; i < n; i++) {
    long double x = cureduce_ref_float_at(input, data, i);
    nan = nan || isnan(x);
    largest = fmaxl(largest, x);
    smallest = fminl(smallest, x);
  }
  for (size_t i = 0; i < n && isfinite(largest); i++)
    sum += expl(cureduce_ref_float_at(input, data, i) - largest);
  long double result = nan ? NAN : isfinite(largest) ? largest + logl(sum) : largest;
  cureduce_dtype accumulator;
  cureduce_accumulator_type(CUREDUCE_OP_LOGSUMEXP, input, &accumulator);
  bool wide = accumulator == CUREDUCE_F64;
  long double range = isfinite(largest - smallest) ? fminl(largest - smallest, wide ? 746 : 104) : 0;
  long double u = ldexpl(1.0L, -precision_bits(accumulator));
  cureduce_ref_result expected = {.value = {.index = -1}};
  cureduce_ref_store_float(output, result, &expected.value);
  expected.tolerance = (double)(((long double)depth + MERGE_DEPTH * (wide ? 2 : 3 + 1.16L * range)) * u * 1.01L);
  return expected;
}

cureduce_ref_result cureduce_ref_expected(cureduce_op op, cureduce_dtype input, cureduce_dtype output, const void *data,
                                   size_t n) {
  return cureduce_ref_expected_within(op, input, output, data, n, n);
}

cureduce_ref_result cureduce_ref_expected_mapped(cureduce_op op, cureduce_transform transform, cureduce_dtype input,
                                                 cureduce_dtype output, const void *x, const void *y, size_t n) {
  if (transform == CUREDUCE_TRANSFORM_NONE)
    return cureduce_ref_expected(op, input, output, x, n);
  cureduce_dtype mapped = cureduce_ref_mapped_type(transform, input);
  void *values = malloc(n * cureduce_dtype_size(mapped) + 1);
  if (!values) { /* a reference without memory has no answer to give */
    fprintf(stderr, "reference: no memory to map %zu elements\n", n);
    abort();
  }
  if (transform == CUREDUCE_TRANSFORM_PRODUCT)
    cureduce_ref_map_product(input, x, y, n, values);
  else
    cureduce_ref_map(transform, input, x, n, values);
  cureduce_ref_result expected = cureduce_ref_expected(op, mapped, output, values, n);
  free(values);
  return expected;
}

cureduce_ref_result cureduce_ref_expected_within(cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                                                 const void *data, size_t n, size_t depth) {
  if (is_moments(op))
    return moments_reference(op, input, output, data, n, depth);
  if (op == CUREDUCE_OP_LOGSUMEXP)
    return logsumexp_reference(input, output, data, n, depth);
  if (op == CUREDUCE_OP_EXACT_SUM)
    return cureduce_ref_exact_sum(input, output, data, n);
  if (op == CUREDUCE_OP_NORM2)
    return norm2_reference(input, output, data, n);
  if (op == CUREDUCE_OP_SUM || op == CUREDUCE_OP_PROD)
    return is_float(input) ? float_reference(op, input, output, data, n)
                           : integer_reference(op, input, output, data, n);
  return extreme_reference(op, input, data, n);
}

/* One scalar of the output type against its expectation: the same bits, both NaN (payloads may
 * differ), or within the tolerance and the output's rounding. */
static bool scalar_matches(cureduce_dtype output, const cureduce_scalar *got, const cureduce_scalar *want,
                           double tolerance) {
  cureduce_value got_value = {.value = *got}, want_value = {.value = *want};
  double g = cureduce_ref_value_as_double(output, &got_value), w = cureduce_ref_value_as_double(output, &want_value);
  if (memcmp(got, want, cureduce_dtype_size(output)) == 0)
    return true;
  if (!is_float(output) || tolerance == 0 || isnan(w) || isinf(w))
    return isnan(w) && isnan(g);
  return fabs(g - w) <= tolerance + output_ulp(output, w);
}

bool cureduce_ref_matches(cureduce_op op, cureduce_dtype output, const cureduce_value *got,
                     const cureduce_ref_result *expected, char *why, size_t why_size) {
  bool is_arg = op == CUREDUCE_OP_ARGMIN || op == CUREDUCE_OP_ARGMAX;
  bool has_mean = gives_mean(op);
  bool ok = scalar_matches(output, &got->value, &expected->value.value, expected->tolerance) &&
            (!is_arg || got->index == expected->value.index) && (!has_mean || got->index == -1) &&
            (!has_mean || scalar_matches(output, &got->mean, &expected->value.mean, expected->mean_tolerance));
  if (!ok) {
    cureduce_value got_mean = {.value = got->mean}, want_mean = {.value = expected->value.mean};
    snprintf(why, why_size, "got %.17g (index %lld, mean %.17g), want %.17g (index %lld, mean %.17g), tolerance %g",
             cureduce_ref_value_as_double(output, got), (long long)got->index,
             cureduce_ref_value_as_double(output, &got_mean), cureduce_ref_value_as_double(output, &expected->value),
             (long long)expected->value.index, cureduce_ref_value_as_double(output, &want_mean),
             expected->tolerance);
  }
  return ok;
}

/* ---- transforms ---------------------------------------------------------------------------- */

/* The reference's own account of each map (cureduce_transform), not the library's. */
cureduce_dtype cureduce_ref_mapped_type(cureduce_transform transform, cureduce_dtype input) {
  switch (transform) {
  case CUREDUCE_TRANSFORM_SQUARE:
  case CUREDUCE_TRANSFORM_EXPRESSION:
  case CUREDUCE_TRANSFORM_PRODUCT: /* computed in the float accumulator type, as a square is */
  case CUREDUCE_TRANSFORM_PAIR_EXPRESSION: return input == CUREDUCE_F64 ? CUREDUCE_F64 : CUREDUCE_F32;
  case CUREDUCE_TRANSFORM_NONZERO: return CUREDUCE_U8;
  default: return input;
  }
}

void cureduce_ref_map(cureduce_transform transform, cureduce_dtype input, const void *data, size_t n, void *mapped) {
  size_t size = cureduce_dtype_size(input);
  for (size_t i = 0; i < n; i++) {
    double x = cureduce_ref_float_at(input, data, i);
    switch (transform) {
    case CUREDUCE_TRANSFORM_ABS: /* the sign bit, the top bit of the element's last byte, cleared */
      memcpy((char *)mapped + i * size, (const char *)data + i * size, size);
      ((unsigned char *)mapped)[i * size + size - 1] &= 0x7f;
      break;
    case CUREDUCE_TRANSFORM_SQUARE:
      if (input == CUREDUCE_F64)
        ((double *)mapped)[i] = x * x;
      else
        ((float *)mapped)[i] = (float)x * (float)x; /* one rounding to f32, as the device's f32 multiply */
      break;
    case CUREDUCE_TRANSFORM_NONZERO: ((uint8_t *)mapped)[i] = x != 0; break; /* a NaN is not zero */
    default: memcpy((char *)mapped + i * size, (const char *)data + i * size, size); break;
    }
  }
}

void cureduce_ref_map_product(cureduce_dtype input, const void *x, const void *y, size_t n, void *mapped) {
  for (size_t i = 0; i < n; i++) {
    double a = cureduce_ref_float_at(input, x, i), b = cureduce_ref_float_at(input, y, i);
    if (input == CUREDUCE_F64)
      ((double *)mapped)[i] = a * b;
    else
      ((float *)mapped)[i] = (float)a * (float)b; /* one rounding to f32, as the device's f32 multiply */
  }
}

static void convert_scalar(cureduce_dtype from, cureduce_dtype to, cureduce_scalar *scalar) {
  long double x = is_float(from) ? (long double)cureduce_ref_float_at(from, scalar, 0)
                  : is_signed(from) ? (long double)(int64_t)integer_at(from, scalar, 0)
                                    : (long double)integer_at(from, scalar, 0);
  cureduce_value converted = {.index = -1};
  if (is_float(to))
    cureduce_ref_store_float(to, x, &converted);
  else
    store_integer(to, (uint64_t)x, &converted);
  *scalar = converted.value;
}

void cureduce_ref_convert(cureduce_dtype from, cureduce_dtype to, cureduce_value *value) {
  if (from == to)
    return;
  convert_scalar(from, to, &value->value);
  convert_scalar(from, to, &value->mean);
}

/* ---- the elements of a result -------------------------------------------------------------------- */

/* One element of `size` bytes: a constant size, so that the copy is a move, not a call. */
static void copy_element(unsigned char *to, const unsigned char *from, size_t size) {
  switch (size) {
  case 1: *to = *from; break;
  case 2: memcpy(to, from, 2); break;
  case 4: memcpy(to, from, 4); break;
  default: memcpy(to, from, 8); break;
  }
}

/* A band of rows at a time, each of its columns copied whole: the band's lines stay in the cache
 * while its columns are read from them, and each column's stretch is written in order. */
void cureduce_ref_gather_columns(const cureduce_problem *p, const void *data, uint64_t first, uint64_t count,
                                 void *into) {
  enum { band_rows = 64 };
  size_t element = cureduce_dtype_size(p->input_type), pitch = p->leading_dimension * element;
  for (uint64_t band = 0; band < p->rows; band += band_rows) {
    uint64_t band_end = p->rows - band < band_rows ? p->rows : band + band_rows;
    for (uint64_t c = 0; c < count; c++) {
      const unsigned char *from = (const unsigned char *)data + band * pitch + (first + c) * element;
      unsigned char *to = (unsigned char *)into + (c * p->rows + band) * element;
      for (uint64_t r = band; r < band_end; r++, from += pitch, to += element)
        copy_element(to, from, element);
    }
  }
}

size_t cureduce_ref_gather(const cureduce_problem *p, const void *data, const int64_t *begin, const int64_t *end,
                           uint64_t i, void *into) {
  size_t element = cureduce_dtype_size(p->input_type);
  uint64_t first = 0, length = p->n;
  switch (p->layout) {
  case CUREDUCE_LAYOUT_COLUMNS: cureduce_ref_gather_columns(p, data, i, 1, into); return (size_t)p->rows;
  case CUREDUCE_LAYOUT_ROWS: first = i * p->leading_dimension, length = p->cols; break;
  case CUREDUCE_LAYOUT_SEGMENTS: /* an empty one's begin may lie anywhere */
    if (end[i] <= begin[i])
      return 0;
    first = (uint64_t)begin[i], length = (uint64_t)(end[i] - begin[i]);
    break;
  default: break;
  }
  memcpy(into, (const unsigned char *)data + first * element, length * element);
  return (size_t)length;
}
