#include <math.h>

#include "exact.h"
#include "exact_round.h"

/* Digits needed: from the smallest subnormal (base) to the sum of 2^64 of the largest finite
 * inputs, plus a sign bit: f16 24 + 16 + 64 + 1 = 105 bits, bf16 133 + 128 + 64 + 1 = 326,
 * f32 149 + 128 + 64 + 1 = 342, f64 1074 + 1024 + 64 + 1 = 2163. Rounded up to whole warps of
 * 32 digits: 1024 bits, and 3072 for f64. */
cureduce_exact_layout cureduce_exact_layout_of(cureduce_dtype input) {
  switch (input) {
  case CUREDUCE_F16: return (cureduce_exact_layout){-24, 32};
  case CUREDUCE_BF16: return (cureduce_exact_layout){-133, 32};
  case CUREDUCE_F32: return (cureduce_exact_layout){-149, 32};
  case CUREDUCE_F64: return (cureduce_exact_layout){-1074, 96};
  default: return (cureduce_exact_layout){0, 0};
  }
}

size_t cureduce_exact_words(cureduce_dtype input) { return cureduce_exact_layout_of(input).digits + 3u; }

cureduce_exact_format cureduce_exact_format_of(cureduce_dtype output) {
  switch (output) {
  case CUREDUCE_F16: return (cureduce_exact_format){11, -24};
  case CUREDUCE_BF16: return (cureduce_exact_format){8, -133};
  case CUREDUCE_F32: return (cureduce_exact_format){24, -149};
  default: return (cureduce_exact_format){53, -1074};
  }
}

double cureduce_exact_round_words(long long *words, cureduce_dtype input, cureduce_dtype output) {
  cureduce_exact_layout layout = cureduce_exact_layout_of(input);
  cureduce_exact_format format = cureduce_exact_format_of(output);
  return cureduce_exact_round(words, (int)layout.digits, layout.base, format.precision, format.lowest);
}
