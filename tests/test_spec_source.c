/* Kernel specifications (validation, text form) and source generation, without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "problem.h"
#include "plancache.h"
#include "source.h"

static cureduce_spec default_spec(cureduce_op op, cureduce_dtype input, cureduce_dtype output) {
  return cureduce_spec_heuristic(op, input, output, 2048);
}

START_TEST(test_text_round_trip_for_every_type_pair) {
  int checked = 0;
  for (int op = 0; op < CUREDUCE_OP_COUNT; op++)
    for (int input = 0; input < CUREDUCE_DTYPE_COUNT; input++)
      for (int output = 0; output < CUREDUCE_DTYPE_COUNT; output++) {
        if (cureduce_check_types((cureduce_op)op, (cureduce_dtype)input, (cureduce_dtype)output) != CUREDUCE_STATUS_OK)
          continue;
        cureduce_spec spec = default_spec((cureduce_op)op, (cureduce_dtype)input, (cureduce_dtype)output), parsed;
        ck_assert(cureduce_spec_validate(&spec) == CUREDUCE_STATUS_OK);
        char text[CUREDUCE_SPEC_TEXT_MAX];
        cureduce_spec_format(&spec, text);
        ck_assert_msg(cureduce_spec_parse(text, &parsed) == CUREDUCE_STATUS_OK, "%s: %s", text,
                      cureduce_last_error_detail());
        ck_assert(cureduce_spec_equal(&spec, &parsed));
        checked++;
      }
  /* every op but exact_sum and norm2 with its input type, exact_sum with the 4 float types; sum and prod
   * also with a wider accumulator for f16, bf16, i8, u8, i32, u32, exact_sum for f16 and bf16; exact_sum
   * of the 4 float types to i64, its partial; norm2 and the 5 moments of the 4 float types, and of f16, bf16
   * and f32 to f64; logsumexp of the 4 float types, and of f16 and bf16 to f32 */
  ck_assert_int_eq(checked, 6 * 10 + 4 + 2 * 6 + 2 + 4 + 6 * (4 + 3) + 4 + 2);
}
END_TEST

/* Every strategy's default shape is legal for the ops it takes, and names its templates. */
START_TEST(test_every_strategy_generates) {
  const cureduce_template_set *templates;
  ck_assert(cureduce_templates_get(&templates) == CUREDUCE_STATUS_OK);
  for (int strategy = 0; strategy < CUREDUCE_STRATEGY_COUNT; strategy++) {
    cureduce_spec spec = cureduce_spec_for_strategy((cureduce_strategy)strategy, CUREDUCE_OP_MAX, CUREDUCE_I32,
                                                     CUREDUCE_I32, 2048);
    char *source;
    ck_assert_msg(cureduce_source_generate(&spec, templates, &source) == CUREDUCE_STATUS_OK, "%s",
                  cureduce_last_error_detail());
    char line[96];
    snprintf(line, sizeof line, "#line 1 \"%s\"", cureduce_strategy_template((cureduce_strategy)strategy));
    ck_assert(strstr(source, line));
    free(source);
  }
}
END_TEST

START_TEST(test_text_form) {
  cureduce_spec spec = default_spec(CUREDUCE_OP_SUM, CUREDUCE_BF16, CUREDUCE_F32);
  char text[CUREDUCE_SPEC_TEXT_MAX];
  cureduce_spec_format(&spec, text);
  ck_assert_str_eq(text, "sum:bf16->f32/single_pass/b256/u4/v16/g8");
}
END_TEST

START_TEST(test_bad_specs_are_refused) {
  static const char *const bad[] = {
      "",
      "sum:f32->f32",
      "sum:f32->f64/single_pass/b256/u4/v16/g8",    /* f32 sums give f32 */
      "median:f32->f32/single_pass/b256/u4/v16/g8", /* no such op */
      "sum:f32->f32/ladder/b256/u4/v16/g8",         /* no such strategy */
      "sum:f32->f32/single_pass/b100/u4/v16/g8",    /* block not a multiple of 32 */
      "sum:f32->f32/single_pass/b2048/u4/v16/g8",   /* block too large */
      "sum:f32->f32/single_pass/b256/u0/v16/g8",    /* no loads */
      "sum:f32->f32/single_pass/b256/u4/v2/g8",     /* vector smaller than an element */
      "sum:f32->f32/single_pass/b256/u4/v12/g8",    /* not a power of two */
      "sum:f32->f32/single_pass/b256/u4/v32/g8",    /* wider than 16 bytes */
      "sum:f32->f32/single_pass/b256/u4/v16/g0",    /* no blocks */
      "sum:f32->f32/single_pass/b256/u4/v16/g8/x1", /* trailing field */
      "sum:f32->f32/single_pass/b256/u4/v16/g8x",
      "sum:f32->f32/single_pass/b-256/u4/v16/g8",
      "sum:f32->f32/single_pass/b99999999999999999999/u4/v16/g8",
      "sum:f32->f32/single_pass/b256/u4/v16/g8/b256/u4/v16/g8/b256/u4/v16/g8/b256/u4/v16/g8/b256/u4/v16/g8/b256/u4/v16/g8",
      "argmin:f32->f32/rung4_sequential/b256/u1/v4/g8", /* the ladder does no argmin */
      "sum:f32->f32/rung4_sequential/b96/u1/v4/g8",     /* the ladder needs a power-of-two block */
      "sum:f32->f32/rung6_unrolled_last_warp/b32/u1/v4/g8", /* and at least 64 threads */
      "sum:f32->f32/rung4_sequential/b256/u2/v4/g8",    /* rung 4 loads one element per thread */
      "sum:f32->f32/rung8_several_per_thread/b256/u8/v16/g8", /* single-element loads */
      "sum:f32->f32/single_pass/b256/u4/v16/g8/t1/c0/s1",      /* single_pass takes no shape fields */
      "sum:f32->f32/row_groups/b256/u4/v16/g8",                /* a shaped one needs them */
      "sum:f32->f32/row_groups/b256/u4/v16/g8/t3/c0/s1",       /* a group of 3 threads */
      "sum:f32->f32/row_groups/b256/u4/v16/g8/t64/c0/s1",      /* groups are at most a warp */
      "sum:f32->f32/row_groups/b256/u4/v16/g8/t4/c65/s1",      /* 65 f32 are past the compiled-length limit */
      "sum:f32->f32/row_blocks/b256/u4/v16/g8/t4/c0/s1",       /* row blocks take whole blocks */
      "sum:f32->f32/row_blocks/b256/u4/v16/g8/t0/c8/s1",       /* and compile no row length */
      "sum:f32->f32/row_blocks/b256/u4/v16/g8/t0/c0/s0",       /* at least one split */
      "sum:f32->f32/column_tiles/b256/u4/v16/g8/t512/c0/s1",   /* a tile within the block */
      "sum:f32->f32/column_tiles/b256/u8/v16/g4/t1/c4/s1",     /* packed columns: rows shorter than a load */
      "sum:f16->f32/column_tiles/b256/u8/v16/g4/t1/c3/s1",     /* and dividing it */
      "sum:u8->u64/column_tiles/b256/u8/v8/g4/t1/c2/s1",       /* loaded 16 bytes at a time */
      "sum:u8->u64/column_tiles/b256/u8/v16/g4/t2/c2/s1",      /* by a tile one thread wide */
      "exact_sum:f16->f32/column_tiles/b256/u8/v2/g4/t1/c2/s1", /* not for exact sums */
      "exact_sum:f32->f32/row_groups/b256/u4/v16/g8/t4/c0/s1",     /* exact sums: whole blocks a row */
      "exact_sum:f32->f32/column_tiles/b256/u4/v16/g8/t32/c0/s1",  /* columns: an element a load */
      "exact_sum:f32->f32/column_tiles/b256/u4/v4/g8/t16/c0/s1",   /* and a warp a column */
      "exact_sum:f32->i64/row_blocks/b256/u4/v16/g8/t0/c0/s1",     /* exact partials: whole arrays */
      "sum:none(f32)->f32/single_pass/b256/u4/v16/g8",         /* no transform is written without one */
      "sum:cube(f32)->f32/single_pass/b256/u4/v16/g8",         /* no such transform */
      "sum:abs(f32->f32/single_pass/b256/u4/v16/g8",           /* unclosed */
      "sum:abs()->f32/single_pass/b256/u4/v16/g8",
      "sum:abs(i32)->i64/single_pass/b256/u4/v16/g8",          /* transforms take floats */
      "sum:square(f32)->f64/single_pass/b256/u4/v16/g8",       /* squares of f32 sum in f32 */
      "sum:nonzero(f32)->u8/single_pass/b256/u4/v16/g8",       /* counts are u64 (or the input type) */
      "exact_sum:abs(f32)->f32/single_pass/b256/u4/v16/g8",    /* exact sums take none */
      "sum:abs(f32)->f32/rung4_sequential/b256/u1/v4/g8",      /* nor does the ladder */
      "sum:expression(f32)->f32/single_pass/b256/u4/v16/g8",   /* an expression needs its digest */
      "sum:expression.12ab(f32)->f32/single_pass/b256/u4/v16/g8",             /* of 16 digits */
      "sum:expression.00000000000000000(f32)->f32/single_pass/b256/u4/v16/g8",
      "sum:expression.0000000000000000(f32)->f32/single_pass/b256/u4/v16/g8", /* 0 is no digest */
      "sum:expression.0123456789ABCDEF(f32)->f32/single_pass/b256/u4/v16/g8", /* lower case */
      "sum:abs.0123456789abcdef(f32)->f32/single_pass/b256/u4/v16/g8",        /* only expressions have one */
      "sum:product(f32)->f32/rung11_vector_grid_stride/b256/u4/v16/g8",      /* pairs: not the ladder */
      "sum:pair_expression(f32)->f32/single_pass/b256/u4/v16/g8",            /* with its digest */
      "sum:product.0123456789abcdef(f32)->f32/single_pass/b256/u4/v16/g8",   /* the product has none */
      "sum:product(i32)->i64/single_pass/b256/u4/v16/g8",                    /* floats only */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cureduce_spec spec;
    cureduce_status status = cureduce_spec_parse(bad[i], &spec);
    ck_assert_msg(status == CUREDUCE_STATUS_INVALID_SPEC, "'%s' gave %s", bad[i], cureduce_status_name(status));
  }
  static const char *const good[] = {"sum:f32->f32/rung8_several_per_thread/b128/u16/v4/g8",
                                     "max:i32->i32/rung0_serial/b64/u1/v4/g1",
                                     "min:f64->f64/rung11_vector_grid_stride/b512/u2/v16/g4",
                                     "argmax:bf16->bf16/row_groups/b256/u8/v4/g8/t1/c2/s1",
                                     "sum:i8->i64/segment_groups/b128/u4/v16/g16/t32/c0/s1",
                                     "min:f64->f64/segment_blocks/b512/u2/v16/g4/t0/c0/s8",
                                     "exact_sum:bf16->f32/row_blocks/b256/u4/v16/g8/t0/c0/s1",
                                     "exact_sum:f64->f64/segment_blocks/b512/u8/v16/g2/t0/c0/s1",
                                     "exact_sum:f32->f32/segment_blocks/b256/u4/v16/g8/t0/c0/s4",
                                     "exact_sum:f16->f32/column_tiles/b128/u8/v2/g16/t32/c0/s1",
                                     "exact_sum:f32->f32/column_tiles/b256/u4/v4/g8/t32/c0/s2",
                                     "max:u8->u8/column_tiles/b256/u4/v16/g8/t256/c0/s1056",
                                     "sum:u8->u64/column_tiles/b256/u8/v16/g4/t1/c2/s264",
                                     "variance:bf16->f64/column_tiles/b1024/u8/v16/g1/t1/c4/s132",
                                     "max:abs(bf16)->bf16/single_pass/b256/u4/v16/g8",
                                     "sum:square(f16)->f32/row_groups/b256/u4/v16/g8/t4/c7/s1",
                                     "sum:nonzero(f64)->u64/column_tiles/b256/u2/v16/g8/t32/c0/s3",
                                     "argmax:nonzero(f32)->u8/segment_blocks/b512/u2/v16/g4/t0/c0/s8",
                                     "sum:expression.0123456789abcdef(f16)->f16/single_pass/b256/u4/v16/g8",
                                     "argmax:expression.fedcba9876543210(bf16)->f32/row_blocks/b256/u4/v16/g8/t0/c0/s3",
                                     "sum:product(f32)->f32/single_pass/b256/u4/v16/g8",
                                     "variance:product(bf16)->f64/single_pass/b128/u2/v8/g8",
                                     "max:pair_expression.00000000000000a1(f64)->f64/single_pass/b256/u4/v16/g4"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    cureduce_spec parsed;
    ck_assert_msg(cureduce_spec_parse(good[i], &parsed) == CUREDUCE_STATUS_OK, "'%s': %s", good[i],
                  cureduce_last_error_detail());
    char text[CUREDUCE_SPEC_TEXT_MAX];
    cureduce_spec_format(&parsed, text);
    ck_assert_str_eq(text, good[i]);
  }
  /* a number field out of its range or malformed: the message names it and what it takes */
  static const struct {
    const char *text, *says;
  } fields[] = {{"sum:f32->f32/single_pass/b2048/u4/v16/g8", "'b2048' in 'sum:f32->f32/single_pass/b2048/u4/v16/g8' "
                                                             "is not b and a number up to 1024"},
                {"sum:f32->f32/single_pass/b256/u4/v16/g99999", "'g99999' in "},
                {"sum:f32->f32/single_pass/b256/x4/v16/g8", "'x4' in "},
                {"sum:f32->f32/row_groups/b256/u4/v16/g8/t4/c2000000/s1", "is not c and a number up to 1048576"},
                {"sum:f32->f32/row_blocks/b256/u4/v16/g8/t0/c0/s-1", "'s-1' in "}};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    cureduce_spec spec;
    ck_assert(cureduce_spec_parse(fields[i].text, &spec) == CUREDUCE_STATUS_INVALID_SPEC);
    ck_assert_msg(strstr(cureduce_last_error_detail(), fields[i].says), "'%s' said: %s", fields[i].text,
                  cureduce_last_error_detail());
  }
  cureduce_spec spec = default_spec(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32);
  spec.group = 1; /* single_pass has no group */
  ck_assert(cureduce_spec_validate(&spec) == CUREDUCE_STATUS_INVALID_SPEC);
  ck_assert(cureduce_spec_parse(NULL, &spec) == CUREDUCE_STATUS_NULL_POINTER);
}
END_TEST

START_TEST(test_source_is_a_pure_function_of_the_spec) {
  const cureduce_template_set *templates;
  ck_assert(cureduce_templates_get(&templates) == CUREDUCE_STATUS_OK);
  cureduce_spec spec = default_spec(CUREDUCE_OP_ARGMAX, CUREDUCE_I8, CUREDUCE_I8);
  char *first, *second, *other;
  ck_assert(cureduce_source_generate(&spec, templates, &first) == CUREDUCE_STATUS_OK);
  ck_assert(cureduce_source_generate(&spec, templates, &second) == CUREDUCE_STATUS_OK);
  ck_assert_str_eq(first, second);
  ck_assert(strstr(first, "#define CUREDUCE_OP 5\n"));
  ck_assert(strstr(first, "#define CUREDUCE_INPUT 4\n"));
  ck_assert(strstr(first, "#define CUREDUCE_DTYPE_BF16 1\n"));
  ck_assert(strstr(first, "#define CUREDUCE_OP_ARGMAX 5\n"));
  ck_assert(strstr(first, "#define CUREDUCE_BLOCK 256\n"));
  /* The shared templates, in the order each builds on the one before, then the strategy's. */
  const char *order[] = {"elements.cuh",     "operations.cuh", "transforms.cuh", "block_folds.cuh",
                         "vector_loads.cuh", "accumulate.cuh", "single_pass.cu"};
  const char *after = first;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
    char line[64];
    snprintf(line, sizeof line, "#line 1 \"%s\"\n", order[i]);
    after = strstr(after, line);
    ck_assert_msg(after, "%s missing or out of order", order[i]);
  }
  ck_assert(strstr(first, "extern \"C\" __global__"));
  /* The launch-only field does not reach the source: both grids share one compiled kernel, and
   * the kernel part alone (what the kernel cache keys on) generates the same source. */
  spec.blocks_per_sm = 2;
  ck_assert(cureduce_source_generate(&spec, templates, &other) == CUREDUCE_STATUS_OK);
  ck_assert_str_eq(first, other);
  free(other);
  cureduce_spec kernel = cureduce_spec_kernel_part(&spec);
  ck_assert(cureduce_source_generate(&kernel, templates, &other) == CUREDUCE_STATUS_OK);
  ck_assert_str_eq(first, other);
  free(other);
  ck_assert(strstr(first, "#define CUREDUCE_TRANSFORM 0\n"));
  spec.unroll = 2;
  ck_assert(cureduce_source_generate(&spec, templates, &other) == CUREDUCE_STATUS_OK);
  ck_assert_str_ne(first, other);
  free(other);
  /* A transform is part of the kernel, and so of its source (the disk cache's key). */
  spec = default_spec(CUREDUCE_OP_ARGMAX, CUREDUCE_F32, CUREDUCE_F32);
  spec.transform = CUREDUCE_TRANSFORM_ABS;
  ck_assert(cureduce_source_generate(&spec, templates, &other) == CUREDUCE_STATUS_OK);
  ck_assert(strstr(other, "#define CUREDUCE_TRANSFORM 1\n") && strstr(other, "#define CUREDUCE_TRANSFORM_ABS 1\n"));
  ck_assert(strstr(other, "for argmax:abs(f32)->f32/single_pass/b256/u4/v16 (any blocks per SM)\n"));
  free(other);
  /* An expression's text is in the source (so in the disk cache's key) once the process knows it;
   * a digest alone cannot be compiled. */
  cureduce_problem problem;
  cureduce_problem_init(&problem, CUREDUCE_OP_SUM, CUREDUCE_F64, CUREDUCE_F64, 10);
  problem.transform = CUREDUCE_TRANSFORM_EXPRESSION, problem.expression = "x * 3.0 - 1.5";
  spec = default_spec(CUREDUCE_OP_SUM, CUREDUCE_F64, CUREDUCE_F64);
  spec.transform = CUREDUCE_TRANSFORM_EXPRESSION, spec.expression = cureduce_problem_expression(&problem);
  ck_assert(cureduce_source_generate(&spec, templates, &other) == CUREDUCE_STATUS_INVALID_SPEC);
  ck_assert(strstr(cureduce_last_error_detail(), "not one this process has seen"));
  ck_assert(cureduce_problem_check(&problem) == CUREDUCE_STATUS_OK); /* registers it */
  ck_assert(cureduce_source_generate(&spec, templates, &other) == CUREDUCE_STATUS_OK);
  ck_assert(strstr(other, "double cureduce_user_map(double x) {\n  return (double)(\n#line 1 \"expression\"\nx * 3.0 - 1.5\n);"));
  free(other);
  /* A map of two inputs: the user map takes x and y, the kernel its second input. */
  problem.transform = CUREDUCE_TRANSFORM_PAIR_EXPRESSION, problem.expression = "fabs(x - y)";
  ck_assert(cureduce_problem_check(&problem) == CUREDUCE_STATUS_OK);
  spec.transform = CUREDUCE_TRANSFORM_PAIR_EXPRESSION, spec.expression = cureduce_problem_expression(&problem);
  ck_assert(cureduce_source_generate(&spec, templates, &other) == CUREDUCE_STATUS_OK);
  ck_assert(strstr(other, "double cureduce_user_map(double x, double y) {\n  return (double)(\n#line 1 \"expression\"\nfabs(x - y)\n);"));
  ck_assert(strstr(other, "#define CUREDUCE_TRANSFORM 6\n"));
  free(first);
  free(second);
  free(other);
}
END_TEST

/* Column tiles are compiled for CUREDUCE_COLUMN_THREADS_PER_SM threads an SM (their launch bounds'
 * least blocks, what lets ptxas keep a round's loads in flight) where their accumulators are narrow;
 * wider ones (argmax, variance), other kernels and an exact sum's columns are bound by their block
 * alone. */
static bool source_holds(const cureduce_spec *spec, const char *text) {
  const cureduce_template_set *templates;
  ck_assert(cureduce_templates_get(&templates) == CUREDUCE_STATUS_OK);
  char *source;
  ck_assert_msg(cureduce_source_generate(spec, templates, &source) == CUREDUCE_STATUS_OK, "%s",
                cureduce_last_error_detail());
  bool holds = strstr(source, text) != NULL;
  free(source);
  return holds;
}

START_TEST(test_column_tiles_are_compiled_for_half_an_sm) {
  cureduce_spec tiles = cureduce_spec_for_strategy(CUREDUCE_STRATEGY_COLUMN_TILES, CUREDUCE_OP_SUM, CUREDUCE_F32,
                                                    CUREDUCE_F32, 2048);
  ck_assert_uint_eq(cureduce_spec_min_blocks_per_sm(&tiles), CUREDUCE_COLUMN_THREADS_PER_SM / 256);
  ck_assert(source_holds(&tiles, "#define CUREDUCE_MIN_BLOCKS_PER_SM 4\n"));
  ck_assert(source_holds(&tiles, "#define CUREDUCE_COLUMN_THREADS_PER_SM 1024\n"));
  ck_assert(source_holds(&tiles, "__launch_bounds__(CUREDUCE_BLOCK, CUREDUCE_MIN_BLOCKS_PER_SM)"));
  tiles.block = 1024, tiles.group = 1024;
  ck_assert(source_holds(&tiles, "#define CUREDUCE_MIN_BLOCKS_PER_SM 1\n"));
  cureduce_spec exact = tiles;
  exact.op = CUREDUCE_OP_EXACT_SUM, exact.block = 256, exact.group = 32, exact.vector_bytes = 4;
  ck_assert_uint_eq(cureduce_spec_min_blocks_per_sm(&exact), 0);
  ck_assert(!source_holds(&exact, "#define CUREDUCE_MIN_BLOCKS_PER_SM"));
  static const cureduce_op wide[] = {CUREDUCE_OP_ARGMAX, CUREDUCE_OP_VARIANCE};
  for (int w = 0; w < 2; w++) {
    cureduce_spec spec = cureduce_spec_for_strategy(CUREDUCE_STRATEGY_COLUMN_TILES, wide[w], CUREDUCE_F32, CUREDUCE_F32,
                                                     2048);
    ck_assert_uint_eq(cureduce_spec_min_blocks_per_sm(&spec), 0);
    ck_assert(!source_holds(&spec, "#define CUREDUCE_MIN_BLOCKS_PER_SM"));
  }
  for (int strategy = 0; strategy < CUREDUCE_STRATEGY_COUNT; strategy++) {
    cureduce_spec spec = cureduce_spec_for_strategy((cureduce_strategy)strategy, CUREDUCE_OP_SUM, CUREDUCE_F32,
                                                     CUREDUCE_F32, 2048);
    if (strategy != CUREDUCE_STRATEGY_COLUMN_TILES)
      ck_assert_msg(!source_holds(&spec, "#define CUREDUCE_MIN_BLOCKS_PER_SM"), "%s",
                    cureduce_strategy_name((cureduce_strategy)strategy));
  }
}
END_TEST

/* CUREDUCE_TEMPLATE_DIR replaces the embedded templates; a folder missing one is an error with
 * the path, never a silent fallback. Forked per test, since the override is read once. */
START_TEST(test_template_dir_override) {
  char *dir = harness_temporary_folder();
  ck_assert_ptr_nonnull(dir);
  char path[256];
  const cureduce_template_set *embedded;
  ck_assert(cureduce_templates_get(&embedded) == CUREDUCE_STATUS_OK);
  for (size_t i = 0; i < embedded->count; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, embedded->templates[i].name);
    FILE *file = fopen(path, "w");
    fprintf(file, "// overridden\n%s", embedded->templates[i].text);
    fclose(file);
  }
  setenv("CUREDUCE_TEMPLATE_DIR", dir, 1);
  const cureduce_template_set *overridden;
  ck_assert(cureduce_templates_get(&overridden) == CUREDUCE_STATUS_OK);
  ck_assert(strncmp(cureduce_template_find(overridden, "elements.cuh"), "// overridden\n", 14) == 0);
  ck_assert(harness_remove_tree(dir));
}
END_TEST

START_TEST(test_template_dir_missing_file) {
  setenv("CUREDUCE_TEMPLATE_DIR", "/nonexistent-cureduce-templates", 1);
  const cureduce_template_set *set;
  ck_assert(cureduce_templates_get(&set) == CUREDUCE_STATUS_INVALID_ARGUMENT);
  ck_assert(strstr(cureduce_last_error_detail(), "/nonexistent-cureduce-templates/"));
}
END_TEST

START_TEST(test_size_buckets) {
  ck_assert_uint_eq(cureduce_size_bucket(0), 0);
  ck_assert_uint_eq(cureduce_size_bucket(1), 1);
  ck_assert_uint_eq(cureduce_size_bucket(1024), 11);
  ck_assert_uint_eq(cureduce_size_bucket(SIZE_MAX), 64);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("spec-source");
  TCase *spec = tcase_create("spec");
  tcase_add_test(spec, test_text_round_trip_for_every_type_pair);
  tcase_add_test(spec, test_text_form);
  tcase_add_test(spec, test_bad_specs_are_refused);
  tcase_add_test(spec, test_size_buckets);
  suite_add_tcase(suite, spec);
  TCase *source = tcase_create("source");
  tcase_add_test(source, test_source_is_a_pure_function_of_the_spec);
  tcase_add_test(source, test_every_strategy_generates);
  tcase_add_test(source, test_column_tiles_are_compiled_for_half_an_sm);
  tcase_add_test(source, test_template_dir_override);
  tcase_add_test(source, test_template_dir_missing_file);
  suite_add_tcase(suite, source);
  return harness_run(suite, false);
}
