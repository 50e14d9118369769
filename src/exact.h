/* The superaccumulator of exact sums (kernel_templates/exact.cuh): a two's complement
 * fixed-point integer of 32-bit digits, digit d worth 2^(base + 32 d), kept as 64-bit words that
 * may hold more than their digit between carries, followed by three counts: NaNs, +infinities,
 * -infinities. Words of several sums add exactly as integers (and so may be combined outside the
 * kernel); the value is rounded once at the end. This table is the one place its size is set:
 * the host sizes workspaces from it and writes it into each exact kernel's source. */
#ifndef CUREDUCE_EXACT_H
#define CUREDUCE_EXACT_H

#include <stddef.h>

#include "cureduce/cureduce.h"

typedef struct cureduce_exact_layout {
  int base;        /* the exponent of the lowest bit: every input of the type is a multiple of 2^base */
  unsigned digits; /* a multiple of 32: whole digits for each lane of a warp */
} cureduce_exact_layout;

/* The most words of any type (f64's 96 digits and the three counts): what a workspace reserves. */
#define CUREDUCE_EXACT_MAX_WORDS 99

/* A float output type as the rounding sees it: significand bits, and the exponent of its smallest
 * subnormal. */
typedef struct cureduce_exact_format {
  int precision, lowest;
} cureduce_exact_format;
cureduce_exact_format cureduce_exact_format_of(cureduce_dtype output);

/* The layout for a float input type; {0, 0} for any other. */
cureduce_exact_layout cureduce_exact_layout_of(cureduce_dtype input);

/* 64-bit words of the accumulator: the digits and the three special-value counts. */
size_t cureduce_exact_words(cureduce_dtype input);

/* The words of an accumulator for `input` (overwritten) rounded once to `output`, as the kernels
 * round them (the same code: kernel_templates/exact_round.h), as a double. */
double cureduce_exact_round_words(long long *words, cureduce_dtype input, cureduce_dtype output);

#endif
