/* A kernel specification: what one generated kernel computes (operation, types), how
 * (strategy, block size, loads in flight, load width), and how it is launched (blocks per SM).
 * Its text form, e.g. "sum:f32->f32/single_pass/b256/u4/v16/g8", is what tools print and parse. */
#ifndef CUREDUCE_SPEC_H
#define CUREDUCE_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cureduce/cureduce.h"

/* X(ID, name, template file, what it is) */
#define CUREDUCE_STRATEGY_LIST(X)                                                              \
  X(SINGLE_PASS, "single_pass", "single_pass.cu",                                              \
    "vector loads in a grid-stride loop, warp shuffles, the last block folds the partials")

typedef enum cureduce_strategy {
#define CUREDUCE_STRATEGY_ENUM(id, name, file, what) CUREDUCE_STRATEGY_##id,
  CUREDUCE_STRATEGY_LIST(CUREDUCE_STRATEGY_ENUM)
#undef CUREDUCE_STRATEGY_ENUM
  CUREDUCE_STRATEGY_COUNT
} cureduce_strategy;

/* Every field is a fixed-width integer and the layout has no padding, so specs compare and
 * hash as bytes. */
typedef struct cureduce_spec {
  uint8_t op;           /* cureduce_op */
  uint8_t input;        /* cureduce_dtype */
  uint8_t output;       /* cureduce_dtype */
  uint8_t strategy;     /* cureduce_strategy */
  uint16_t block;       /* threads per block: a multiple of 32, 32 to 1024 */
  uint8_t unroll;       /* loads in flight per thread: 1 to 16 */
  uint8_t vector_bytes; /* bytes per load: a power of two from the element size to 16 */
  uint16_t blocks_per_sm; /* launch only: the grid is at most this many blocks per SM */
  uint16_t zero;          /* keeps the struct free of padding; always 0 */
} cureduce_spec;

/* Longest text form, with its terminating NUL. */
#define CUREDUCE_SPEC_TEXT_MAX 96

const char *cureduce_strategy_name(cureduce_strategy strategy);
const char *cureduce_strategy_template(cureduce_strategy strategy);
const char *cureduce_strategy_description(cureduce_strategy strategy);

/* OK when every field is in range and the types go together. */
cureduce_status cureduce_spec_validate(const cureduce_spec *spec);
/* The same for the fields that shape the compiled kernel; the launch-only ones are not looked at. */
cureduce_status cureduce_spec_validate_kernel(const cureduce_spec *spec);
/* The spec with its launch-only fields cleared: what identifies the compiled kernel. */
cureduce_spec cureduce_spec_kernel_part(const cureduce_spec *spec);
bool cureduce_spec_equal(const cureduce_spec *a, const cureduce_spec *b);

void cureduce_spec_format(const cureduce_spec *spec, char text[CUREDUCE_SPEC_TEXT_MAX]);
/* Parses the text form; INVALID_SPEC with the reason for anything else. */
cureduce_status cureduce_spec_parse(const char *text, cureduce_spec *spec);

#endif
