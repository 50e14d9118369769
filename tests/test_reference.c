/* The host reference's gathering of a result's elements, which the GPU suites and the bench check
 * every shaped result with: rows, columns and segments of random data, element for element against
 * the matrix's own indexing, and columns gathered many at a time against one at a time. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum { max_elements = 1 << 16 };
static uint32_t data[max_elements];

static void fill_random(void) {
  cureduce_ref_seed();
  for (size_t i = 0; i < max_elements; i++)
    data[i] = (uint32_t)cureduce_ref_random();
}

/* Every result of a padded matrix (leading > cols) by rows or by columns: element k of result i
 * is the matrix's (i, k), or (k, i). */
static void check_matrix_gather(cureduce_layout layout) {
  static uint32_t into[max_elements];
  const uint64_t rows = 37, cols = 53, leading = 61;
  bool by_rows = layout == CUREDUCE_LAYOUT_ROWS;
  cureduce_problem p;
  cureduce_problem_init_matrix(&p, layout, CUREDUCE_OP_SUM, CUREDUCE_U32, CUREDUCE_U32, rows, cols, leading);
  for (uint64_t i = 0; i < (by_rows ? rows : cols); i++) {
    ck_assert_uint_eq(cureduce_ref_gather(&p, data, NULL, NULL, i, into), by_rows ? cols : rows);
    for (uint64_t k = 0; k < (by_rows ? cols : rows); k++)
      ck_assert_uint_eq(into[k], (by_rows ? data[i * leading + k] : data[k * leading + i]));
  }
}

/* A padded matrix by rows and by columns, and a contiguous array. */
START_TEST(test_gather_matrices) {
  fill_random();
  check_matrix_gather(CUREDUCE_LAYOUT_ROWS);
  check_matrix_gather(CUREDUCE_LAYOUT_COLUMNS);
  static uint32_t into[max_elements];
  cureduce_problem p;
  cureduce_problem_init(&p, CUREDUCE_OP_SUM, CUREDUCE_U32, CUREDUCE_U32, 1000);
  ck_assert_uint_eq(cureduce_ref_gather(&p, data, NULL, NULL, 0, into), 1000);
  ck_assert(memcmp(into, data, 1000 * sizeof data[0]) == 0);
}
END_TEST

/* Columns [first, first + count) in one gather: each whole, one after another, as one at a time. */
START_TEST(test_gather_columns_at_once) {
  fill_random();
  static uint32_t many[max_elements], one[max_elements];
  const uint64_t rows = 29, cols = 100, leading = 103;
  cureduce_problem p;
  cureduce_problem_init_matrix(&p, CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_OP_SUM, CUREDUCE_U32, CUREDUCE_U32, rows, cols,
                               leading);
  const uint64_t first = 7, count = 45;
  cureduce_ref_gather_columns(&p, data, first, count, many);
  for (uint64_t k = 0; k < count; k++) {
    cureduce_ref_gather(&p, data, NULL, NULL, first + k, one);
    ck_assert(memcmp(many + k * rows, one, rows * sizeof one[0]) == 0);
  }
}
END_TEST

/* Segments, an empty one with bounds past the data and a reversed one among them. */
START_TEST(test_gather_segments) {
  fill_random();
  static uint32_t into[max_elements];
  const int64_t begin[] = {0, 100, 5000, 300, 70}, end[] = {10, 100, 9000, 200, 71};
  cureduce_problem p;
  cureduce_problem_init_segments(&p, CUREDUCE_OP_SUM, CUREDUCE_U32, CUREDUCE_U32, 5);
  for (uint64_t i = 0; i < 5; i++) {
    size_t length = end[i] > begin[i] ? (size_t)(end[i] - begin[i]) : 0;
    memset(into, 0xA5, sizeof into);
    ck_assert_uint_eq(cureduce_ref_gather(&p, data, begin, end, i, into), length);
    ck_assert(memcmp(into, data + begin[i], length * sizeof data[0]) == 0);
  }
  const int64_t past[] = {(int64_t)1 << 40}, past_end[] = {(int64_t)1 << 40};
  ck_assert_uint_eq(cureduce_ref_gather(&p, data, past, past_end, 0, into), 0);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("reference");
  TCase *gather = tcase_create("gather");
  tcase_add_test(gather, test_gather_matrices);
  tcase_add_test(gather, test_gather_columns_at_once);
  tcase_add_test(gather, test_gather_segments);
  suite_add_tcase(suite, gather);
  return harness_run(suite, false);
}
