/* NVRTC compiles the production strategy for every (operation, input, output), every transform
 * on whole arrays and in each shaped family, and every rung of the ladder, for one architecture
 * (argv[1], e.g. 90) into a CUBIN, with no GPU; and a kernel that does not compile fails with
 * NVRTC's log and the numbered source in the error detail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "compiler.h"
#include "dtype.h"
#include "harness.h"
#include "build.h"
#include "kcache.h"
#include "problem.h"
#include "templates.h"
#include "shape.h"
#include "spec.h"
#include "tune.h"

static int tested_arch;
static const cureduce_logger quiet = {CUREDUCE_LOG_WARN, NULL, NULL};

static void compile_or_fail(const cureduce_spec *spec, cureduce_diskcache *memory_only) {
  cureduce_binary binary;
  cureduce_status status = cureduce_build_kernel(spec, tested_arch, memory_only, &quiet, &binary);
  ck_assert_msg(status == CUREDUCE_STATUS_OK, "%s", cureduce_last_error_detail());
  ck_assert_msg(binary.is_cubin && binary.size > 64 && memcmp(binary.data, "\x7f" "ELF", 4) == 0,
                "sm_%d did not give a CUBIN", tested_arch);
  free(binary.data);
}

/* The production strategy for every (operation, input, output), exact partials (i64) and norm2
 * included. */
START_TEST(test_every_production_kernel_compiles) {
  cureduce_op op = (cureduce_op)_i;
  cureduce_diskcache memory_only;
  cureduce_diskcache_open(&memory_only, NULL, &quiet);
  for (int input = 0; input < CUREDUCE_DTYPE_COUNT; input++) {
    cureduce_dtype accumulator;
    if (cureduce_accumulator_type(op, (cureduce_dtype)input, &accumulator) != CUREDUCE_STATUS_OK) {
      /* exact sums, norms, moments and logsumexp take floats only */
      ck_assert(cureduce_op_is_float_only(op) && input > CUREDUCE_F64);
      continue;
    }
    for (int output = 0; output < CUREDUCE_DTYPE_COUNT; output++)
      if (cureduce_check_types(op, (cureduce_dtype)input, (cureduce_dtype)output) == CUREDUCE_STATUS_OK) {
        cureduce_spec spec = cureduce_spec_heuristic(op, (cureduce_dtype)input, (cureduce_dtype)output, 2048);
        compile_or_fail(&spec, &memory_only);
      }
  }
  cureduce_diskcache_close(&memory_only);
}
END_TEST

/* Every rung of the ladder for sum, min and max of f32, f64 and i32. */
START_TEST(test_every_ladder_rung_compiles) {
  static const cureduce_op ops[] = {CUREDUCE_OP_SUM, CUREDUCE_OP_MIN, CUREDUCE_OP_MAX};
  static const cureduce_dtype types[] = {CUREDUCE_F32, CUREDUCE_F64, CUREDUCE_I32};
  cureduce_diskcache memory_only;
  cureduce_diskcache_open(&memory_only, NULL, &quiet);
  for (size_t o = 0; o < 3; o++)
    for (size_t t = 0; t < 3; t++) {
      cureduce_dtype output;
      cureduce_accumulator_type(ops[o], types[t], &output);
      cureduce_spec spec = cureduce_spec_for_strategy((cureduce_strategy)_i, ops[o], types[t], output, 2048);
      compile_or_fail(&spec, &memory_only);
    }
  cureduce_diskcache_close(&memory_only);
}
END_TEST

/* Every family a shaped plan may pick, for every (operation, input, output) it takes, each as the
 * heuristic gives it for a shape that reaches it: rows compiled in (packed several to a load, and
 * not), rows read at run time, split rows, segments, columns narrow and wide, packed (rows of up to
 * 4 bytes back to back) and of one row (rows of one element; exact_sum: into the float types, which
 * a shaped problem of it takes). */
START_TEST(test_every_shaped_kernel_compiles) {
  cureduce_op op = (cureduce_op)_i;
  static const struct {
    cureduce_layout layout;
    uint64_t rows, cols, leading;
  } shapes[] = {{CUREDUCE_LAYOUT_ROWS, 1 << 20, 2, 2},       {CUREDUCE_LAYOUT_ROWS, 1 << 16, 25, 27},
                {CUREDUCE_LAYOUT_ROWS, 1 << 14, 1000, 1000}, {CUREDUCE_LAYOUT_ROWS, 4, 1 << 22, 1 << 22},
                {CUREDUCE_LAYOUT_SEGMENTS, 1 << 16, 0, 0},    {CUREDUCE_LAYOUT_COLUMNS, 1 << 20, 3, 3},
                {CUREDUCE_LAYOUT_COLUMNS, 64, 1 << 16, 1 << 16}, {CUREDUCE_LAYOUT_COLUMNS, 1 << 20, 1, 1},
                {CUREDUCE_LAYOUT_COLUMNS, 1, 1 << 20, 1 << 20}};
  /* The moments and logsumexp for f32 alone: the families' code around an operation's algebra is
   * the same for every type, and test_every_production_kernel_compiles compiles the algebra for all. */
  bool one_type = op > CUREDUCE_OP_NORM2;
  cureduce_diskcache memory_only;
  cureduce_diskcache_open(&memory_only, NULL, &quiet);
  for (int input = 0; input < CUREDUCE_DTYPE_COUNT; input++)
    for (int output = 0; output < CUREDUCE_DTYPE_COUNT; output++) {
      if (cureduce_check_types(op, (cureduce_dtype)input, (cureduce_dtype)output) != CUREDUCE_STATUS_OK ||
          (one_type && input != CUREDUCE_F32))
        continue;
      for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        cureduce_problem problem;
        if (shapes[i].layout == CUREDUCE_LAYOUT_SEGMENTS)
          cureduce_problem_init_segments(&problem, op, (cureduce_dtype)input, (cureduce_dtype)output, shapes[i].rows);
        else
          cureduce_problem_init_matrix(&problem, shapes[i].layout, op, (cureduce_dtype)input, (cureduce_dtype)output,
                                       shapes[i].rows, shapes[i].cols, shapes[i].leading);
        if (op == CUREDUCE_OP_EXACT_SUM && cureduce_problem_check(&problem) == CUREDUCE_STATUS_UNSUPPORTED)
          continue; /* exact partials */
        cureduce_spec spec = cureduce_shape_heuristic(&problem, 132, 2048);
        ck_assert_msg(cureduce_spec_validate_production(&spec) == CUREDUCE_STATUS_OK, "%s",
                      cureduce_last_error_detail());
        compile_or_fail(&spec, &memory_only);
      }
    }
  cureduce_diskcache_close(&memory_only);
}
END_TEST

/* One transform (_i): the single-pass kernel for every (operation, input, output) it takes, and
 * each shaped family's heuristic kernel (shapes as above) for sum, max and argmax into the input
 * type: the plain element path, and the keyed vector paths, which abs keeps (map_vector), for bf16
 * (16-bit keys) and f64; the value maps for f16 alone (the family code around the map is the same
 * for every type, and test_every_shaped_kernel_compiles compiles it for all). */
START_TEST(test_every_transformed_kernel_compiles) {
  cureduce_transform transform = (cureduce_transform)_i;
  static const cureduce_problem shapes[] = {
      {.layout = CUREDUCE_LAYOUT_ROWS, .rows = 1 << 20, .cols = 2, .leading_dimension = 2},
      {.layout = CUREDUCE_LAYOUT_ROWS, .rows = 1 << 14, .cols = 1000, .leading_dimension = 1000},
      {.layout = CUREDUCE_LAYOUT_ROWS, .rows = 4, .cols = 1 << 22, .leading_dimension = 1 << 22},
      {.layout = CUREDUCE_LAYOUT_SEGMENTS, .rows = 1 << 16},
      {.layout = CUREDUCE_LAYOUT_COLUMNS, .rows = 1 << 20, .cols = 3, .leading_dimension = 3},
      {.layout = CUREDUCE_LAYOUT_COLUMNS, .rows = 64, .cols = 1 << 16, .leading_dimension = 1 << 16}};
  /* A user map: one that calls a built-in math function of either float type (of x and y for a pair). */
  bool pair = cureduce_transform_is_pair(transform);
  const char *expression = transform == CUREDUCE_TRANSFORM_EXPRESSION        ? "x * x - fabs(x) / 3"
                           : transform == CUREDUCE_TRANSFORM_PAIR_EXPRESSION ? "x * y - fabs(x - y) / 3"
                                                                             : NULL;
  cureduce_diskcache memory_only;
  cureduce_diskcache_open(&memory_only, NULL, &quiet);
  for (int input = CUREDUCE_F16; input <= CUREDUCE_F64; input++)
    for (int op = 0; op < CUREDUCE_OP_COUNT; op++) {
      if (pair && input != CUREDUCE_F16 && input != CUREDUCE_F64)
        continue; /* pairs: the loader of a 2-byte and of an 8-byte type; the map is the float one */
      cureduce_problem problem;
      cureduce_problem_init(&problem, (cureduce_op)op, (cureduce_dtype)input, (cureduce_dtype)input, 1);
      problem.transform = transform, problem.expression = expression;
      if (expression && op == CUREDUCE_OP_SUM && input == CUREDUCE_F16)
        ck_assert(cureduce_problem_check(&problem) == CUREDUCE_STATUS_OK); /* registers the text */
      for (int output = 0; output < CUREDUCE_DTYPE_COUNT; output++) {
        if (cureduce_check_transform_types((cureduce_op)op, transform, (cureduce_dtype)input, (cureduce_dtype)output) !=
                CUREDUCE_STATUS_OK ||
            (op > CUREDUCE_OP_NORM2 && input != (pair ? CUREDUCE_F64 : CUREDUCE_F32))) /* the moments, logsumexp: one type's */
          continue;
        cureduce_spec spec = cureduce_spec_heuristic((cureduce_op)op, (cureduce_dtype)input, (cureduce_dtype)output, 2048);
        spec.transform = (uint8_t)transform, spec.expression = cureduce_problem_expression(&problem);
        compile_or_fail(&spec, &memory_only);
      }
      bool shaped_type = transform == CUREDUCE_TRANSFORM_ABS ? input == CUREDUCE_BF16 || input == CUREDUCE_F64
                                                              : input == CUREDUCE_F16;
      if ((op != CUREDUCE_OP_SUM && op != CUREDUCE_OP_MAX && op != CUREDUCE_OP_ARGMAX) || !shaped_type)
        continue;
      for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        cureduce_problem shaped = shapes[i];
        shaped.op = (cureduce_op)op, shaped.transform = transform, shaped.expression = expression;
        shaped.input_type = shaped.output_type = (cureduce_dtype)input;
        cureduce_spec spec = cureduce_shape_heuristic(&shaped, 132, 2048);
        ck_assert_msg(cureduce_spec_validate_production(&spec) == CUREDUCE_STATUS_OK && spec.transform == transform,
                      "%s", cureduce_last_error_detail());
        compile_or_fail(&spec, &memory_only);
      }
    }
  cureduce_diskcache_close(&memory_only);
}
END_TEST

/* A user map that does not compile: COMPILE_FAILED, NVRTC's message placed in the expression's own
 * lines, the numbered source holding the text. */
START_TEST(test_expression_error_shows_log_and_source) {
  cureduce_problem problem;
  cureduce_problem_init(&problem, CUREDUCE_OP_MAX, CUREDUCE_F32, CUREDUCE_F32, 1);
  problem.transform = CUREDUCE_TRANSFORM_EXPRESSION, problem.expression = "x +\n  undefined_name * 2";
  ck_assert(cureduce_problem_check(&problem) == CUREDUCE_STATUS_OK);
  cureduce_spec spec = cureduce_spec_heuristic(CUREDUCE_OP_MAX, CUREDUCE_F32, CUREDUCE_F32, 2048);
  spec.transform = CUREDUCE_TRANSFORM_EXPRESSION, spec.expression = cureduce_problem_expression(&problem);
  cureduce_diskcache memory_only;
  cureduce_diskcache_open(&memory_only, NULL, &quiet);
  cureduce_binary binary;
  ck_assert(cureduce_build_kernel(&spec, tested_arch, &memory_only, &quiet, &binary) == CUREDUCE_STATUS_COMPILE_FAILED);
  const char *detail = cureduce_last_error_detail();
  ck_assert_msg(strstr(detail, "expression(2)") && strstr(detail, "undefined_name") && strstr(detail, "--- source ---") &&
                    strstr(detail, "  undefined_name * 2"),
                "detail: %.3000s", detail);
  cureduce_diskcache_close(&memory_only);
}
END_TEST

/* cureduce_compile_specs, the GPU suites' compiles ahead: each kernel once into the disk cache
 * (specs that differ only in launch fields share one), with two compilers at once. */
START_TEST(test_specs_compile_ahead_into_the_disk_cache) {
  char *dir = harness_temporary_folder(), kernels[512];
  ck_assert_ptr_nonnull(dir);
  cureduce_diskcache disk;
  cureduce_diskcache_open(&disk, dir, &quiet);
  cureduce_spec specs[3] = {cureduce_spec_heuristic(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 2048),
                            cureduce_spec_heuristic(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 2048),
                            cureduce_spec_heuristic(CUREDUCE_OP_VARIANCE, CUREDUCE_F64, CUREDUCE_F64, 2048)};
  specs[1].blocks_per_sm = 3;
  ck_assert_msg(cureduce_compile_specs(specs, 3, tested_arch, &disk, &quiet, 2) == CUREDUCE_STATUS_OK, "%s",
                cureduce_last_error_detail());
  snprintf(kernels, sizeof kernels, "%s/kernels", dir);
  DIR *folder = opendir(kernels);
  ck_assert_ptr_nonnull(folder);
  int entries = 0;
  for (struct dirent *item; (item = readdir(folder));)
    entries += item->d_name[0] != '.';
  closedir(folder);
  ck_assert_int_eq(entries, 2);
  cureduce_diskcache_close(&disk);
  ck_assert(harness_remove_tree(dir));
}
END_TEST

START_TEST(test_compile_error_shows_log_and_source) {
  char *dir = harness_temporary_folder(), path[256];
  ck_assert_ptr_nonnull(dir);
  const cureduce_template_set *embedded;
  ck_assert(cureduce_templates_get(&embedded) == CUREDUCE_STATUS_OK);
  for (size_t i = 0; i < embedded->count; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, embedded->templates[i].name);
    FILE *file = fopen(path, "w");
    fputs(embedded->templates[i].text, file);
    if (strcmp(embedded->templates[i].name, "single_pass.cu") == 0)
      fputs("\nthis_is_not_cuda;\n", file);
    fclose(file);
  }
  setenv("CUREDUCE_TEMPLATE_DIR", dir, 1);
  cureduce_diskcache memory_only;
  cureduce_diskcache_open(&memory_only, NULL, &quiet);
  cureduce_spec spec = cureduce_spec_heuristic(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 2048);
  cureduce_binary binary;
  ck_assert(cureduce_build_kernel(&spec, tested_arch, &memory_only, &quiet, &binary) == CUREDUCE_STATUS_COMPILE_FAILED);
  const char *detail = cureduce_last_error_detail();
  ck_assert_msg(strstr(detail, "sum:f32->f32/single_pass/b256/u4/v16/g0.cu") && strstr(detail, "--- NVRTC log ---") &&
                    strstr(detail, "this_is_not_cuda") && strstr(detail, "single_pass.cu(") &&
                    strstr(detail, "--- source ---\n    1  // Generated by cureduce"),
                "detail: %.2000s", detail);
  cureduce_diskcache_close(&memory_only);
  ck_assert(harness_remove_tree(dir));
}
END_TEST

int main(int argc, char **argv) {
  tested_arch = argc == 2 ? atoi(argv[1]) : 0;
  if (tested_arch < 50) {
    fprintf(stderr, "usage: %s ARCH   (e.g. 90 for sm_90)\n", argv[0]);
    return 2;
  }
  /* A GPU run (.gpu/run.sh sets CUREDUCE_REQUIRE_GPU=1) has ten minutes for every suite, and these
   * CPU-only ones took a third of its CPU time there; the GPU suites compile and run the device's own
   * kernels, and CI (tools/quickstart.sh test, no GPU) runs these for every architecture. */
  const char *gpu_run = getenv("CUREDUCE_REQUIRE_GPU");
  if (gpu_run && strcmp(gpu_run, "1") == 0) {
    printf("SKIP: a GPU run (CUREDUCE_REQUIRE_GPU=1): compiling every kernel for sm_%d is the CPU suites' work, "
           "which CI runs\n", tested_arch);
    return 77;
  }
  int version;
  if (cureduce_nvrtc_version(&version) != CUREDUCE_STATUS_OK) {
    printf("SKIP: NVRTC is not installed, so nothing can be compiled (%s)\n", cureduce_last_error_detail());
    return 77;
  }
  printf("NVRTC %d.%d, sm_%d\n", version / 1000, version % 1000 / 10, tested_arch);
  Suite *suite = suite_create("compile");
  TCase *compile = tcase_create("compile");
  tcase_set_timeout(compile, 300);
  tcase_add_loop_test(compile, test_every_production_kernel_compiles, 0, CUREDUCE_OP_COUNT);
  tcase_add_loop_test(compile, test_every_shaped_kernel_compiles, 0, CUREDUCE_OP_COUNT);
  tcase_add_loop_test(compile, test_every_transformed_kernel_compiles, CUREDUCE_TRANSFORM_NONE + 1,
                      CUREDUCE_TRANSFORM_COUNT);
  tcase_add_loop_test(compile, test_every_ladder_rung_compiles, CUREDUCE_STRATEGY_RUNG0, CUREDUCE_STRATEGY_COUNT);
  tcase_add_test(compile, test_specs_compile_ahead_into_the_disk_cache);
  tcase_add_test(compile, test_compile_error_shows_log_and_source);
  tcase_add_test(compile, test_expression_error_shows_log_and_source);
  suite_add_tcase(suite, compile);
  return harness_run(suite, false);
}
