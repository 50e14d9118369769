#include <math.h>

#include "dtype.h"
#include "error.h"
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
  return cureduce_exact_round(words, (int)layout.digits, words + layout.digits, layout.base, format.precision,
                              format.lowest);
}

size_t cureduce_exact_partial_words(cureduce_dtype input_type) {
  return cureduce_dtype_is_valid(input_type) && cureduce_dtype_is_float(input_type) ? cureduce_exact_words(input_type)
                                                                                      : 0;
}

/* The bits of v in a binary format of `exponent_bits` and `fraction_bits`, v being one of the
 * format's values (the rounding made it one): zeros, infinities, a quiet NaN, normals, subnormals. */
static uint16_t encode_half(double v, int exponent_bits, int fraction_bits) {
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const unsigned sign = signbit(v) ? 1u << (exponent_bits + fraction_bits) : 0u;
  const unsigned all_ones = ((1u << exponent_bits) - 1u) << fraction_bits;
  if (isnan(v))
    return (uint16_t)(all_ones | 1u << (fraction_bits - 1));
  if (isinf(v))
    return (uint16_t)(sign | all_ones);
  int e;
  const double fraction = frexp(fabs(v), &e); /* |v| = fraction 2^e, fraction in [1/2, 1) or 0 */
  const int biased = e - 1 + bias;
  if (v == 0 || biased < 1) /* zero or subnormal: a whole number of the smallest subnormal */
    return (uint16_t)(sign | (unsigned)ldexp(fabs(v), bias - 1 + fraction_bits));
  return (uint16_t)(sign | (unsigned)biased << fraction_bits |
                    ((unsigned)ldexp(fraction, fraction_bits + 1) - (1u << fraction_bits)));
}

cureduce_status cureduce_exact_partial_round(const int64_t *words, cureduce_dtype input_type,
                                             cureduce_dtype output_type, cureduce_value *result) {
  cureduce_error_clear();
  CUREDUCE_RETURN_ERROR_IF(!words || !result, NULL_POINTER, "words and result must not be NULL");
  CUREDUCE_FORWARD_IF_ERROR(cureduce_check_types(CUREDUCE_OP_EXACT_SUM, input_type, output_type));
  CUREDUCE_RETURN_ERROR_IF(cureduce_is_exact_partial(CUREDUCE_OP_EXACT_SUM, output_type), UNSUPPORTED,
                           "a partial rounds to a float type; i64 is the partial itself");
  const size_t count = cureduce_exact_words(input_type);
  for (size_t i = count - 3; i < count; i++)
    CUREDUCE_RETURN_ERROR_IF(words[i] < 0, INVALID_ARGUMENT,
                             "word %zu counts special values and is %lld: not a sum of exact partials", i,
                             (long long)words[i]);
  long long copy[CUREDUCE_EXACT_MAX_WORDS];
  for (size_t i = 0; i < count; i++)
    copy[i] = words[i];
  const double value = cureduce_exact_round_words(copy, input_type, output_type);
  *result = (cureduce_value){.index = -1};
  switch (output_type) {
  case CUREDUCE_F16: result->value.f16_bits = encode_half(value, 5, 10); break;
  case CUREDUCE_BF16: result->value.bf16_bits = encode_half(value, 8, 7); break;
  case CUREDUCE_F32: result->value.f32 = (float)value; break; /* exact: the value is an f32 already */
  default: result->value.f64 = value; break;
  }
  return CUREDUCE_STATUS_OK;
}
