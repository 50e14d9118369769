/* The host reference's gathering of a result's elements, which the GPU suites and the bench check
 * every shaped result with: rows, columns and segments of random data, element for element against
 * the matrix's own indexing, and columns gathered many at a time against one at a time; and the
 * bench's check of a problem's results in threads: every result checked, the first wrong one named,
 * whatever the threads and the columns gathered a pass. */
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

/* Results as the reference gives them (what a correct device writes), cureduce_result_bytes each. */
static unsigned char *reference_results(const cureduce_problem *p, const void *x, const void *y, const int64_t *begin,
                                        const int64_t *end) {
  static unsigned char gathered_x[max_elements * 4], gathered_y[max_elements * 4];
  size_t result_bytes = cureduce_result_bytes(p->op, p->output_type);
  unsigned char *got = malloc(cureduce_problem_results(p) * result_bytes);
  ck_assert_ptr_nonnull(got);
  for (uint64_t i = 0; i < cureduce_problem_results(p); i++) {
    size_t length = cureduce_ref_gather(p, x, begin, end, i, gathered_x);
    if (y)
      cureduce_ref_gather(p, y, begin, end, i, gathered_y);
    cureduce_ref_result want = cureduce_ref_expected_mapped(p->op, p->transform, p->input_type, p->output_type,
                                                            gathered_x, y ? gathered_y : NULL, length);
    memcpy(got + i * result_bytes, &want.value, result_bytes);
  }
  return got;
}

/* The check of r (its results `got`) by 1, 3, 4 and 64 threads (more than results), the columns gathered 2 or all a
 * pass: right results pass; each of `wrong_count` spoiled results (ascending) fails the check and
 * is named while the ones before it are right, whatever thread's share it falls in. */
static void check_results_checked(cureduce_ref_results r, unsigned char *got, const uint64_t *wrong, int wrong_count,
                                  void (*spoil)(unsigned char *result)) {
  const unsigned thread_counts[] = {1, 3, 4, 64};
  size_t column_bytes = r.problem->rows * cureduce_dtype_size(r.problem->input_type);
  const size_t gather_bytes[] = {2 * column_bytes, 0};
  size_t result_bytes = cureduce_result_bytes(r.problem->op, r.problem->output_type);
  r.got = got;
  for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++)
    for (size_t g = 0; g < 2; g++) {
      r.gather_bytes = gather_bytes[g];
      unsigned char kept[4][sizeof(cureduce_value)];
      ck_assert_int_le(wrong_count, 4);
      ck_assert_msg(cureduce_ref_check_results(&r, thread_counts[t]).ok, "right results failed (%u threads)",
                    thread_counts[t]);
      for (int w = wrong_count - 1; w >= 0; w--) { /* the last first: then each one before it too */
        memcpy(kept[w], got + wrong[w] * result_bytes, result_bytes);
        spoil(got + wrong[w] * result_bytes);
        cureduce_ref_check verdict = cureduce_ref_check_results(&r, thread_counts[t]);
        ck_assert_msg(!verdict.ok && verdict.wrong == wrong[w], "result %llu spoiled: %s %llu (%u threads)",
                      (unsigned long long)wrong[w], verdict.ok ? "passed" : "named", (unsigned long long)verdict.wrong,
                      thread_counts[t]);
      }
      for (int w = 0; w < wrong_count; w++)
        memcpy(got + wrong[w] * result_bytes, kept[w], result_bytes);
    }
}

static void flip_low_bit(unsigned char *result) {
  result[0] ^= 1;
}

/* A float result moved far past any rounding bound. */
static void move_f32(unsigned char *result) {
  float value;
  memcpy(&value, result, sizeof value);
  value += 1000.0f;
  memcpy(result, &value, sizeof value);
}

/* max of u32 rows and columns of a padded matrix (every bit must match): results in the first,
 * a middle and the last thread's shares; and a contiguous array's one result. */
START_TEST(test_check_matrices) {
  fill_random();
  const cureduce_layout layouts[] = {CUREDUCE_LAYOUT_ROWS, CUREDUCE_LAYOUT_COLUMNS};
  for (int l = 0; l < 2; l++) {
    cureduce_problem p;
    cureduce_problem_init_matrix(&p, layouts[l], CUREDUCE_OP_MAX, CUREDUCE_U32, CUREDUCE_U32, 37, 53, 61);
    unsigned char *got = reference_results(&p, data, NULL, NULL, NULL);
    uint64_t last = cureduce_problem_results(&p) - 1, wrong[] = {0, 5, last / 2, last};
    check_results_checked((cureduce_ref_results){.problem = &p, .x = data}, got, wrong, 4, flip_low_bit);
    free(got);
  }
  cureduce_problem whole; /* one result: a contiguous array */
  cureduce_problem_init(&whole, CUREDUCE_OP_MAX, CUREDUCE_U32, CUREDUCE_U32, 5000);
  unsigned char *got = reference_results(&whole, data, NULL, NULL, NULL);
  const uint64_t only[] = {0};
  check_results_checked((cureduce_ref_results){.problem = &whole, .x = data}, got, only, 1, flip_low_bit);
  free(got);
}
END_TEST

/* Segments (an empty one, not checked, among them) and the dot products of columns of two inputs
 * (the product map: y gathered beside x). */
START_TEST(test_check_segments_and_pairs) {
  fill_random();
  const int64_t begin[] = {0, 100, 5000, 300, 70, 9000, 12}, end[] = {10, 100, 9000, 200, 71, 9500, 4000};
  cureduce_problem p;
  cureduce_problem_init_segments(&p, CUREDUCE_OP_MAX, CUREDUCE_U32, CUREDUCE_U32, 7);
  unsigned char *got = reference_results(&p, data, NULL, begin, end);
  const uint64_t wrong_segments[] = {0, 4, 6};
  check_results_checked((cureduce_ref_results){.problem = &p, .x = data, .begin = begin, .end = end}, got,
                        wrong_segments, 3, flip_low_bit);
  free(got);

  static float x[4096], y[4096];
  for (size_t i = 0; i < 4096; i++)
    x[i] = (float)cureduce_ref_random_unit() - 0.5f, y[i] = (float)cureduce_ref_random_unit() - 0.5f;
  cureduce_problem_init_matrix(&p, CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 64, 60, 64);
  p.transform = CUREDUCE_TRANSFORM_PRODUCT;
  got = reference_results(&p, x, y, NULL, NULL);
  const uint64_t wrong_columns[] = {1, 30, 59};
  check_results_checked((cureduce_ref_results){.problem = &p, .x = x, .y = y}, got, wrong_columns, 3, move_f32);
  free(got);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("reference");
  TCase *gather = tcase_create("gather");
  tcase_add_test(gather, test_gather_matrices);
  tcase_add_test(gather, test_gather_columns_at_once);
  tcase_add_test(gather, test_gather_segments);
  suite_add_tcase(suite, gather);
  TCase *check = tcase_create("check");
  tcase_add_test(check, test_check_matrices);
  tcase_add_test(check, test_check_segments_and_pairs);
  suite_add_tcase(suite, check);
  return harness_run(suite, false);
}
