/* What the library knows of each operation and element type: names, sizes, and which
 * (operation, input, output) triples it reduces. */
#ifndef CUREDUCE_DTYPE_H
#define CUREDUCE_DTYPE_H

#include <stdbool.h>
#include <stdint.h>

#include "cureduce/cureduce.h"

bool cureduce_op_is_valid(int op);
bool cureduce_dtype_is_valid(int dtype);
bool cureduce_op_is_arg(cureduce_op op);
/* EMPTY_INPUT for min, max, argmin and argmax of zero elements, which have no value; sum, prod
 * and exact_sum of zero elements are their identities. */
cureduce_status cureduce_check_not_empty(cureduce_op op, uint64_t n);
bool cureduce_dtype_is_float(cureduce_dtype dtype);
/* exact_sum to i64: the accumulator's words, not a rounded value (cureduce_exact_partial_words). */
bool cureduce_is_exact_partial(cureduce_op op, cureduce_dtype output);
/* Bytes the result of (op, output type) takes on the device: 16 for argmin/argmax. */
size_t cureduce_result_size(cureduce_op op, cureduce_dtype output);
/* Alignment the output pointer needs. */
size_t cureduce_result_alignment(cureduce_op op, cureduce_dtype output);
/* Index of the name in the op or dtype table, or -1. */
int cureduce_op_from_name(const char *name);
int cureduce_dtype_from_name(const char *name);

#endif
