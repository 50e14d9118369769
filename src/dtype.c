#include <stddef.h>
#include <string.h>

#include "dtype.h"
#include "error.h"

static const char *const op_names[CUREDUCE_OP_COUNT] = {
    "sum",  "prod",     "min",             "max", "argmin",     "argmax",   "exact_sum",
    "norm2", "mean", "variance", "sample_variance", "std", "sample_std", "logsumexp"};

static const char *const transform_names[CUREDUCE_TRANSFORM_COUNT] = {
    "none", "abs", "square", "nonzero", "expression", "product", "pair_expression"};

static const struct {
  const char *name;
  size_t size;
  bool is_float;
  bool is_signed;
} dtype_table[CUREDUCE_DTYPE_COUNT] = {
    [CUREDUCE_F16] = {"f16", 2, true, true},  [CUREDUCE_BF16] = {"bf16", 2, true, true},
    [CUREDUCE_F32] = {"f32", 4, true, true},  [CUREDUCE_F64] = {"f64", 8, true, true},
    [CUREDUCE_I8] = {"i8", 1, false, true},   [CUREDUCE_U8] = {"u8", 1, false, false},
    [CUREDUCE_I32] = {"i32", 4, false, true}, [CUREDUCE_U32] = {"u32", 4, false, false},
    [CUREDUCE_I64] = {"i64", 8, false, true}, [CUREDUCE_U64] = {"u64", 8, false, false},
};

bool cureduce_op_is_valid(int op) { return op >= 0 && op < CUREDUCE_OP_COUNT; }
bool cureduce_dtype_is_valid(int dtype) { return dtype >= 0 && dtype < CUREDUCE_DTYPE_COUNT; }
bool cureduce_op_is_arg(cureduce_op op) { return op == CUREDUCE_OP_ARGMIN || op == CUREDUCE_OP_ARGMAX; }
bool cureduce_op_is_moments(cureduce_op op) { return op >= CUREDUCE_OP_MEAN && op <= CUREDUCE_OP_SAMPLE_STD; }
bool cureduce_op_is_spread(cureduce_op op) { return op >= CUREDUCE_OP_VARIANCE && op <= CUREDUCE_OP_SAMPLE_STD; }
bool cureduce_op_is_float_only(cureduce_op op) {
  return op == CUREDUCE_OP_EXACT_SUM || op == CUREDUCE_OP_NORM2 || cureduce_op_is_moments(op) ||
         op == CUREDUCE_OP_LOGSUMEXP;
}
bool cureduce_dtype_is_float(cureduce_dtype dtype) { return dtype_table[dtype].is_float; }

const char *cureduce_op_name(cureduce_op op) { return cureduce_op_is_valid(op) ? op_names[op] : NULL; }

bool cureduce_transform_is_valid(int transform) { return transform >= 0 && transform < CUREDUCE_TRANSFORM_COUNT; }

bool cureduce_transform_is_pair(cureduce_transform transform) {
  return transform == CUREDUCE_TRANSFORM_PRODUCT || transform == CUREDUCE_TRANSFORM_PAIR_EXPRESSION;
}

size_t cureduce_transform_inputs(cureduce_transform transform) { return cureduce_transform_is_pair(transform) ? 2 : 1; }

bool cureduce_transform_has_expression(cureduce_transform transform) {
  return transform == CUREDUCE_TRANSFORM_EXPRESSION || transform == CUREDUCE_TRANSFORM_PAIR_EXPRESSION;
}

const char *cureduce_transform_name(cureduce_transform transform) {
  return cureduce_transform_is_valid(transform) ? transform_names[transform] : NULL;
}

int cureduce_transform_from_name(const char *name) {
  for (int transform = 0; transform < CUREDUCE_TRANSFORM_COUNT; transform++)
    if (strcmp(name, transform_names[transform]) == 0)
      return transform;
  return -1;
}

cureduce_dtype cureduce_mapped_type(cureduce_transform transform, cureduce_dtype input) {
  switch (transform) {
  case CUREDUCE_TRANSFORM_SQUARE:
  case CUREDUCE_TRANSFORM_EXPRESSION:
  case CUREDUCE_TRANSFORM_PRODUCT:
  case CUREDUCE_TRANSFORM_PAIR_EXPRESSION: return input == CUREDUCE_F64 ? CUREDUCE_F64 : CUREDUCE_F32;
  case CUREDUCE_TRANSFORM_NONZERO: return CUREDUCE_U8;
  default: return input; /* none, and abs: exact in the input type */
  }
}

const char *cureduce_dtype_name(cureduce_dtype dtype) {
  return cureduce_dtype_is_valid(dtype) ? dtype_table[dtype].name : NULL;
}

size_t cureduce_dtype_size(cureduce_dtype dtype) {
  return cureduce_dtype_is_valid(dtype) ? dtype_table[dtype].size : 0;
}

size_t cureduce_result_size(cureduce_op op, cureduce_dtype output) {
  if (cureduce_op_is_spread(op))
    return sizeof(cureduce_value);
  return cureduce_op_is_arg(op) ? offsetof(cureduce_value, mean) : dtype_table[output].size;
}

size_t cureduce_result_alignment(cureduce_op op, cureduce_dtype output) {
  return cureduce_op_is_arg(op) || cureduce_op_is_spread(op) ? 8 : dtype_table[output].size;
}

int cureduce_op_from_name(const char *name) {
  for (int op = 0; op < CUREDUCE_OP_COUNT; op++)
    if (strcmp(name, op_names[op]) == 0)
      return op;
  return -1;
}

int cureduce_dtype_from_name(const char *name) {
  for (int dtype = 0; dtype < CUREDUCE_DTYPE_COUNT; dtype++)
    if (strcmp(name, dtype_table[dtype].name) == 0)
      return dtype;
  return -1;
}

cureduce_status cureduce_accumulator_type(cureduce_op op, cureduce_dtype input,
                                          cureduce_dtype *accumulator) {
  CUREDUCE_RETURN_ERROR_IF(!cureduce_op_is_valid(op), UNSUPPORTED, "unknown operation %d", (int)op);
  CUREDUCE_RETURN_ERROR_IF(!cureduce_dtype_is_valid(input), UNSUPPORTED, "unknown input type %d",
                           (int)input);
  CUREDUCE_RETURN_ERROR_IF(!accumulator, NULL_POINTER, "accumulator must not be NULL");
  CUREDUCE_RETURN_ERROR_IF(op == CUREDUCE_OP_EXACT_SUM && !dtype_table[input].is_float, UNSUPPORTED,
                           "exact_sum takes float inputs; a sum of %s is exact already (modulo 2^64): use sum",
                           dtype_table[input].name);
  CUREDUCE_RETURN_ERROR_IF(cureduce_op_is_float_only(op) && !dtype_table[input].is_float, UNSUPPORTED,
                           "%s takes float inputs, not %s", op_names[op], dtype_table[input].name);
  if (op == CUREDUCE_OP_NORM2 || cureduce_op_is_moments(op))
    *accumulator = CUREDUCE_F64;
  else if (op != CUREDUCE_OP_SUM && op != CUREDUCE_OP_PROD && op != CUREDUCE_OP_EXACT_SUM &&
           op != CUREDUCE_OP_LOGSUMEXP) /* min, max, arg keep the type */
    *accumulator = input;
  else if (input == CUREDUCE_F64)
    *accumulator = CUREDUCE_F64;
  else if (dtype_table[input].is_float)
    *accumulator = CUREDUCE_F32;
  else
    *accumulator = dtype_table[input].is_signed ? CUREDUCE_I64 : CUREDUCE_U64;
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_check_not_empty(cureduce_op op, uint64_t n) {
  bool has_identity = op == CUREDUCE_OP_SUM || op == CUREDUCE_OP_PROD || op == CUREDUCE_OP_EXACT_SUM ||
                      op == CUREDUCE_OP_NORM2 || op == CUREDUCE_OP_LOGSUMEXP;
  CUREDUCE_RETURN_ERROR_IF(n == 0 && !has_identity, EMPTY_INPUT,
                           "%s of zero elements", cureduce_op_name(op));
  return CUREDUCE_STATUS_OK;
}

bool cureduce_is_exact_partial(cureduce_op op, cureduce_dtype output) {
  return op == CUREDUCE_OP_EXACT_SUM && output == CUREDUCE_I64;
}

cureduce_status cureduce_check_types(cureduce_op op, cureduce_dtype input, cureduce_dtype output) {
  cureduce_dtype accumulator;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_accumulator_type(op, input, &accumulator));
  if (cureduce_is_exact_partial(op, output))
    return CUREDUCE_STATUS_OK; /* the words themselves, for any float input */
  CUREDUCE_RETURN_ERROR_IF(output != input && output != accumulator, UNSUPPORTED,
                           "%s of %s may give %s or %s, not %s", op_names[op],
                           dtype_table[input].name, dtype_table[input].name,
                           dtype_table[accumulator].name,
                           cureduce_dtype_is_valid(output) ? dtype_table[output].name : "an unknown type");
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_check_transform_types(cureduce_op op, cureduce_transform transform, cureduce_dtype input,
                                               cureduce_dtype output) {
  CUREDUCE_RETURN_ERROR_IF(!cureduce_transform_is_valid(transform), UNSUPPORTED,
                           "transform %d is not a cureduce_transform this version knows", (int)transform);
  if (transform == CUREDUCE_TRANSFORM_NONE)
    return cureduce_check_types(op, input, output);
  CUREDUCE_RETURN_ERROR_IF(!cureduce_op_is_valid(op) || !cureduce_dtype_is_valid(input), UNSUPPORTED,
                           "unknown operation %d or input type %d", (int)op, (int)input);
  CUREDUCE_RETURN_ERROR_IF(!dtype_table[input].is_float, UNSUPPORTED,
                           "transforms take float inputs (f16, bf16, f32, f64), not %s", dtype_table[input].name);
  CUREDUCE_RETURN_ERROR_IF(op == CUREDUCE_OP_EXACT_SUM, UNSUPPORTED, "exact_sum takes no transform (%s)",
                           transform_names[transform]);
  cureduce_dtype accumulator;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_accumulator_type(op, cureduce_mapped_type(transform, input), &accumulator));
  CUREDUCE_RETURN_ERROR_IF(output != input && output != accumulator, UNSUPPORTED,
                           "%s of %s(%s) may give %s or %s, not %s", op_names[op], transform_names[transform],
                           dtype_table[input].name, dtype_table[input].name, dtype_table[accumulator].name,
                           cureduce_dtype_is_valid(output) ? dtype_table[output].name : "an unknown type");
  return CUREDUCE_STATUS_OK;
}
