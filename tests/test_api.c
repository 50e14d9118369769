/* The public API without a GPU: status names and strings, types, settings, and every argument
 * check, which answers the same with or without a device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

START_TEST(test_status_numbers_are_pinned) {
  ck_assert_int_eq(CUREDUCE_STATUS_OK, 0);
  ck_assert_int_eq(CUREDUCE_STATUS_UNSUPPORTED, 4);
  ck_assert_int_eq(CUREDUCE_STATUS_NO_NVRTC, 8);
  ck_assert_int_eq(CUREDUCE_STATUS_CACHE_IO, 15);
  ck_assert_str_eq(cureduce_status_name(CUREDUCE_STATUS_TOO_MANY_STREAMS), "CUREDUCE_STATUS_TOO_MANY_STREAMS");
  ck_assert_str_eq(cureduce_status_name((cureduce_status)999), "CUREDUCE_STATUS_UNKNOWN");
  ck_assert_str_eq(cureduce_status_string((cureduce_status)-1), "unknown status");
#define CHECK_STATUS(name, number, message)                                                   \
  ck_assert_str_eq(cureduce_status_name(CUREDUCE_STATUS_##name), "CUREDUCE_STATUS_" #name);    \
  ck_assert_str_eq(cureduce_status_string(CUREDUCE_STATUS_##name), message);
  CUREDUCE_STATUS_LIST(CHECK_STATUS)
#undef CHECK_STATUS
}
END_TEST

START_TEST(test_version) {
  ck_assert_uint_eq(cureduce_version(), CUREDUCE_VERSION);
  ck_assert_str_eq(cureduce_version_string(), "0.2.0");
}
END_TEST

START_TEST(test_types_and_accumulators) {
  static const struct {
    cureduce_op op;
    cureduce_dtype input, accumulator;
  } table[] = {
      {CUREDUCE_OP_SUM, CUREDUCE_F16, CUREDUCE_F32},  {CUREDUCE_OP_SUM, CUREDUCE_BF16, CUREDUCE_F32},
      {CUREDUCE_OP_PROD, CUREDUCE_F32, CUREDUCE_F32}, {CUREDUCE_OP_SUM, CUREDUCE_F64, CUREDUCE_F64},
      {CUREDUCE_OP_SUM, CUREDUCE_I8, CUREDUCE_I64},   {CUREDUCE_OP_PROD, CUREDUCE_U8, CUREDUCE_U64},
      {CUREDUCE_OP_SUM, CUREDUCE_I32, CUREDUCE_I64},  {CUREDUCE_OP_SUM, CUREDUCE_U32, CUREDUCE_U64},
      {CUREDUCE_OP_MIN, CUREDUCE_F16, CUREDUCE_F16},  {CUREDUCE_OP_ARGMAX, CUREDUCE_U64, CUREDUCE_U64},
      {CUREDUCE_OP_EXACT_SUM, CUREDUCE_BF16, CUREDUCE_F32}, {CUREDUCE_OP_EXACT_SUM, CUREDUCE_F64, CUREDUCE_F64},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    cureduce_dtype accumulator;
    ck_assert(cureduce_accumulator_type(table[i].op, table[i].input, &accumulator) == CUREDUCE_STATUS_OK);
    ck_assert_int_eq(accumulator, table[i].accumulator);
    ck_assert(cureduce_check_types(table[i].op, table[i].input, table[i].accumulator) == CUREDUCE_STATUS_OK);
    ck_assert(cureduce_check_types(table[i].op, table[i].input, table[i].input) == CUREDUCE_STATUS_OK);
  }
  ck_assert(cureduce_check_types(CUREDUCE_OP_SUM, CUREDUCE_F16, CUREDUCE_F64) == CUREDUCE_STATUS_UNSUPPORTED);
  ck_assert(strstr(cureduce_last_error_detail(), "sum of f16 may give f16 or f32, not f64"));
  ck_assert(cureduce_check_types(CUREDUCE_OP_MAX, CUREDUCE_I8, CUREDUCE_I64) == CUREDUCE_STATUS_UNSUPPORTED);
  ck_assert(cureduce_check_types(CUREDUCE_OP_EXACT_SUM, CUREDUCE_I32, CUREDUCE_I64) == CUREDUCE_STATUS_UNSUPPORTED);
  ck_assert(strstr(cureduce_last_error_detail(), "exact_sum takes float inputs; a sum of i32 is exact already"));
  ck_assert(cureduce_check_types(CUREDUCE_OP_EXACT_SUM, CUREDUCE_F32, CUREDUCE_F64) == CUREDUCE_STATUS_UNSUPPORTED);
  ck_assert(cureduce_check_types(CUREDUCE_OP_EXACT_SUM, CUREDUCE_F16, CUREDUCE_I64) == CUREDUCE_STATUS_OK);
  ck_assert(cureduce_check_types(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_I64) == CUREDUCE_STATUS_UNSUPPORTED);
  ck_assert(cureduce_check_types(CUREDUCE_OP_COUNT, CUREDUCE_F32, CUREDUCE_F32) == CUREDUCE_STATUS_UNSUPPORTED);
  ck_assert(cureduce_check_types(CUREDUCE_OP_SUM, (cureduce_dtype)10, CUREDUCE_F32) == CUREDUCE_STATUS_UNSUPPORTED);
  ck_assert_ptr_null(cureduce_dtype_name((cureduce_dtype)-1));
  ck_assert_uint_eq(cureduce_dtype_size(CUREDUCE_BF16), 2);
  ck_assert_uint_eq(cureduce_dtype_size((cureduce_dtype)10), 0);
  ck_assert_str_eq(cureduce_op_name(CUREDUCE_OP_ARGMIN), "argmin");
  ck_assert_uint_eq(sizeof(cureduce_value), 24);
  ck_assert_str_eq(cureduce_op_name(CUREDUCE_OP_SAMPLE_VARIANCE), "sample_variance");
  ck_assert_str_eq(cureduce_op_name(CUREDUCE_OP_LOGSUMEXP), "logsumexp");
  cureduce_dtype accumulator;
  ck_assert(cureduce_accumulator_type(CUREDUCE_OP_VARIANCE, CUREDUCE_BF16, &accumulator) == CUREDUCE_STATUS_OK &&
            accumulator == CUREDUCE_F64);
  ck_assert(cureduce_accumulator_type(CUREDUCE_OP_LOGSUMEXP, CUREDUCE_F16, &accumulator) == CUREDUCE_STATUS_OK &&
            accumulator == CUREDUCE_F32);
  ck_assert(cureduce_check_types(CUREDUCE_OP_MEAN, CUREDUCE_I32, CUREDUCE_F64) == CUREDUCE_STATUS_UNSUPPORTED);
  ck_assert(strstr(cureduce_last_error_detail(), "mean takes float inputs, not i32"));
  ck_assert(cureduce_check_types(CUREDUCE_OP_LOGSUMEXP, CUREDUCE_F32, CUREDUCE_F64) == CUREDUCE_STATUS_UNSUPPORTED);
  ck_assert(cureduce_check_types(CUREDUCE_OP_SAMPLE_STD, CUREDUCE_F16, CUREDUCE_F16) == CUREDUCE_STATUS_OK);
}
END_TEST

/* Each bad call and the status it must get; none needs a context, so each also passes NULL. */
/* Words of an f32 exact partial (2^-149 the lowest bit: digit d is worth 2^(32 d - 149)), rounded
 * on the host, and its refusals. */
static cureduce_value round_partial(const int64_t *words, cureduce_dtype input, cureduce_dtype output) {
  cureduce_value value;
  ck_assert_msg(cureduce_exact_partial_round(words, input, output, &value) == CUREDUCE_STATUS_OK, "%s",
                cureduce_last_error_detail());
  ck_assert_int_eq(value.index, -1);
  return value;
}

START_TEST(test_exact_partial_round) {
  ck_assert_uint_eq(cureduce_exact_partial_words(CUREDUCE_F32), 35);
  ck_assert_uint_eq(cureduce_exact_partial_words(CUREDUCE_F64), 99);
  ck_assert_uint_eq(cureduce_exact_partial_words(CUREDUCE_I32), 0);
  ck_assert_uint_eq(cureduce_exact_partial_words((cureduce_dtype)99), 0);
  int64_t words[99] = {0};
  words[5] = 7; /* 7 * 2^(160 - 149) */
  ck_assert(round_partial(words, CUREDUCE_F32, CUREDUCE_F32).value.f32 == 14336.0f);
  words[5] = 4, words[4] = (int64_t)3 << 32; /* the same, a carry not yet made */
  ck_assert(round_partial(words, CUREDUCE_F32, CUREDUCE_F32).value.f32 == 14336.0f);
  words[5] = -8, words[4] = (int64_t)1 << 32; /* negative: -7 * 2^11 */
  ck_assert(round_partial(words, CUREDUCE_F32, CUREDUCE_F32).value.f32 == -14336.0f);
  memset(words, 0, sizeof words); /* f16: the lowest bit is 2^-24 */
  words[0] = (int64_t)2049 << 24; /* 2049, a tie in f16's 11 bits: to even, 2048 = 0x6800 */
  ck_assert_uint_eq(round_partial(words, CUREDUCE_F16, CUREDUCE_F16).value.f16_bits, 0x6800);
  ck_assert(round_partial(words, CUREDUCE_F16, CUREDUCE_F32).value.f32 == 2049.0f);
  words[0] = (int64_t)2051 << 24; /* up to 2052 = 0x6802 */
  ck_assert_uint_eq(round_partial(words, CUREDUCE_F16, CUREDUCE_F16).value.f16_bits, 0x6802);
  words[0] = -1; /* -2^-24: the smallest subnormal */
  ck_assert_uint_eq(round_partial(words, CUREDUCE_F16, CUREDUCE_F16).value.f16_bits, 0x8001);
  memset(words, 0, sizeof words); /* bf16: the lowest bit is 2^-133, bf16's smallest subnormal */
  words[0] = 3;
  ck_assert_uint_eq(round_partial(words, CUREDUCE_BF16, CUREDUCE_BF16).value.bf16_bits, 0x0003);
  ck_assert(round_partial(words, CUREDUCE_BF16, CUREDUCE_F32).value.f32 == ldexpf(3.0f, -133));
  memset(words, 0, sizeof words);
  ck_assert(round_partial(words, CUREDUCE_F64, CUREDUCE_F64).value.f64 == 0.0);
  ck_assert(!signbit(round_partial(words, CUREDUCE_F64, CUREDUCE_F64).value.f64)); /* +0 */
  words[96 + 1] = 2; /* +infinities */
  ck_assert(isinf(round_partial(words, CUREDUCE_F64, CUREDUCE_F64).value.f64));
  words[96 + 2] = 1; /* and a -infinity */
  ck_assert(isnan(round_partial(words, CUREDUCE_F64, CUREDUCE_F64).value.f64));
  words[96 + 2] = -1;
  cureduce_value value;
  ck_assert(cureduce_exact_partial_round(words, CUREDUCE_F64, CUREDUCE_F64, &value) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  ck_assert(strstr(cureduce_last_error_detail(), "word 98 counts special values and is -1"));
  ck_assert(cureduce_exact_partial_round(NULL, CUREDUCE_F32, CUREDUCE_F32, &value) == CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(cureduce_exact_partial_round(words, CUREDUCE_F32, CUREDUCE_F32, NULL) == CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(cureduce_exact_partial_round(words, CUREDUCE_F32, CUREDUCE_I64, &value) == CUREDUCE_STATUS_UNSUPPORTED);
  ck_assert(cureduce_exact_partial_round(words, CUREDUCE_F32, CUREDUCE_F64, &value) == CUREDUCE_STATUS_UNSUPPORTED);
  ck_assert(cureduce_exact_partial_round(words, CUREDUCE_I32, CUREDUCE_I64, &value) == CUREDUCE_STATUS_UNSUPPORTED);
}
END_TEST

START_TEST(test_argument_checks) {
  float device_like[8] = {0};
  const void *aligned = device_like, *misaligned = (const char *)device_like + 2;
  void *out = device_like;
  static const char *const expected_name[] = {
      "CUREDUCE_STATUS_UNSUPPORTED",        "CUREDUCE_STATUS_UNSUPPORTED",   "CUREDUCE_STATUS_NULL_POINTER",
      "CUREDUCE_STATUS_NULL_POINTER",       "CUREDUCE_STATUS_MISALIGNED_POINTER",
      "CUREDUCE_STATUS_MISALIGNED_POINTER", "CUREDUCE_STATUS_EMPTY_INPUT",   "CUREDUCE_STATUS_INVALID_ARGUMENT",
      "CUREDUCE_STATUS_NULL_POINTER",       "CUREDUCE_STATUS_MISALIGNED_POINTER", "CUREDUCE_STATUS_EMPTY_INPUT",
  };
  cureduce_status got[] = {
      cureduce_reduce(NULL, CUREDUCE_OP_MIN, CUREDUCE_I8, aligned, 4, CUREDUCE_I64, out, NULL),
      cureduce_reduce(NULL, (cureduce_op)42, CUREDUCE_F32, aligned, 4, CUREDUCE_F32, out, NULL),
      cureduce_reduce(NULL, CUREDUCE_OP_SUM, CUREDUCE_F32, NULL, 4, CUREDUCE_F32, out, NULL),
      cureduce_reduce(NULL, CUREDUCE_OP_SUM, CUREDUCE_F32, aligned, 4, CUREDUCE_F32, NULL, NULL),
      cureduce_reduce(NULL, CUREDUCE_OP_SUM, CUREDUCE_F32, misaligned, 4, CUREDUCE_F32, out, NULL),
      cureduce_reduce(NULL, CUREDUCE_OP_ARGMAX, CUREDUCE_F32, aligned, 4, CUREDUCE_F32, (char *)out + 4, NULL),
      cureduce_reduce(NULL, CUREDUCE_OP_MAX, CUREDUCE_F32, aligned, 0, CUREDUCE_F32, out, NULL),
      cureduce_reduce(NULL, CUREDUCE_OP_SUM, CUREDUCE_F64, aligned, SIZE_MAX / 4, CUREDUCE_F64, out, NULL),
      cureduce_reduce(NULL, CUREDUCE_OP_SUM, CUREDUCE_F32, aligned, (size_t)1 << 33, CUREDUCE_F32, out, NULL),
      /* a variance's result, a whole cureduce_value, is 8-byte aligned; its f16 output type is not enough */
      cureduce_reduce(NULL, CUREDUCE_OP_VARIANCE, CUREDUCE_F16, aligned, 4, CUREDUCE_F16, (char *)out + 2, NULL),
      cureduce_reduce(NULL, CUREDUCE_OP_SAMPLE_STD, CUREDUCE_F32, aligned, 0, CUREDUCE_F32, out, NULL),
  };
  for (size_t i = 0; i < sizeof got / sizeof got[0]; i++)
    ck_assert_msg(strcmp(cureduce_status_name(got[i]), expected_name[i]) == 0, "case %zu: %s, want %s", i,
                  cureduce_status_name(got[i]), expected_name[i]);
  /* Sizes past 2^32 are valid arguments: that case fails only for want of a context. */
  ck_assert(cureduce_reduce(NULL, CUREDUCE_OP_SUM, CUREDUCE_F32, aligned, (size_t)1 << 33, CUREDUCE_F32, out, NULL) ==
            CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(strstr(cureduce_last_error_detail(), "context must not be NULL"));
  ck_assert(cureduce_reduce_to_host(NULL, CUREDUCE_OP_SUM, CUREDUCE_F32, aligned, 4, CUREDUCE_F32, NULL, NULL) ==
            CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(cureduce_release_stream(NULL, NULL) == CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(cureduce_tune(NULL, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 256, 1024, 1) == CUREDUCE_STATUS_NULL_POINTER);
  /* Problems to tune: each checked before the context, a segments problem needs a length, a whole
   * array elements. */
  cureduce_problem shapes[3];
  cureduce_problem_init_matrix(&shapes[0], CUREDUCE_LAYOUT_ROWS, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 64, 8, 8);
  cureduce_problem_init_segments(&shapes[1], CUREDUCE_OP_MAX, CUREDUCE_I8, CUREDUCE_I8, 10);
  cureduce_problem_init(&shapes[2], CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 1000);
  ck_assert(cureduce_tune_problems(NULL, shapes, 2, 100, 1) == CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(strstr(cureduce_last_error_detail(), "context must not be NULL"));
  ck_assert(cureduce_tune_problems(NULL, shapes, 2, 0, 1) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  ck_assert(strstr(cureduce_last_error_detail(), "segments need a length"));
  ck_assert(cureduce_tune_problems(NULL, shapes, 3, 100, 1) == CUREDUCE_STATUS_NULL_POINTER); /* whole arrays too */
  shapes[2].n = 0;
  ck_assert(cureduce_tune_problems(NULL, shapes, 3, 100, 1) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  ck_assert(strstr(cureduce_last_error_detail(), "a whole array to tune needs elements"));
  ck_assert(cureduce_tune_problems(NULL, NULL, 1, 0, 1) == CUREDUCE_STATUS_NULL_POINTER);
  shapes[0].op = CUREDUCE_OP_EXACT_SUM; /* of rows and columns: taken; into exact partials: not */
  ck_assert(cureduce_tune_problems(NULL, shapes, 1, 0, 1) == CUREDUCE_STATUS_NULL_POINTER);
  shapes[0].layout = CUREDUCE_LAYOUT_COLUMNS;
  ck_assert(cureduce_tune_problems(NULL, shapes, 1, 0, 1) == CUREDUCE_STATUS_NULL_POINTER);
  shapes[0].output_type = CUREDUCE_I64;
  ck_assert(cureduce_tune_problems(NULL, shapes, 1, 0, 1) == CUREDUCE_STATUS_UNSUPPORTED);
  ck_assert(cureduce_context_create(NULL, NULL) == CUREDUCE_STATUS_NULL_POINTER);
  cureduce_context_destroy(NULL);
}
END_TEST

/* The plan calls' checks that need no device; the problem is checked before the context, so a
 * NULL context shows each. */
START_TEST(test_plan_argument_checks) {
  ck_assert_uint_eq(sizeof(cureduce_problem), 120); /* the ABI: later fields come out of reserved */
  cureduce_problem problem, bad;
  cureduce_problem_init(NULL, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 8);
  cureduce_problem_init(&problem, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 8);
  ck_assert(problem.layout == CUREDUCE_LAYOUT_CONTIGUOUS && problem.n == 8);
  cureduce_plan *plan = NULL;
  bad = problem;
  bad.reserved[17] = 1;
  ck_assert(cureduce_plan_create(&plan, NULL, &bad, NULL) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  ck_assert(strstr(cureduce_last_error_detail(), "reserved byte 17"));
  bad = problem;
  bad.layout = (cureduce_layout)7;
  ck_assert(cureduce_plan_create(&plan, NULL, &bad, NULL) == CUREDUCE_STATUS_UNSUPPORTED);
  cureduce_problem_init(&bad, CUREDUCE_OP_MIN, CUREDUCE_I8, CUREDUCE_I64, 8);
  ck_assert(cureduce_plan_create(&plan, NULL, &bad, NULL) == CUREDUCE_STATUS_UNSUPPORTED);
  cureduce_problem_init(&bad, CUREDUCE_OP_ARGMAX, CUREDUCE_F32, CUREDUCE_F32, 0);
  ck_assert(cureduce_plan_create(&plan, NULL, &bad, NULL) == CUREDUCE_STATUS_EMPTY_INPUT);
  cureduce_problem empty;
  cureduce_problem_init(&empty, CUREDUCE_OP_MEAN, CUREDUCE_F32, CUREDUCE_F32, 0); /* no value: not 0/0 */
  ck_assert(cureduce_plan_create(&plan, NULL, &empty, NULL) == CUREDUCE_STATUS_EMPTY_INPUT);
  cureduce_problem_init(&empty, CUREDUCE_OP_LOGSUMEXP, CUREDUCE_F32, CUREDUCE_F32, 0); /* -inf, with a context */
  ck_assert(cureduce_plan_create(&plan, NULL, &empty, NULL) == CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(cureduce_plan_create(&plan, NULL, NULL, NULL) == CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(cureduce_plan_create(NULL, NULL, &problem, NULL) == CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(cureduce_plan_create(&plan, NULL, &problem, "sum:f32->f32/single_pass/b256/u4/v16/g8") ==
            CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(strstr(cureduce_last_error_detail(), "context must not be NULL"));
  ck_assert_ptr_null(plan);
  cureduce_plan_destroy(NULL);
  size_t bytes, alignment;
  ck_assert(cureduce_plan_workspace_size(NULL, &bytes, &alignment) == CUREDUCE_STATUS_NULL_POINTER);
  cureduce_plan_info info;
  ck_assert(cureduce_plan_describe(NULL, &info) == CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(cureduce_plan_execute(NULL, NULL, NULL, NULL, 0, NULL) == CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(cureduce_precompile(NULL, NULL, 1) == CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(cureduce_precompile(NULL, &bad, 1) == CUREDUCE_STATUS_EMPTY_INPUT);
  ck_assert(cureduce_precompile(NULL, &problem, 1) == CUREDUCE_STATUS_NULL_POINTER);
}
END_TEST

/* Shaped problems' checks that need no device: each bad field gets its own status and words. */
START_TEST(test_shaped_problem_checks) {
  cureduce_problem rows, bad;
  cureduce_problem_init_matrix(&rows, CUREDUCE_LAYOUT_ROWS, CUREDUCE_OP_ARGMAX, CUREDUCE_F32, CUREDUCE_F32, 10, 4, 5);
  ck_assert(rows.rows == 10 && rows.cols == 4 && rows.leading_dimension == 5 && rows.n == 0);
  ck_assert_uint_eq(cureduce_problem_results(&rows), 10);
  ck_assert_uint_eq(cureduce_result_bytes(CUREDUCE_OP_ARGMAX, CUREDUCE_F32), 16);
  ck_assert_uint_eq(cureduce_result_bytes(CUREDUCE_OP_STD, CUREDUCE_F16), 24); /* a whole cureduce_value */
  ck_assert_uint_eq(cureduce_result_bytes(CUREDUCE_OP_MEAN, CUREDUCE_F16), 2);
  ck_assert_uint_eq(cureduce_result_bytes(CUREDUCE_OP_SUM, CUREDUCE_F16), 2);
  ck_assert_uint_eq(cureduce_result_bytes(CUREDUCE_OP_COUNT, CUREDUCE_F16), 0);
  cureduce_plan *plan = NULL;
  ck_assert(cureduce_plan_create(&plan, NULL, &rows, NULL) == CUREDUCE_STATUS_NULL_POINTER); /* only the context */
  bad = rows, bad.leading_dimension = 3;
  ck_assert(cureduce_plan_create(&plan, NULL, &bad, NULL) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  ck_assert(strstr(cureduce_last_error_detail(), "rows would overlap"));
  bad = rows, bad.rows = 1ull << 40, bad.leading_dimension = 1ull << 30;
  ck_assert(cureduce_plan_create(&plan, NULL, &bad, NULL) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  ck_assert(strstr(cureduce_last_error_detail(), "past 2^64"));
  /* 2^64 bytes bound the matrix, not 2^64 elements: a row of 2^62 f32, or rows 2^62 apart */
  bad = rows, bad.rows = 1, bad.cols = bad.leading_dimension = 1ull << 62;
  ck_assert(cureduce_plan_create(&plan, NULL, &bad, NULL) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  ck_assert(strstr(cureduce_last_error_detail(), "past 2^64 bytes"));
  bad.cols = 4, bad.rows = 5;
  ck_assert(cureduce_plan_create(&plan, NULL, &bad, NULL) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  ck_assert(strstr(cureduce_last_error_detail(), "past 2^64 bytes"));
  bad.leading_dimension = (1ull << 62) - 1, bad.rows = 1; /* within: one row, its pitch 2^64 - 4 bytes */
  ck_assert(cureduce_plan_create(&plan, NULL, &bad, NULL) == CUREDUCE_STATUS_NULL_POINTER); /* only the context */
  bad = rows, bad.n = 40;
  ck_assert(cureduce_plan_create(&plan, NULL, &bad, NULL) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  bad = rows, bad.op = CUREDUCE_OP_EXACT_SUM; /* rows, columns and segments, rounded to a float type */
  ck_assert(cureduce_plan_create(&plan, NULL, &bad, NULL) == CUREDUCE_STATUS_NULL_POINTER);
  bad.layout = CUREDUCE_LAYOUT_COLUMNS;
  ck_assert(cureduce_plan_create(&plan, NULL, &bad, NULL) == CUREDUCE_STATUS_NULL_POINTER);
  bad.output_type = CUREDUCE_I64;
  ck_assert(cureduce_plan_create(&plan, NULL, &bad, NULL) == CUREDUCE_STATUS_UNSUPPORTED);
  ck_assert(strstr(cureduce_last_error_detail(), "exact partials (exact_sum into i64) are of whole arrays only"));
  cureduce_problem_init(&bad, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 8);
  bad.cols = 2;
  ck_assert(cureduce_plan_create(&plan, NULL, &bad, NULL) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  cureduce_problem segments;
  cureduce_problem_init_segments(&segments, CUREDUCE_OP_MIN, CUREDUCE_I8, CUREDUCE_I8, 7);
  ck_assert_uint_eq(cureduce_problem_results(&segments), 7);
  bad = segments, bad.cols = 3;
  ck_assert(cureduce_plan_create(&plan, NULL, &bad, NULL) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  /* Empty rows are not an error, unlike an empty contiguous min: they give the identity. */
  cureduce_problem empty;
  cureduce_problem_init_matrix(&empty, CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_OP_MIN, CUREDUCE_F32, CUREDUCE_F32, 0, 8, 8);
  ck_assert(cureduce_plan_create(&plan, NULL, &empty, NULL) == CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(cureduce_plan_execute_segments(NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL) == CUREDUCE_STATUS_NULL_POINTER);
  ck_assert_ptr_null(plan);
}
END_TEST

/* Which (operation, transform, input, output) a transform takes, and what a problem with one says. */
START_TEST(test_transform_types) {
  static const struct {
    cureduce_op op;
    cureduce_transform transform;
    cureduce_dtype input, output;
    cureduce_status status;
  } table[] = {
      {CUREDUCE_OP_SUM, CUREDUCE_TRANSFORM_ABS, CUREDUCE_F32, CUREDUCE_F32, CUREDUCE_STATUS_OK},       /* L1 */
      {CUREDUCE_OP_MAX, CUREDUCE_TRANSFORM_ABS, CUREDUCE_BF16, CUREDUCE_BF16, CUREDUCE_STATUS_OK},     /* amax */
      {CUREDUCE_OP_ARGMAX, CUREDUCE_TRANSFORM_ABS, CUREDUCE_F64, CUREDUCE_F64, CUREDUCE_STATUS_OK},    /* i?amax */
      {CUREDUCE_OP_SUM, CUREDUCE_TRANSFORM_SQUARE, CUREDUCE_F16, CUREDUCE_F32, CUREDUCE_STATUS_OK},
      {CUREDUCE_OP_SUM, CUREDUCE_TRANSFORM_SQUARE, CUREDUCE_F16, CUREDUCE_F16, CUREDUCE_STATUS_OK},
      {CUREDUCE_OP_MAX, CUREDUCE_TRANSFORM_SQUARE, CUREDUCE_BF16, CUREDUCE_F32, CUREDUCE_STATUS_OK},   /* squares are f32 */
      {CUREDUCE_OP_SUM, CUREDUCE_TRANSFORM_SQUARE, CUREDUCE_F32, CUREDUCE_F64, CUREDUCE_STATUS_UNSUPPORTED},
      {CUREDUCE_OP_SUM, CUREDUCE_TRANSFORM_NONZERO, CUREDUCE_F32, CUREDUCE_U64, CUREDUCE_STATUS_OK},   /* count */
      {CUREDUCE_OP_SUM, CUREDUCE_TRANSFORM_NONZERO, CUREDUCE_F64, CUREDUCE_F64, CUREDUCE_STATUS_OK},
      {CUREDUCE_OP_MAX, CUREDUCE_TRANSFORM_NONZERO, CUREDUCE_F16, CUREDUCE_U8, CUREDUCE_STATUS_OK},    /* any */
      {CUREDUCE_OP_SUM, CUREDUCE_TRANSFORM_NONZERO, CUREDUCE_F32, CUREDUCE_U8, CUREDUCE_STATUS_UNSUPPORTED},
      {CUREDUCE_OP_SUM, CUREDUCE_TRANSFORM_ABS, CUREDUCE_I32, CUREDUCE_I64, CUREDUCE_STATUS_UNSUPPORTED}, /* floats only */
      {CUREDUCE_OP_EXACT_SUM, CUREDUCE_TRANSFORM_ABS, CUREDUCE_F32, CUREDUCE_F32, CUREDUCE_STATUS_UNSUPPORTED},
      {CUREDUCE_OP_SUM, CUREDUCE_TRANSFORM_COUNT, CUREDUCE_F32, CUREDUCE_F32, CUREDUCE_STATUS_UNSUPPORTED},
      {CUREDUCE_OP_SUM, CUREDUCE_TRANSFORM_NONE, CUREDUCE_F32, CUREDUCE_F64, CUREDUCE_STATUS_UNSUPPORTED},
      {CUREDUCE_OP_NORM2, CUREDUCE_TRANSFORM_NONE, CUREDUCE_F32, CUREDUCE_F64, CUREDUCE_STATUS_OK}, /* in f64 */
      {CUREDUCE_OP_NORM2, CUREDUCE_TRANSFORM_NONE, CUREDUCE_BF16, CUREDUCE_BF16, CUREDUCE_STATUS_OK},
      {CUREDUCE_OP_NORM2, CUREDUCE_TRANSFORM_NONE, CUREDUCE_F32, CUREDUCE_F16, CUREDUCE_STATUS_UNSUPPORTED},
      {CUREDUCE_OP_NORM2, CUREDUCE_TRANSFORM_NONE, CUREDUCE_I32, CUREDUCE_F64, CUREDUCE_STATUS_UNSUPPORTED},
      {CUREDUCE_OP_NORM2, CUREDUCE_TRANSFORM_ABS, CUREDUCE_F64, CUREDUCE_F64, CUREDUCE_STATUS_OK},
      {CUREDUCE_OP_NORM2, CUREDUCE_TRANSFORM_NONZERO, CUREDUCE_F32, CUREDUCE_F64, CUREDUCE_STATUS_UNSUPPORTED},
      {CUREDUCE_OP_SUM, CUREDUCE_TRANSFORM_PRODUCT, CUREDUCE_BF16, CUREDUCE_F32, CUREDUCE_STATUS_OK}, /* dot, in f32 */
      {CUREDUCE_OP_SUM, CUREDUCE_TRANSFORM_PRODUCT, CUREDUCE_F64, CUREDUCE_F64, CUREDUCE_STATUS_OK},
      {CUREDUCE_OP_SUM, CUREDUCE_TRANSFORM_PRODUCT, CUREDUCE_I32, CUREDUCE_I64, CUREDUCE_STATUS_UNSUPPORTED},
      {CUREDUCE_OP_EXACT_SUM, CUREDUCE_TRANSFORM_PRODUCT, CUREDUCE_F32, CUREDUCE_F32, CUREDUCE_STATUS_UNSUPPORTED},
      {CUREDUCE_OP_ARGMAX, CUREDUCE_TRANSFORM_PAIR_EXPRESSION, CUREDUCE_F16, CUREDUCE_F32, CUREDUCE_STATUS_OK},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    cureduce_status got =
        cureduce_check_transform_types(table[i].op, table[i].transform, table[i].input, table[i].output);
    ck_assert_msg(got == table[i].status, "row %zu: %s (%s)", i, cureduce_status_name(got), cureduce_last_error_detail());
  }
  ck_assert_str_eq(cureduce_transform_name(CUREDUCE_TRANSFORM_NONZERO), "nonzero");
  ck_assert_ptr_null(cureduce_transform_name(CUREDUCE_TRANSFORM_COUNT));
  /* A problem says the same before any context is needed. */
  cureduce_problem problem;
  cureduce_plan *plan = NULL;
  cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_ROWS, CUREDUCE_OP_SUM, CUREDUCE_I8, CUREDUCE_I64, 4, 4, 4);
  problem.transform = CUREDUCE_TRANSFORM_ABS;
  ck_assert(cureduce_plan_create(&plan, NULL, &problem, NULL) == CUREDUCE_STATUS_UNSUPPORTED);
  ck_assert(strstr(cureduce_last_error_detail(), "transforms take float inputs"));
  cureduce_problem_init(&problem, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_U64, 4);
  problem.transform = (cureduce_transform)9;
  ck_assert(cureduce_plan_create(&plan, NULL, &problem, NULL) == CUREDUCE_STATUS_UNSUPPORTED);
  problem.transform = CUREDUCE_TRANSFORM_NONZERO;
  ck_assert(cureduce_plan_create(&plan, NULL, &problem, NULL) == CUREDUCE_STATUS_NULL_POINTER); /* only the context */
  /* Maps of two inputs take every layout, and cureduce_plan_execute_pair (_segments). */
  cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_ROWS, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 4, 4, 4);
  problem.transform = CUREDUCE_TRANSFORM_PRODUCT;
  ck_assert(cureduce_plan_create(&plan, NULL, &problem, NULL) == CUREDUCE_STATUS_NULL_POINTER); /* only the context */
  cureduce_problem_init(&problem, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 4);
  problem.transform = CUREDUCE_TRANSFORM_PRODUCT;
  ck_assert(cureduce_plan_create(&plan, NULL, &problem, NULL) == CUREDUCE_STATUS_NULL_POINTER); /* only the context */
  float x[4];
  ck_assert(cureduce_plan_execute_pair(NULL, x, x, x, NULL, 0, NULL) == CUREDUCE_STATUS_NULL_POINTER);
  int64_t offsets[1] = {0};
  ck_assert(cureduce_plan_execute_pair_segments(NULL, x, x, offsets, offsets, x, NULL, 0, NULL) ==
            CUREDUCE_STATUS_NULL_POINTER);
  ck_assert(cureduce_tune_problems(NULL, &problem, 1, 0, 1) == CUREDUCE_STATUS_NULL_POINTER); /* only the context */
  ck_assert_ptr_null(plan);
}
END_TEST

/* A user map must be one expression: every form that could be more is refused before any compile,
 * and the expression goes with its transform only. */
START_TEST(test_expression_checks) {
  static const char *const refused[] = {
      "x; asm(\"trap;\")", "x }", "{ x }", "#include <cstdio>\nx", "x // comment", "x /* comment */",
      "\"text\"[0]", "'a'", "x \\\n+ 1", "", "   \n", "x\x01", "x \xc3\xa9",
  };
  cureduce_problem problem;
  cureduce_plan *plan = NULL;
  cureduce_problem_init(&problem, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 100);
  problem.transform = CUREDUCE_TRANSFORM_EXPRESSION;
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    problem.expression = refused[i];
    ck_assert_msg(cureduce_plan_create(&plan, NULL, &problem, NULL) == CUREDUCE_STATUS_INVALID_ARGUMENT,
                  "'%s' was not refused", refused[i]);
  }
  char long_text[1100];
  memset(long_text, 'x', 1025), long_text[1025] = '\0';
  problem.expression = long_text;
  ck_assert(cureduce_plan_create(&plan, NULL, &problem, NULL) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  ck_assert(strstr(cureduce_last_error_detail(), "more than 1024"));
  problem.expression = NULL;
  ck_assert(cureduce_plan_create(&plan, NULL, &problem, NULL) == CUREDUCE_STATUS_NULL_POINTER);
  problem.expression = "x * x", problem.transform = CUREDUCE_TRANSFORM_ABS; /* text without its transform */
  ck_assert(cureduce_plan_create(&plan, NULL, &problem, NULL) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  problem.transform = CUREDUCE_TRANSFORM_EXPRESSION, problem.input_type = CUREDUCE_I32;
  problem.output_type = CUREDUCE_I64;
  ck_assert(cureduce_plan_create(&plan, NULL, &problem, NULL) == CUREDUCE_STATUS_UNSUPPORTED);
  cureduce_problem_init(&problem, CUREDUCE_OP_MAX, CUREDUCE_BF16, CUREDUCE_F32, 100); /* maps are f32 for bf16 */
  problem.transform = CUREDUCE_TRANSFORM_EXPRESSION, problem.expression = "fabsf(x - 1.0f) > 2.0f ? x : -x";
  ck_assert(cureduce_plan_create(&plan, NULL, &problem, NULL) == CUREDUCE_STATUS_NULL_POINTER); /* only the context */
  ck_assert_ptr_null(plan);
}
END_TEST

START_TEST(test_error_detail_says_where) {
  cureduce_reduce(NULL, CUREDUCE_OP_SUM, CUREDUCE_F32, (void *)2, 4, CUREDUCE_F32, (void *)16, NULL);
  const char *detail = cureduce_last_error_detail();
  ck_assert_msg(strstr(detail, "CUREDUCE_STATUS_MISALIGNED_POINTER: problem.c:") && strstr(detail, "[(uintptr_t)input"),
                "detail: %s", detail);
  ck_assert(cureduce_check_types(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32) == CUREDUCE_STATUS_OK);
}
END_TEST

START_TEST(test_settings) {
  cureduce_settings settings;
  memset(&settings, 0x5a, sizeof settings);
  cureduce_default_settings(&settings);
  ck_assert_int_eq(settings.device, 0);
  ck_assert_int_eq(settings.disk_cache, 1);
  ck_assert_uint_eq(settings.max_streams, 16);
  ck_assert_int_eq(settings.check_pointers, 1);
  ck_assert_ptr_null(settings.cache_dir);
  for (size_t i = 0; i < sizeof settings.reserved; i++)
    ck_assert_int_eq(settings.reserved[i], 0);
  cureduce_context *context = NULL;
  settings.reserved[3] = 1;
  ck_assert(cureduce_context_create(&context, &settings) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  cureduce_default_settings(&settings);
  settings.max_streams = 0;
  ck_assert(cureduce_context_create(&context, &settings) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  cureduce_default_settings(&settings);
  ck_assert_int_eq(settings.tuning, CUREDUCE_TUNING_CACHED);
  settings.tuning = (cureduce_tuning)7;
  ck_assert(cureduce_context_create(&context, &settings) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  cureduce_default_settings(&settings);
  settings.device = -1;
  ck_assert(cureduce_context_create(&context, &settings) == CUREDUCE_STATUS_NO_DEVICE);
  ck_assert_ptr_null(context);
}
END_TEST

START_TEST(test_log_level_from_environment) {
  cureduce_settings settings;
  setenv("CUREDUCE_LOG", "debug", 1);
  cureduce_default_settings(&settings);
  ck_assert_int_eq(settings.log_level, CUREDUCE_LOG_DEBUG);
  setenv("CUREDUCE_LOG", "DEBUG", 1); /* any case */
  cureduce_default_settings(&settings);
  ck_assert_int_eq(settings.log_level, CUREDUCE_LOG_DEBUG);
  setenv("CUREDUCE_LOG", "Info", 1);
  cureduce_default_settings(&settings);
  ck_assert_int_eq(settings.log_level, CUREDUCE_LOG_INFO);
  setenv("CUREDUCE_LOG", "nonsense", 1); /* warned about once, on stderr */
  cureduce_default_settings(&settings);
  ck_assert_int_eq(settings.log_level, CUREDUCE_LOG_WARN);
  cureduce_default_settings(&settings);
  unsetenv("CUREDUCE_LOG");
}
END_TEST

/* A missing driver is a status with the reason, not a crash at load time. Runs in its own
 * forked process, so the driver was never loaded before. */
START_TEST(test_missing_driver_is_a_status) {
  setenv("CUREDUCE_DRIVER_LIB", "/nonexistent/libcuda.so.1", 1);
  cureduce_context *context = NULL;
  ck_assert(cureduce_context_create(&context, NULL) == CUREDUCE_STATUS_NO_DRIVER);
  ck_assert(strstr(cureduce_last_error_detail(), "/nonexistent/libcuda.so.1"));
  ck_assert_ptr_null(context);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("api");
  TCase *api = tcase_create("api");
  tcase_add_test(api, test_status_numbers_are_pinned);
  tcase_add_test(api, test_version);
  tcase_add_test(api, test_types_and_accumulators);
  tcase_add_test(api, test_exact_partial_round);
  tcase_add_test(api, test_argument_checks);
  tcase_add_test(api, test_plan_argument_checks);
  tcase_add_test(api, test_error_detail_says_where);
  tcase_add_test(api, test_shaped_problem_checks);
  tcase_add_test(api, test_transform_types);
  tcase_add_test(api, test_expression_checks);
  tcase_add_test(api, test_settings);
  tcase_add_test(api, test_log_level_from_environment);
  tcase_add_test(api, test_missing_driver_is_a_status);
  suite_add_tcase(suite, api);
  return harness_run(suite, false);
}
