/* The host reference of every reduction, shared by the tests and the tools. */
#ifndef CUREDUCE_REFERENCE_H
#define CUREDUCE_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cureduce/cureduce.h"

/* Seeds the generator from CUREDUCE_TEST_SEED when set and not empty (a number as strtoull reads
 * it in base 0; anything else ends the process with status 2), else from the clock; returns the
 * seed, which callers print so that a failure can be replayed. */
uint64_t cureduce_ref_seed(void);
uint64_t cureduce_ref_random(void);
/* Uniform in [low, high]. */
int64_t cureduce_ref_random_range(int64_t low, int64_t high);
/* Stores x, rounded to the float type (f16, bf16, f32 or f64), as element i of data. */
void cureduce_ref_put_float(cureduce_dtype type, void *data, size_t i, double x);
double cureduce_ref_random_unit(void); /* [0, 1) */


/* Element i of float data (f16, bf16, f32, f64), exactly, as a double. */
double cureduce_ref_float_at(cureduce_dtype type, const void *data, size_t i);
/* x rounded once to the float type (f16, bf16, f32 or f64), as a result's value. */
void cureduce_ref_store_float(cureduce_dtype type, long double x, cureduce_value *value);

float cureduce_ref_f16_to_float(uint16_t bits);
uint16_t cureduce_ref_float_to_f16(float value); /* round to nearest even */
float cureduce_ref_bf16_to_float(uint16_t bits);
uint16_t cureduce_ref_float_to_bf16(float value); /* round to nearest even */

/* Fills count elements with fresh random data suited to the operation (never zeros or a
 * constant): for exact sums and the moments (mean, variances, standard deviations),
 * cureduce_ref_fill_rounding's; for logsumexp, full-mantissa values in [-16, 16); for float sums, multiples of 2^-5 in [-1, 1], whose partial sums are exact in the
 * accumulator for every size tested (see reference.c); for float products, log-symmetric
 * factors near 1; for integer products, odd values, so that wrap-around never collapses to 0;
 * for min/max/arg, values from a small grid so that ties occur. */
void cureduce_ref_fill(cureduce_op op, cureduce_dtype type, void *data, size_t count);

/* Fills count float elements (f16, bf16, f32, f64) whose sums round, unlike cureduce_ref_fill's:
 * full-mantissa values of random sign over a range of binades (2^-10 to 2^10; 2^-4 to 2^4 for the
 * 16-bit types, whose sums must stay finite), every fourth one the near-negation of an earlier
 * one, so that sums cancel. */
void cureduce_ref_fill_rounding(cureduce_dtype type, void *data, size_t count);

/* A magnitude no value of cureduce_ref_fill_rounding reaches, with room: twice its largest. */
double cureduce_ref_rounding_bound(cureduce_dtype type);

/* The exact or higher-precision result of reducing data[0..n) as the library documents, in
 * the output type, and how far a correct result may be from it (0: bitwise). */
typedef struct cureduce_ref_result {
  cureduce_value value;
  double tolerance;      /* absolute, in the output type's units; 0 means bitwise equal */
  double mean_tolerance; /* the variances and standard deviations: the same for value.mean */
} cureduce_ref_result;

cureduce_ref_result cureduce_ref_expected(cureduce_op op, cureduce_dtype input, cureduce_dtype output, const void *data,
                                   size_t n);

/* The same for data mapped first by a built-in transform (none, abs, square, nonzero, product: x
 * with y, n elements each; y is ignored by the others): input is the unmapped type, output the
 * output of the mapped values' operation. */
cureduce_ref_result cureduce_ref_expected_mapped(cureduce_op op, cureduce_transform transform, cureduce_dtype input,
                                                 cureduce_dtype output, const void *x, const void *y, size_t n);

/* The same for the moments and logsumexp computed by threads of at most `depth` elements each: a
 * tighter bound than n's (the other operations ignore depth). */
cureduce_ref_result cureduce_ref_expected_within(cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                                                 const void *data, size_t n, size_t depth);

/* A float sum computed by any evaluation tree in which no element meets more than `depth`
 * additions: the exact sum, with the tolerance gamma(depth) * sum|x|, gamma(d) = d u / (1 - d u),
 * u the accumulator's unit roundoff (see reference.c). */
cureduce_ref_result cureduce_ref_expected_sum(cureduce_dtype input, cureduce_dtype output, const void *data, size_t n,
                                              unsigned depth);

/* The exact sum of data[0..n) rounded once to the output type, as CUREDUCE_OP_EXACT_SUM promises:
 * tolerance 0, every bit (reference_exact.c). */
cureduce_ref_result cureduce_ref_exact_sum(cureduce_dtype input, cureduce_dtype output, const void *data, size_t n);

/* true when `got` matches `expected` for (op, output); otherwise writes why into `why`. */
bool cureduce_ref_matches(cureduce_op op, cureduce_dtype output, const cureduce_value *got,
                     const cureduce_ref_result *expected, char *why, size_t why_size);

/* Transforms (cureduce_transform): the type a map gives, and data[0..n) mapped into `mapped` (n
 * elements of that type), the sign cleared, squared with one rounding, or 1 for nonzero, as the
 * header documents each (an expression's map is the caller's to reproduce). */
cureduce_dtype cureduce_ref_mapped_type(cureduce_transform transform, cureduce_dtype input);
void cureduce_ref_map(cureduce_transform transform, cureduce_dtype input, const void *data, size_t n, void *mapped);
/* The product map (CUREDUCE_TRANSFORM_PRODUCT) of x and y: x_i * y_i rounded once to f32 (f64 for
 * f64), into `mapped`. */
void cureduce_ref_map_product(cureduce_dtype input, const void *x, const void *y, size_t n, void *mapped);
/* A result's value (and mean) of type `from` stored as type `to`, as a kernel's store converts it: a
 * float rounded once to nearest, an integer's value; the index stays. */
void cureduce_ref_convert(cureduce_dtype from, cureduce_dtype to, cureduce_value *value);

/* The elements of result i of a problem (its row, column or segment; a contiguous problem's one
 * result is the whole array), from host data whose element 0 is the problem's first, into `into`;
 * returns how many. begin and end are a segments problem's bounds (NULL otherwise). */
size_t cureduce_ref_gather(const cureduce_problem *p, const void *data, const int64_t *begin, const int64_t *end,
                           uint64_t i, void *into);
/* Columns [first, first + count) of a columns problem into `into`, each whole (p->rows elements)
 * after the one before: read row by row, in the data's order, where a column at a time would miss
 * the cache at every element of a wide matrix. */
void cureduce_ref_gather_columns(const cureduce_problem *p, const void *data, uint64_t first, uint64_t count,
                                 void *into);

/* A shaped problem's results as a device wrote them, and the host data they came from. */
typedef struct cureduce_ref_results {
  const cureduce_problem *problem;
  const void *x, *y;          /* the inputs' host copies (y: a map of two inputs, else NULL) */
  const int64_t *begin, *end; /* a segments problem's bounds, else NULL */
  const unsigned char *got;   /* the results, cureduce_result_bytes() each */
  size_t gather_bytes;        /* host memory for gathered columns, in all (0: 256 MiB) */
} cureduce_ref_results;
typedef struct cureduce_ref_check {
  bool ok;
  uint64_t wrong; /* not ok: the first wrong result */
  char why[256];
} cureduce_ref_check;
/* Every non-empty result against cureduce_ref_expected_mapped (an empty one is the caller's to
 * check), in `threads` threads of adjacent results each, a result's elements gathered as
 * cureduce_ref_gather does (columns many a pass): u8 rows of 2 at a total of 2^28 are 2^27
 * references, 3.1 s on one core of a 2-core CI host (1.6 s on two). Aborts, as the reference
 * does, without host memory. */
cureduce_ref_check cureduce_ref_check_results(const cureduce_ref_results *r, unsigned threads);

/* The result as a double (or the index for arg ops, separately), for messages. */
double cureduce_ref_value_as_double(cureduce_dtype type, const cureduce_value *value);

#endif
