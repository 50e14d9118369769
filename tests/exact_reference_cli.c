/* Feeds the cases tests/exact_reference.py writes to three exact sums, and prints their results,
 * so that each is checked against exact rational arithmetic:
 *   the host's reference, cureduce_ref_exact_sum (tools/reference_exact.c);
 *   the rounding of exact partials (kernel_templates/exact_round.h, through
 *   cureduce_exact_round_words), given the accumulator words that this file fills bit by bit, as
 *   simply as it can be done;
 *   the kernels' rounding of the same words, cureduce_exact_round_nonzero, over the window of
 *   nonzero digits that this file finds.
 * Input, one case a line: "<input type> <output type> <count> <element bits in hex>...".
 * Output, one line a case: the three results' bits in hex. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "exact.h"
#include "exact_round.h"
#include "reference.h"

/* The accumulator of the inputs, each significand bit added to its digit (few elements only:
 * a digit takes at most 32 additions below 2^32 an element). */
static void fill_words(cureduce_dtype type, const unsigned char *data, size_t count, long long *words) {
  cureduce_exact_layout layout = cureduce_exact_layout_of(type);
  memset(words, 0, cureduce_exact_words(type) * sizeof *words);
  for (size_t i = 0; i < count; i++) {
    double x = cureduce_ref_float_at(type, data, i);
    if (isnan(x) || isinf(x)) {
      words[layout.digits + (isnan(x) ? 0 : x > 0 ? 1 : 2)]++;
      continue;
    }
    int exponent;
    double fraction = frexp(fabs(x), &exponent); /* |x| = fraction * 2^exponent */
    unsigned long long significand = (unsigned long long)ldexp(fraction, 53);
    for (int bit = 0; bit < 53; bit++)
      if (significand >> bit & 1) {
        int position = exponent - 53 + bit - layout.base; /* >= 0: every input is a multiple of 2^base */
        long long unit = (long long)(1ull << (position % 32));
        words[position / 32] += x < 0 ? -unit : unit;
      }
  }
}

/* As the kernels round: the window of nonzero digits, found here one by one. */
static double round_nonzero_window(long long *words, cureduce_dtype input, cureduce_dtype output) {
  cureduce_exact_layout layout = cureduce_exact_layout_of(input);
  cureduce_exact_format format = cureduce_exact_format_of(output);
  int lowest_nonzero = (int)layout.digits, highest_nonzero = -1;
  for (int d = 0; d < (int)layout.digits; d++)
    if (words[d]) {
      lowest_nonzero = d < lowest_nonzero ? d : lowest_nonzero;
      highest_nonzero = d;
    }
  return cureduce_exact_round_nonzero(words, (int)layout.digits, words + layout.digits, lowest_nonzero,
                                      highest_nonzero, layout.base, format.precision, format.lowest);
}

static unsigned long long bits_of(const cureduce_value *value, cureduce_dtype type) {
  unsigned long long bits = 0;
  memcpy(&bits, &value->value, cureduce_dtype_size(type));
  return bits;
}

/* A rounded value (representable, infinite or NaN: the conversion to the output type is exact). */
static unsigned long long rounded_bits(double rounded, cureduce_dtype type) {
  cureduce_value value;
  cureduce_ref_store_float(type, rounded, &value);
  return bits_of(&value, type);
}

int main(void) {
  char input_name[16], output_name[16];
  size_t count;
  while (scanf("%15s %15s %zu", input_name, output_name, &count) == 3) {
    int input = cureduce_dtype_from_name(input_name), output = cureduce_dtype_from_name(output_name);
    if (input < 0 || output < 0) {
      fprintf(stderr, "unknown type %s or %s\n", input_name, output_name);
      return 2;
    }
    size_t size = cureduce_dtype_size((cureduce_dtype)input);
    unsigned char *data = malloc(count * size + 1);
    for (size_t i = 0; i < count; i++) {
      unsigned long long bits;
      if (scanf("%llx", &bits) != 1) {
        fprintf(stderr, "case ends early at element %zu\n", i);
        return 2;
      }
      memcpy(data + i * size, &bits, size); /* little-endian: the low bytes */
    }
    cureduce_ref_result r = cureduce_ref_exact_sum((cureduce_dtype)input, (cureduce_dtype)output, data, count);
    long long words[CUREDUCE_EXACT_MAX_WORDS], window_words[CUREDUCE_EXACT_MAX_WORDS];
    fill_words((cureduce_dtype)input, data, count, words);
    memcpy(window_words, words, sizeof words);
    const double partials = cureduce_exact_round_words(words, (cureduce_dtype)input, (cureduce_dtype)output);
    const double kernels = round_nonzero_window(window_words, (cureduce_dtype)input, (cureduce_dtype)output);
    printf("%llx %llx %llx\n", bits_of(&r.value, (cureduce_dtype)output), rounded_bits(partials, (cureduce_dtype)output),
           rounded_bits(kernels, (cureduce_dtype)output));
    free(data);
  }
  return 0;
}
