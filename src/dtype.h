/* What the library knows of each operation, element type and transform: names, sizes, and which
 * (operation, transform, input, output) it reduces. */
#ifndef CUREDUCE_DTYPE_H
#define CUREDUCE_DTYPE_H

#include <stdbool.h>
#include <stdint.h>

#include "cureduce/cureduce.h"

bool cureduce_op_is_valid(int op);
bool cureduce_dtype_is_valid(int dtype);
bool cureduce_op_is_arg(cureduce_op op);
/* exact_sum, norm2, the moments and logsumexp: operations of float inputs alone. */
bool cureduce_op_is_float_only(cureduce_op op);
/* mean, the variances and standard deviations: the operations of the moments accumulator. */
bool cureduce_op_is_moments(cureduce_op op);
/* The variances and standard deviations: their results are whole cureduce_values (with the mean). */
bool cureduce_op_is_spread(cureduce_op op);
/* EMPTY_INPUT for min, max, argmin, argmax and the moments of zero elements, which have no value;
 * sum, prod, exact_sum, norm2 and logsumexp of zero elements are their identities. */
cureduce_status cureduce_check_not_empty(cureduce_op op, uint64_t n);
bool cureduce_dtype_is_float(cureduce_dtype dtype);
/* exact_sum to i64: the accumulator's words, not a rounded value (cureduce_exact_partial_words). */
bool cureduce_is_exact_partial(cureduce_op op, cureduce_dtype output);
/* Bytes the result of (op, output type) takes on the device: 16 for argmin/argmax, 24 for the
 * variances and standard deviations (a whole cureduce_value). */
size_t cureduce_result_size(cureduce_op op, cureduce_dtype output);
/* Alignment the output pointer needs. */
size_t cureduce_result_alignment(cureduce_op op, cureduce_dtype output);
bool cureduce_transform_is_valid(int transform);
/* product and pair_expression: maps of two inputs, x and y (cureduce_plan_execute_pair). */
bool cureduce_transform_is_pair(cureduce_transform transform);
/* The arrays a transform's map reads, each of the problem's elements: 2 for a pair, else 1. */
size_t cureduce_transform_inputs(cureduce_transform transform);
/* expression and pair_expression: maps of the caller's text (problem.expression). */
bool cureduce_transform_has_expression(cureduce_transform transform);
/* The type a transform's map gives (cureduce_transform): the input type for none and abs, f32 or
 * f64 for square, product and expressions, u8 for nonzero. The operation reduces values of this
 * type. */
cureduce_dtype cureduce_mapped_type(cureduce_transform transform, cureduce_dtype input);
/* Index of the name in the op, dtype or transform table, or -1. */
int cureduce_op_from_name(const char *name);
int cureduce_dtype_from_name(const char *name);
int cureduce_transform_from_name(const char *name);

#endif
