/* Problem descriptors: their checks that need no device, and the checks of a call's pointers
 * against the problem's extent. */
#ifndef CUREDUCE_PROBLEM_H
#define CUREDUCE_PROBLEM_H

#include <stdbool.h>

#include "cureduce/cureduce.h"

/* Types, transform, layout, shape fields, reserved bytes, an empty contiguous min or max; an
 * expression is checked and registered with the kernel builder (expression.h). */
cureduce_status cureduce_problem_check(const cureduce_problem *problem);

bool cureduce_problem_is_shaped(const cureduce_problem *problem);

/* The problem as plans and the tuner take it: a matrix of one row (or none) has no row pitch to
 * keep, so its leading dimension becomes its length rounded up to 16 bytes (the length itself
 * when shorter: several such rows pack into a load), which lets its kernels read whole vectors
 * (their runtime check of the pitch passes) and shares kernels and tunings with every pitch.
 * Anything else is returned as given. For a checked problem. */
cureduce_problem cureduce_problem_canonical(const cureduce_problem *problem);

/* The digest its specs name its expression by (expression.h), 0 without one. */
uint64_t cureduce_problem_expression(const cureduce_problem *problem);

/* Elements from the first a problem reads to one past its last: n, or (rows - 1) * leading + cols
 * (0 for no rows); segments: unknown here, 0. */
uint64_t cureduce_problem_extent(const cureduce_problem *problem);

/* An input's checks: NULL with elements to read, not aligned to its elements, or running past the
 * end of the address space; `name` says which input in the message. */
cureduce_status cureduce_check_input_pointer(const char *name, cureduce_dtype input_type, const void *input, size_t n);
/* Checks of a call's pointers that need no device: NULL, alignment, the end of the address space
 * for `n` input elements and `results` results. */
cureduce_status cureduce_check_call_pointers(cureduce_op op, cureduce_dtype input_type, const void *input, size_t n,
                                             cureduce_dtype output_type, const void *output);
cureduce_status cureduce_check_shaped_pointers(const cureduce_problem *problem, const void *input, const void *output);
/* y of a map of two inputs, checked as the input is: as many elements as x (for segments, not
 * NULL when there are any). */
cureduce_status cureduce_check_second_pointer(const cureduce_problem *problem, const void *y);
/* The offsets of a segments call: both given, 8-byte aligned. */
cureduce_status cureduce_check_offsets(const int64_t *begin, const int64_t *end, uint64_t segments);

#endif
