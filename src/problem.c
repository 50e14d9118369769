#include <stdint.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "expression.h"
#include "problem.h"

void cureduce_problem_init(cureduce_problem *problem, cureduce_op op, cureduce_dtype input_type,
                           cureduce_dtype output_type, uint64_t n) {
  if (problem)
    *problem = (cureduce_problem){.op = op, .input_type = input_type, .output_type = output_type,
                                  .layout = CUREDUCE_LAYOUT_CONTIGUOUS, .n = n};
}

void cureduce_problem_init_matrix(cureduce_problem *problem, cureduce_layout layout, cureduce_op op,
                                  cureduce_dtype input_type, cureduce_dtype output_type, uint64_t rows, uint64_t cols,
                                  uint64_t leading_dimension) {
  if (problem)
    *problem = (cureduce_problem){.op = op, .input_type = input_type, .output_type = output_type, .layout = layout,
                                  .rows = rows, .cols = cols, .leading_dimension = leading_dimension};
}

void cureduce_problem_init_segments(cureduce_problem *problem, cureduce_op op, cureduce_dtype input_type,
                                    cureduce_dtype output_type, uint64_t segments) {
  if (problem)
    *problem = (cureduce_problem){.op = op, .input_type = input_type, .output_type = output_type,
                                  .layout = CUREDUCE_LAYOUT_SEGMENTS, .rows = segments};
}

uint64_t cureduce_problem_expression(const cureduce_problem *problem) {
  return cureduce_transform_has_expression(problem->transform) && problem->expression
             ? cureduce_expression_digest(problem->expression)
             : 0;
}

bool cureduce_problem_is_shaped(const cureduce_problem *problem) {
  return problem->layout != CUREDUCE_LAYOUT_CONTIGUOUS;
}

uint64_t cureduce_problem_results(const cureduce_problem *problem) {
  if (!problem)
    return 0;
  switch (problem->layout) {
  case CUREDUCE_LAYOUT_CONTIGUOUS: return 1;
  case CUREDUCE_LAYOUT_COLUMNS: return problem->cols;
  default: return problem->rows;
  }
}

size_t cureduce_result_bytes(cureduce_op op, cureduce_dtype output_type) {
  return cureduce_op_is_valid(op) && cureduce_dtype_is_valid(output_type) ? cureduce_result_size(op, output_type) : 0;
}

cureduce_problem cureduce_problem_canonical(const cureduce_problem *problem) {
  cureduce_problem canonical = *problem;
  if (problem->layout == CUREDUCE_LAYOUT_CONTIGUOUS || problem->layout == CUREDUCE_LAYOUT_SEGMENTS || problem->rows > 1)
    return canonical;
  uint64_t element = cureduce_dtype_size(problem->input_type), vector = 16 / element; /* the widest load's elements */
  uint64_t pad = problem->cols * element < 16 ? 0 : (vector - problem->cols % vector) % vector;
  if (problem->cols <= UINT64_MAX / element - pad) /* within check_matrix's bound, as the given pitch is */
    canonical.leading_dimension = problem->cols + pad;
  return canonical;
}

uint64_t cureduce_problem_extent(const cureduce_problem *problem) {
  switch (problem->layout) {
  case CUREDUCE_LAYOUT_CONTIGUOUS: return problem->n;
  case CUREDUCE_LAYOUT_SEGMENTS: return 0;
  default: return problem->rows ? (problem->rows - 1) * problem->leading_dimension + problem->cols : 0;
  }
}

/* A matrix whose row pitch and last element lie within 2^64 bytes (no larger one can be addressed,
 * and so no byte count of the shape's overflows), rows that do not overlap. */
static cureduce_status check_matrix(const cureduce_problem *problem) {
  size_t element = cureduce_dtype_size(problem->input_type);
  uint64_t most = UINT64_MAX / element; /* elements in 2^64 bytes */
  CUREDUCE_RETURN_ERROR_IF(problem->leading_dimension < problem->cols, INVALID_ARGUMENT,
                           "leading_dimension %llu is less than cols %llu: rows would overlap",
                           (unsigned long long)problem->leading_dimension, (unsigned long long)problem->cols);
  CUREDUCE_RETURN_ERROR_IF(problem->leading_dimension > most, INVALID_ARGUMENT,
                           "leading_dimension %llu elements of %zu bytes is past 2^64 bytes",
                           (unsigned long long)problem->leading_dimension, element);
  CUREDUCE_RETURN_ERROR_IF(problem->rows > 1 && problem->leading_dimension > (most - problem->cols) / (problem->rows - 1),
                           INVALID_ARGUMENT, "%llu rows %llu elements of %zu bytes apart run past 2^64 bytes",
                           (unsigned long long)problem->rows, (unsigned long long)problem->leading_dimension, element);
  return CUREDUCE_STATUS_OK;
}

static cureduce_status check_shape(const cureduce_problem *problem) {
  CUREDUCE_RETURN_ERROR_IF(problem->n != 0, INVALID_ARGUMENT,
                           "n is for contiguous problems; a shaped one has rows, cols and leading_dimension");
  CUREDUCE_RETURN_ERROR_IF(problem->op == CUREDUCE_OP_EXACT_SUM && problem->output_type == CUREDUCE_I64, UNSUPPORTED,
                           "exact partials (exact_sum into i64) are of whole arrays only: a row's exact sum is "
                           "rounded to f16, bf16, f32 or f64");
  if (problem->layout != CUREDUCE_LAYOUT_SEGMENTS)
    return check_matrix(problem);
  CUREDUCE_RETURN_ERROR_IF(problem->cols || problem->leading_dimension, INVALID_ARGUMENT,
                           "a segments problem has only rows (the segment count): cols and leading_dimension must be 0");
  return CUREDUCE_STATUS_OK;
}

/* An expression where the transform is one, checked and made known to the kernel builder. */
static cureduce_status check_expression(const cureduce_problem *problem) {
  bool wanted = cureduce_transform_has_expression(problem->transform);
  CUREDUCE_RETURN_ERROR_IF(!wanted && problem->expression, INVALID_ARGUMENT,
                           "expression is set, but the transform is %s, not an expression",
                           cureduce_transform_name(problem->transform));
  return wanted ? cureduce_expression_register(problem->expression) : CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_problem_check(const cureduce_problem *problem) {
  CUREDUCE_RETURN_ERROR_IF(!problem, NULL_POINTER, "problem must not be NULL");
  CUREDUCE_FORWARD_IF_ERROR(
      cureduce_check_transform_types(problem->op, problem->transform, problem->input_type, problem->output_type));
  CUREDUCE_RETURN_ERROR_IF((unsigned)problem->layout > CUREDUCE_LAYOUT_SEGMENTS, UNSUPPORTED,
                           "layout %d is not a cureduce_layout this version knows", (int)problem->layout);
  CUREDUCE_FORWARD_IF_ERROR(check_expression(problem));
  for (size_t i = 0; i < sizeof problem->reserved; i++)
    CUREDUCE_RETURN_ERROR_IF(problem->reserved[i] != 0, INVALID_ARGUMENT,
                             "reserved byte %zu is not zero: start from cureduce_problem_init()", i);
  if (cureduce_problem_is_shaped(problem))
    return check_shape(problem);
  CUREDUCE_RETURN_ERROR_IF(problem->rows || problem->cols || problem->leading_dimension, INVALID_ARGUMENT,
                           "a contiguous problem has only n: rows, cols and leading_dimension must be 0");
  CUREDUCE_FORWARD_IF_ERROR(cureduce_check_not_empty(problem->op, problem->n));
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_check_input_pointer(const char *name, cureduce_dtype input_type, const void *input, size_t n) {
  size_t element = cureduce_dtype_size(input_type);
  CUREDUCE_RETURN_ERROR_IF(n > 0 && !input, NULL_POINTER, "%s is NULL with n = %zu", name, n);
  CUREDUCE_RETURN_ERROR_IF((uintptr_t)input % element != 0, MISALIGNED_POINTER,
                           "%s %p is not aligned to its %zu-byte elements", name, input, element);
  CUREDUCE_RETURN_ERROR_IF(n > (UINTPTR_MAX - (uintptr_t)input) / element, INVALID_ARGUMENT,
                           "%zu elements of %zu bytes from %p run past the end of the address space", n, element,
                           input);
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_check_call_pointers(cureduce_op op, cureduce_dtype input_type, const void *input, size_t n,
                                             cureduce_dtype output_type, const void *output) {
  CUREDUCE_RETURN_ERROR_IF(n > 0 && !input, NULL_POINTER, "input is NULL with n = %zu", n);
  CUREDUCE_RETURN_ERROR_IF(!output, NULL_POINTER, "output must not be NULL");
  CUREDUCE_FORWARD_IF_ERROR(cureduce_check_input_pointer("input", input_type, input, n));
  size_t alignment = cureduce_result_alignment(op, output_type);
  CUREDUCE_RETURN_ERROR_IF((uintptr_t)output % alignment != 0, MISALIGNED_POINTER,
                           "output %p is not aligned to %zu bytes", output, alignment);
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_check_shaped_pointers(const cureduce_problem *problem, const void *input, const void *output) {
  uint64_t results = cureduce_problem_results(problem);
  size_t result_bytes = cureduce_result_size(problem->op, problem->output_type);
  CUREDUCE_RETURN_ERROR_IF(results > 0 && !output, NULL_POINTER, "output is NULL with %llu results",
                           (unsigned long long)results);
  CUREDUCE_RETURN_ERROR_IF(output && results > (UINTPTR_MAX - (uintptr_t)output) / result_bytes, INVALID_ARGUMENT,
                           "%llu results of %zu bytes from %p run past the end of the address space",
                           (unsigned long long)results, result_bytes, output);
  uint64_t extent = cureduce_problem_extent(problem);
  CUREDUCE_RETURN_ERROR_IF(extent > SIZE_MAX, INVALID_ARGUMENT, "the matrix spans more than the address space");
  /* Segments name their elements on the device: any input will do but NULL. */
  bool reads = problem->layout == CUREDUCE_LAYOUT_SEGMENTS ? results > 0 : extent > 0;
  CUREDUCE_RETURN_ERROR_IF(reads && !input, NULL_POINTER, "input must not be NULL");
  if (results == 0)
    return CUREDUCE_STATUS_OK; /* nothing is read or written */
  return cureduce_check_call_pointers(problem->op, problem->input_type, input, (size_t)extent, problem->output_type,
                                      output);
}

cureduce_status cureduce_check_second_pointer(const cureduce_problem *problem, const void *y) {
  bool segments = problem->layout == CUREDUCE_LAYOUT_SEGMENTS;
  CUREDUCE_RETURN_ERROR_IF(segments && problem->rows > 0 && !y, NULL_POINTER, "y is NULL with %llu segments",
                           (unsigned long long)problem->rows);
  uint64_t elements = cureduce_problem_is_shaped(problem) ? cureduce_problem_extent(problem) : problem->n;
  return cureduce_check_input_pointer("y", problem->input_type, y, (size_t)elements);
}

cureduce_status cureduce_check_offsets(const int64_t *begin, const int64_t *end, uint64_t segments) {
  CUREDUCE_RETURN_ERROR_IF(segments > 0 && (!begin || !end), NULL_POINTER,
                           "begin_offsets and end_offsets must not be NULL");
  CUREDUCE_RETURN_ERROR_IF((uintptr_t)begin % 8 || (uintptr_t)end % 8, MISALIGNED_POINTER,
                           "offsets %p and %p must be 8-byte aligned", (const void *)begin, (const void *)end);
  CUREDUCE_RETURN_ERROR_IF(segments > (UINTPTR_MAX - (uintptr_t)begin) / 8 ||
                               segments > (UINTPTR_MAX - (uintptr_t)end) / 8,
                           INVALID_ARGUMENT, "%llu offsets run past the end of the address space",
                           (unsigned long long)segments);
  return CUREDUCE_STATUS_OK;
}
