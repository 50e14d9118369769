/* The tuner's plan for each bucket, without a GPU: where it measures, and which candidates it
 * times there (on a made-up device with an H200's shape: 132 SMs of 2048 threads). */
#include <stdlib.h>
#include <string.h>

#include "exact.h"
#include "execute.h"
#include "harness.h"
#include "problem.h"
#include "shape.h"
#include "spec.h"
#include "tune.h"
#include "workspace.h"

static const cureduce_device_info device = {"a device with an H200's shape", 90, 132, 2048};
static const cureduce_tune_job sum_f32 = {.op = CUREDUCE_OP_SUM, .input = CUREDUCE_F32, .output = CUREDUCE_F32};
static const size_t min_n = 256, max_n = (size_t)1 << 30;

START_TEST(test_points_of_a_bucket) {
  cureduce_bucket_points p = cureduce_tune_points(&sum_f32, 13, min_n, max_n); /* n from 4096 to 8191 */
  ck_assert_int_eq(p.count, 2);
  ck_assert_uint_eq(p.n[0], 6144);
  ck_assert_uint_eq(p.n[1], 4096);
  p = cureduce_tune_points(&sum_f32, 9, min_n, max_n); /* the first bucket, its bottom at min_n */
  ck_assert_int_eq(p.count, 2);
  ck_assert_uint_eq(p.n[0], 384);
  ck_assert_uint_eq(p.n[1], 256);
  p = cureduce_tune_points(&sum_f32, 27, min_n, max_n); /* 3 * 2^25 f32: 384 MiB, streams */
  ck_assert_int_eq(p.count, 1);
  ck_assert_uint_eq(p.n[0], (size_t)3 << 25);
  cureduce_tune_job sum_u8 = {.op = CUREDUCE_OP_SUM, .input = CUREDUCE_U8, .output = CUREDUCE_U64};
  ck_assert_int_eq(cureduce_tune_points(&sum_u8, 27, min_n, max_n).count, 2); /* 96 MiB of bytes */
  p = cureduce_tune_points(&sum_f32, 10, 1000, 1000); /* one size: one point */
  ck_assert_int_eq(p.count, 1);
  ck_assert_uint_eq(p.n[0], 1000);
}
END_TEST

/* Each candidate fits the SM and differs from every other in its block, loads in flight or grids. */
static void check_candidates(const cureduce_spec *specs, size_t count, const cureduce_bucket_points *points) {
  cureduce_spec fallback = cureduce_spec_heuristic(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 2048);
  ck_assert(cureduce_spec_equal(&specs[0], &fallback));
  for (size_t i = 0; i < count; i++) {
    ck_assert_int_le(specs[i].block * specs[i].blocks_per_sm, device.max_threads_per_sm);
    ck_assert(cureduce_spec_validate(&specs[i]) == CUREDUCE_STATUS_OK);
    for (size_t j = 0; j < i; j++) {
      bool same_grids = true;
      for (int p = 0; p < points->count; p++)
        same_grids = same_grids && cureduce_grid_for(&specs[i], device.sm_count, points->n[p], true) ==
                                       cureduce_grid_for(&specs[j], device.sm_count, points->n[p], true);
      ck_assert_msg(!(specs[i].block == specs[j].block && specs[i].unroll == specs[j].unroll && same_grids),
                    "candidates %zu and %zu run alike", j, i);
    }
  }
}

START_TEST(test_candidates_of_a_bucket) {
  cureduce_spec specs[64];
  /* A large bucket: every grid differs, so the whole space within 2048 threads an SM is timed:
   * blocks of 128 (4, 8, 16 an SM), 256 (4, 8) and 512 (4), each with 1, 2, 4 or 8 loads, the
   * default among them. */
  cureduce_bucket_points large = cureduce_tune_points(&sum_f32, 30, min_n, max_n);
  size_t count = cureduce_tune_candidates(&sum_f32, &large, &device, false, specs, 64);
  ck_assert_uint_eq(count, 24);
  check_candidates(specs, count, &large);
  /* The smallest bucket: one block whatever the shape, so one candidate per block and loads. */
  cureduce_bucket_points small = cureduce_tune_points(&sum_f32, 9, min_n, max_n);
  count = cureduce_tune_candidates(&sum_f32, &small, &device, false, specs, 64);
  ck_assert_uint_eq(count, 12);
  check_candidates(specs, count, &small);
  /* The quick space: 256 threads, 2 or 4 loads, 4 or 8 blocks an SM. */
  count = cureduce_tune_candidates(&sum_f32, &large, &device, true, specs, 64);
  ck_assert_uint_eq(count, 4);
  check_candidates(specs, count, &large);
  /* The caller's array bounds the list. */
  ck_assert_uint_eq(cureduce_tune_candidates(&sum_f32, &large, &device, false, specs, 5), 5);
}
END_TEST

/* The shaped space, for shapes of every layout and family: the heuristic first, every spec legal
 * for the problem and distinct, within the workspace limit, the quick space inside the full one,
 * and the space bounded; a limit of 0 keeps only specs that need no workspace. */
START_TEST(test_space_of_shapes) {
  static const struct {
    cureduce_layout layout;
    uint64_t rows, cols, leading;
  } shapes[] = {{CUREDUCE_LAYOUT_ROWS, 1 << 20, 2, 2},   {CUREDUCE_LAYOUT_ROWS, 1 << 14, 64, 64},
                {CUREDUCE_LAYOUT_ROWS, 1000, 37, 40},    {CUREDUCE_LAYOUT_ROWS, 1 << 12, 2048, 2048},
                {CUREDUCE_LAYOUT_ROWS, 64, 1 << 16, 1 << 16}, {CUREDUCE_LAYOUT_ROWS, 1, 1 << 28, 1 << 28},
                {CUREDUCE_LAYOUT_COLUMNS, 1 << 20, 4, 4}, {CUREDUCE_LAYOUT_COLUMNS, 16, 1 << 24, 1 << 24},
                {CUREDUCE_LAYOUT_COLUMNS, 1 << 10, 1 << 10, 1 << 10}, {CUREDUCE_LAYOUT_SEGMENTS, 10, 0, 0},
                {CUREDUCE_LAYOUT_SEGMENTS, 1 << 20, 0, 0}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    for (int type = 0; type < CUREDUCE_DTYPE_COUNT; type++) {
      cureduce_problem problem;
      cureduce_dtype input = (cureduce_dtype)type;
      if (shapes[i].layout == CUREDUCE_LAYOUT_SEGMENTS)
        cureduce_problem_init_segments(&problem, CUREDUCE_OP_ARGMAX, input, input, shapes[i].rows);
      else
        cureduce_problem_init_matrix(&problem, shapes[i].layout, CUREDUCE_OP_SUM, input, input, shapes[i].rows,
                                     shapes[i].cols, shapes[i].leading);
      size_t limit = cureduce_shape_workspace_limit(&problem, device.sm_count, device.max_threads_per_sm);
      cureduce_spec full[CUREDUCE_SHAPE_SPACE_MAX], quick[CUREDUCE_SHAPE_SPACE_MAX], bare[CUREDUCE_SHAPE_SPACE_MAX];
      size_t count = cureduce_shape_tune_space(&problem, device.sm_count, device.max_threads_per_sm, false, limit, full,
                                               CUREDUCE_SHAPE_SPACE_MAX);
      cureduce_spec heuristic = cureduce_shape_heuristic(&problem, device.sm_count, device.max_threads_per_sm);
      ck_assert(count >= 3 && cureduce_spec_equal(&full[0], &heuristic));
      for (size_t c = 0; c < count; c++) {
        ck_assert(cureduce_spec_validate_production(&full[c]) == CUREDUCE_STATUS_OK);
        ck_assert(cureduce_shape_check_spec(&full[c], &problem) == CUREDUCE_STATUS_OK);
        ck_assert_uint_le(cureduce_shape_geometry(&full[c], &problem, device.sm_count).workspace_bytes, limit);
        unsigned compiled_for = cureduce_spec_min_blocks_per_sm(&full[c]); /* one wave counts on no more */
        ck_assert(!compiled_for || full[c].blocks_per_sm <= compiled_for);
        for (size_t d = 0; d < c; d++)
          ck_assert(!cureduce_spec_equal(&full[c], &full[d]));
      }
      size_t quick_count = cureduce_shape_tune_space(&problem, device.sm_count, device.max_threads_per_sm, true, limit,
                                                     quick, CUREDUCE_SHAPE_SPACE_MAX);
      ck_assert(quick_count >= 1 && quick_count < count);
      for (size_t q = 0; q < quick_count; q++) {
        bool in_full = false;
        for (size_t c = 0; c < count; c++)
          in_full = in_full || cureduce_spec_equal(&quick[q], &full[c]);
        ck_assert(in_full);
      }
      size_t bare_count = cureduce_shape_tune_space(&problem, device.sm_count, device.max_threads_per_sm, false, 0,
                                                    bare, CUREDUCE_SHAPE_SPACE_MAX);
      for (size_t b = 1; b < bare_count; b++) /* the heuristic itself comes first whatever it needs */
        ck_assert_uint_eq(cureduce_shape_geometry(&bare[b], &problem, device.sm_count).workspace_bytes, 0);
    }
}
END_TEST

/* exact_sum's shaped space where the rows or columns are many and long: a block a row (row_blocks)
 * or a warp a column (column_tiles, t32, an element a load), one split and no workspace, the
 * heuristic and its loads in flight and block halved and doubled; segments, whose lengths are on
 * the device, take blocks or groups (segment_groups, an element a load). */
START_TEST(test_space_of_exact_shapes) {
  cureduce_problem problems[3];
  cureduce_problem_init_matrix(&problems[0], CUREDUCE_LAYOUT_ROWS, CUREDUCE_OP_EXACT_SUM, CUREDUCE_F32, CUREDUCE_F32,
                               1000, 8192, 8192);
  cureduce_problem_init_segments(&problems[1], CUREDUCE_OP_EXACT_SUM, CUREDUCE_BF16, CUREDUCE_F32, 5000);
  cureduce_problem_init_matrix(&problems[2], CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_OP_EXACT_SUM, CUREDUCE_F64,
                               CUREDUCE_F64, 4096, 1000, 1003);
  for (int i = 0; i < 3; i++) {
    cureduce_spec space[CUREDUCE_SHAPE_SPACE_MAX];
    size_t limit = cureduce_shape_workspace_limit(&problems[i], device.sm_count, device.max_threads_per_sm);
    size_t count = cureduce_shape_tune_space(&problems[i], device.sm_count, device.max_threads_per_sm, false, limit,
                                             space, CUREDUCE_SHAPE_SPACE_MAX);
    ck_assert_uint_eq(count, i == 1 ? 12u : 5u);
    size_t groups = 0;
    for (size_t c = 0; c < count; c++) {
      ck_assert(cureduce_spec_validate_production(&space[c]) == CUREDUCE_STATUS_OK);
      ck_assert_uint_eq(space[c].splits, 1);
      bool grouped = space[c].strategy == CUREDUCE_STRATEGY_SEGMENT_GROUPS;
      groups += grouped;
      if (i == 0)
        ck_assert_uint_eq(space[c].strategy, CUREDUCE_STRATEGY_ROW_BLOCKS);
      if (i == 1)
        ck_assert(grouped ? space[c].vector_bytes == 2 : space[c].strategy == CUREDUCE_STRATEGY_SEGMENT_BLOCKS);
      if (i == 2)
        ck_assert(space[c].strategy == CUREDUCE_STRATEGY_COLUMN_TILES && space[c].group == 32 &&
                  space[c].vector_bytes == 8);
      ck_assert_uint_eq(cureduce_shape_geometry(&space[c], &problems[i], device.sm_count).workspace_bytes, 0);
    }
    ck_assert_uint_eq(groups, i == 1 ? 7u : 0u);
    ck_assert_uint_eq(cureduce_shape_tune_space(&problems[i], device.sm_count, device.max_threads_per_sm, true, limit,
                                                space, CUREDUCE_SHAPE_SPACE_MAX),
                      i == 1 ? 4u : 1u);
  }
}
END_TEST

/* exact_sum of short rows and columns: groups of lanes a row (row_groups, as many lanes as give
 * each about 16 elements) and a thread a column (column_tiles t1, one split), an element a load, no
 * workspace; columns near the limit take a warp a column in the space too. */
START_TEST(test_space_of_short_exact_shapes) {
  cureduce_problem rows, columns;
  cureduce_problem_init_matrix(&rows, CUREDUCE_LAYOUT_ROWS, CUREDUCE_OP_EXACT_SUM, CUREDUCE_F32, CUREDUCE_F32, 1 << 16,
                               100, 103);
  cureduce_problem_init_matrix(&columns, CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_OP_EXACT_SUM, CUREDUCE_F16, CUREDUCE_F32, 64,
                               1 << 16, 1 << 16);
  cureduce_spec heuristic = cureduce_shape_heuristic(&rows, device.sm_count, device.max_threads_per_sm);
  ck_assert(heuristic.strategy == CUREDUCE_STRATEGY_ROW_GROUPS && heuristic.group == 8 && heuristic.vector_bytes == 4);
  heuristic = cureduce_shape_heuristic(&columns, device.sm_count, device.max_threads_per_sm);
  ck_assert(heuristic.strategy == CUREDUCE_STRATEGY_COLUMN_TILES && heuristic.group == 1 && heuristic.splits == 1);
  cureduce_spec space[CUREDUCE_SHAPE_SPACE_MAX];
  size_t limit = cureduce_shape_workspace_limit(&columns, device.sm_count, device.max_threads_per_sm);
  size_t count = cureduce_shape_tune_space(&columns, device.sm_count, device.max_threads_per_sm, false, limit, space,
                                           CUREDUCE_SHAPE_SPACE_MAX);
  bool thread_a_column = false, warp_a_column = false;
  for (size_t c = 0; c < count; c++) {
    ck_assert(cureduce_spec_validate_production(&space[c]) == CUREDUCE_STATUS_OK);
    ck_assert(space[c].group == 1 || space[c].group == 32);
    thread_a_column |= space[c].group == 1;
    warp_a_column |= space[c].group == 32;
    if (space[c].group == 1)
      ck_assert_uint_eq(cureduce_shape_geometry(&space[c], &columns, device.sm_count).workspace_bytes, 0);
  }
  ck_assert(thread_a_column && warp_a_column);
}
END_TEST

/* exact_sum of few long rows, few segments and few long columns: split (the blocks of a row, or of
 * a tile of columns, add into its words in the workspace), the splits halved and doubled too, every
 * launch's workspace within a slot and zeroed by the launch itself (its tickets and words:
 * armed_bytes). */
START_TEST(test_space_of_split_exact_shapes) {
  cureduce_problem problems[3];
  cureduce_problem_init_matrix(&problems[0], CUREDUCE_LAYOUT_ROWS, CUREDUCE_OP_EXACT_SUM, CUREDUCE_F64, CUREDUCE_F64, 4,
                               1 << 22, 1 << 22);
  cureduce_problem_init_segments(&problems[1], CUREDUCE_OP_EXACT_SUM, CUREDUCE_F16, CUREDUCE_F32, 10);
  cureduce_problem_init_matrix(&problems[2], CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_OP_EXACT_SUM, CUREDUCE_F32,
                               CUREDUCE_F32, 1 << 20, 3, 3);
  for (int i = 0; i < 3; i++) {
    cureduce_spec space[CUREDUCE_SHAPE_SPACE_MAX];
    size_t limit = cureduce_shape_workspace_limit(&problems[i], device.sm_count, device.max_threads_per_sm);
    ck_assert_uint_eq(limit, CUREDUCE_SLOT_BYTES);
    size_t count = cureduce_shape_tune_space(&problems[i], device.sm_count, device.max_threads_per_sm, false, limit,
                                             space, CUREDUCE_SHAPE_SPACE_MAX);
    ck_assert_uint_gt(space[0].splits, 1);
    bool halved = false, doubled = false;
    for (size_t c = 0; c < count; c++) {
      ck_assert(cureduce_spec_validate_production(&space[c]) == CUREDUCE_STATUS_OK);
      halved |= space[c].splits == space[0].splits / 2;
      doubled |= space[c].splits == space[0].splits * 2;
      cureduce_shape_launch launch = cureduce_shape_geometry(&space[c], &problems[i], device.sm_count);
      size_t words = 8 * cureduce_exact_words(problems[i].input_type);
      if (space[c].splits == 1) {
        ck_assert_uint_eq(launch.workspace_bytes, 0);
        continue;
      }
      ck_assert(launch.arm_tickets);
      size_t sums = i == 2 ? launch.grid_x * (space[c].block / 32u) : problems[i].rows; /* a tile's warps */
      ck_assert_uint_ge(launch.workspace_bytes, launch.partials_offset + sums * words);
      ck_assert_uint_eq(launch.ticket_offset + launch.armed_bytes, launch.workspace_bytes);
      ck_assert_uint_le(launch.workspace_bytes, limit);
    }
    ck_assert(halved && doubled);
  }
}
END_TEST

/* The bucket tuner has no y: a job of a map of two inputs is refused before any device work (the
 * context is never touched), pointing at cureduce_tune_problems. */
START_TEST(test_pair_jobs_refused) {
  cureduce_tune_job job = {.op = CUREDUCE_OP_SUM, .input = CUREDUCE_F32, .output = CUREDUCE_F32,
                           .transform = CUREDUCE_TRANSFORM_PRODUCT};
  cureduce_tune_options options = {.min_n = 1, .max_n = 1 << 20, .quick = true};
  cureduce_tunedb results;
  ck_assert_int_eq(cureduce_tune_jobs(NULL, &job, 1, &options, &results), CUREDUCE_STATUS_UNSUPPORTED);
  ck_assert(strstr(cureduce_last_error_detail(), "cureduce_tune_problems"));
}
END_TEST

/* Fitting a spec to a workspace halves its splits until it fits, and splits of 1 need none. */
START_TEST(test_fit_workspace) {
  cureduce_problem problem;
  cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_ROWS, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 4,
                               1 << 24, 1 << 24);
  cureduce_spec spec = cureduce_shape_heuristic(&problem, device.sm_count, device.max_threads_per_sm);
  ck_assert_int_eq(spec.strategy, CUREDUCE_STRATEGY_ROW_BLOCKS);
  spec.splits = 60000;
  size_t needed = cureduce_shape_geometry(&spec, &problem, device.sm_count).workspace_bytes;
  cureduce_spec fitted = cureduce_shape_fit_workspace(spec, &problem, device.sm_count, needed / 3);
  ck_assert_uint_le(cureduce_shape_geometry(&fitted, &problem, device.sm_count).workspace_bytes, needed / 3);
  ck_assert_uint_gt(fitted.splits, 60000 / 8);
  ck_assert_uint_eq(cureduce_shape_fit_workspace(spec, &problem, device.sm_count, 0).splits, 1);
}
END_TEST

static cureduce_spec heuristic_of(cureduce_layout layout, cureduce_dtype type, uint64_t rows, uint64_t cols,
                                  cureduce_shape_launch *launch) {
  cureduce_problem problem;
  cureduce_problem_init_matrix(&problem, layout, CUREDUCE_OP_SUM, type, type, rows, cols, cols);
  cureduce_spec spec = cureduce_shape_heuristic(&problem, device.sm_count, device.max_threads_per_sm);
  ck_assert(cureduce_spec_validate_production(&spec) == CUREDUCE_STATUS_OK);
  ck_assert(cureduce_shape_check_spec(&spec, &problem) == CUREDUCE_STATUS_OK);
  *launch = cureduce_shape_geometry(&spec, &problem, device.sm_count);
  ck_assert_uint_le(launch->workspace_bytes, CUREDUCE_SLOT_BYTES);
  return spec;
}

/* What every columns launch of the heuristic keeps: splits at most two an SM (the last block of a
 * tile folds them all), each row of a tile whole 128-byte lines or the matrix's whole row, and a
 * row of the matrix for each row of a tile's threads where the tile is narrower than the row. */
static void check_column_tiles(cureduce_dtype type, uint64_t rows, uint64_t cols, const cureduce_spec *spec) {
  uint64_t column_vectors = (cols + spec->vector_bytes / cureduce_dtype_size(type) - 1) /
                            (spec->vector_bytes / cureduce_dtype_size(type));
  bool whole_row = spec->group >= column_vectors;
  ck_assert_uint_le(spec->splits, 2 * device.sm_count);
  ck_assert(whole_row || (size_t)spec->group * spec->vector_bytes >= 128);
  ck_assert(whole_row || spec->block / spec->group <= rows);
}

/* Columns of 2^28 f32 elements, 2 to 2^28 columns. On an H200, tiles as wide as a block of 256
 * (one thread high) read wide matrices at 95-98% of the read ceiling, where tiles a warp wide and
 * 32 threads down took 61-83%: so wherever such tiles alone make two blocks an SM, that is the
 * tile. Every shape keeps at least two blocks of 256 threads an SM, and tall matrices spread their
 * rows over every SM. Then u8, f16 and f64 at 2^20 and 2^28, and empty matrices. */
START_TEST(test_geometry_of_columns) {
  for (unsigned log_cols = 1; log_cols <= 28; log_cols++) {
    uint64_t cols = (uint64_t)1 << log_cols, rows = ((uint64_t)1 << 28) / cols;
    cureduce_shape_launch launch;
    cureduce_spec spec = heuristic_of(CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_F32, rows, cols, &launch);
    ck_assert_uint_ge((uint64_t)launch.grid_x * launch.grid_y * spec.block, 2 * device.sm_count * 256);
    if (rows == 1)
      continue; /* rows of one element (test_one_row_columns) */
    check_column_tiles(CUREDUCE_F32, rows, cols, &spec);
    if (cols / 4 >= 2 * device.sm_count * 256u)
      ck_assert(spec.block == 256 && spec.group == 256 && spec.splits == 1);
    if (cols <= 64)
      ck_assert_uint_ge(spec.splits, device.sm_count);
  }
  static const cureduce_dtype types[] = {CUREDUCE_U8, CUREDUCE_F16, CUREDUCE_F64};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (unsigned log_total = 20; log_total <= 28; log_total += 8)
      for (unsigned log_cols = 0; log_cols <= log_total; log_cols += 2) {
        uint64_t cols = (uint64_t)1 << log_cols, rows = ((uint64_t)1 << log_total) / cols;
        cureduce_shape_launch launch;
        cureduce_spec spec = heuristic_of(CUREDUCE_LAYOUT_COLUMNS, types[t], rows, cols, &launch);
        if (rows > 1)
          check_column_tiles(types[t], rows, cols, &spec);
        if (log_total == 28)
          ck_assert_uint_ge((uint64_t)launch.grid_x * launch.grid_y * spec.block, 2 * device.sm_count * 256);
      }
  static const uint64_t empty[][2] = {{0, 0}, {0, 1000}, {1000, 0}};
  for (size_t i = 0; i < 3; i++) {
    cureduce_shape_launch launch;
    heuristic_of(CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_F32, empty[i][0], empty[i][1], &launch);
    ck_assert(launch.grid_x >= 1 && launch.grid_y >= 1);
  }
}
END_TEST

/* Columns whose rows lie back to back, 4 bytes or fewer, read packed (column_tiles.cu): 16-byte
 * loads of whole rows by tiles one thread wide, the row length compiled in. Not where the rows are
 * padded, longer (left to the tuner, whose space has both), or hold 8- and 16-bit keys of min, max,
 * argmin and argmax (tiles fold those in key lanes); and a packed spec is refused for a padded
 * matrix. */
START_TEST(test_packed_columns) {
  static const struct {
    cureduce_op op;
    cureduce_dtype type;
    uint64_t cols, leading;
    bool packed, in_space;
  } cases[] = {{CUREDUCE_OP_SUM, CUREDUCE_U8, 2, 2, true, true},      {CUREDUCE_OP_SUM, CUREDUCE_U8, 4, 4, true, true},
               {CUREDUCE_OP_SUM, CUREDUCE_U8, 8, 8, false, true},     {CUREDUCE_OP_SUM, CUREDUCE_U8, 2, 3, false, false},
               {CUREDUCE_OP_SUM, CUREDUCE_F16, 2, 2, true, true},     {CUREDUCE_OP_SUM, CUREDUCE_F32, 1, 1, true, true},
               {CUREDUCE_OP_SUM, CUREDUCE_F32, 2, 2, false, true},    {CUREDUCE_OP_SUM, CUREDUCE_F32, 4, 4, false, false},
               {CUREDUCE_OP_SUM, CUREDUCE_F32, 3, 3, false, false},   {CUREDUCE_OP_ARGMIN, CUREDUCE_U8, 2, 2, false, true},
               {CUREDUCE_OP_MAX, CUREDUCE_BF16, 2, 2, false, true},   {CUREDUCE_OP_ARGMAX, CUREDUCE_F32, 1, 1, true, true},
               {CUREDUCE_OP_EXACT_SUM, CUREDUCE_F16, 2, 2, false, false}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cureduce_problem problem;
    cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_COLUMNS, cases[i].op, cases[i].type, cases[i].type, 1 << 20,
                                 cases[i].cols, cases[i].leading);
    cureduce_spec spec = cureduce_shape_heuristic(&problem, device.sm_count, device.max_threads_per_sm), space[32];
    char text[CUREDUCE_SPEC_TEXT_MAX];
    cureduce_spec_format(&spec, text);
    ck_assert_msg((spec.cols != 0) == cases[i].packed, "case %zu: %s", i, text);
    if (cases[i].packed)
      ck_assert_msg(spec.vector_bytes == 16 && spec.group == 1 && spec.cols == cases[i].cols, "%s", text);
    size_t count = cureduce_shape_tune_space(&problem, device.sm_count, device.max_threads_per_sm, false,
                                             CUREDUCE_SLOT_BYTES, space, 32);
    bool packed_in_space = false;
    for (size_t k = 0; k < count; k++)
      packed_in_space = packed_in_space || space[k].cols != 0;
    ck_assert_msg(packed_in_space == cases[i].in_space, "case %zu", i);
  }
  cureduce_problem padded;
  cureduce_problem_init_matrix(&padded, CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_OP_SUM, CUREDUCE_U8, CUREDUCE_U64, 1000, 2, 4);
  cureduce_spec packed;
  ck_assert(cureduce_spec_parse("sum:u8->u64/column_tiles/b256/u8/v16/g4/t1/c2/s1", &packed) == CUREDUCE_STATUS_OK);
  ck_assert_int_eq(cureduce_shape_check_spec(&packed, &padded), CUREDUCE_STATUS_INVALID_SPEC);
  ck_assert_msg(strstr(cureduce_last_error_detail(), "leading dimension must be 2, not 4"), "%s",
                cureduce_last_error_detail());
}
END_TEST

/* The columns of a matrix of one row run as rows of one element (row_groups on the transpose,
 * several to a load), or in column tiles, not rows of more; its exact sums in their own kernels.
 * The heuristic takes the rows where a result is no wider than an element (f32 sums), tiles where
 * it is (u8 into u64, bf16 into f32, argmax's 16 bytes). */
START_TEST(test_one_row_columns) {
  cureduce_problem problem;
  cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 1,
                               (uint64_t)1 << 28, (uint64_t)1 << 28);
  cureduce_spec spec = cureduce_shape_heuristic(&problem, device.sm_count, device.max_threads_per_sm);
  char text[CUREDUCE_SPEC_TEXT_MAX];
  cureduce_spec_format(&spec, text);
  ck_assert_msg(spec.strategy == CUREDUCE_STRATEGY_ROW_GROUPS && spec.cols == 1 && spec.group == 1, "%s", text);
  cureduce_shape_argument shape = cureduce_shape_argument_of(&spec, &problem, 0, 0);
  ck_assert(shape.rows == (uint64_t)1 << 28 && shape.cols == 1 && shape.leading == 1);
  cureduce_shape_launch launch = cureduce_shape_geometry(&spec, &problem, device.sm_count);
  ck_assert_uint_eq(launch.workspace_bytes, 0);
  cureduce_spec space[CUREDUCE_SHAPE_SPACE_MAX];
  size_t count = cureduce_shape_tune_space(&problem, device.sm_count, device.max_threads_per_sm, false,
                                           CUREDUCE_SLOT_BYTES, space, CUREDUCE_SHAPE_SPACE_MAX);
  bool tiles = false;
  for (size_t i = 0; i < count; i++) {
    tiles = tiles || space[i].strategy == CUREDUCE_STRATEGY_COLUMN_TILES;
    ck_assert(cureduce_shape_check_spec(&space[i], &problem) == CUREDUCE_STATUS_OK);
  }
  ck_assert(tiles);
  cureduce_spec tile;
  ck_assert(cureduce_spec_parse("sum:f32->f32/column_tiles/b256/u8/v16/g4/t256/c0/s1", &tile) == CUREDUCE_STATUS_OK);
  shape = cureduce_shape_argument_of(&tile, &problem, 0, 0);
  ck_assert(shape.rows == 1 && shape.cols == (uint64_t)1 << 28);
  problem.rows = 2; /* two rows: not a row strategy's */
  ck_assert_int_eq(cureduce_shape_check_spec(&spec, &problem), CUREDUCE_STATUS_INVALID_SPEC);
  ck_assert_msg(strstr(cureduce_last_error_detail(), "a matrix of one row, row strategies too"), "%s",
                cureduce_last_error_detail());
  problem.rows = 1, problem.op = CUREDUCE_OP_EXACT_SUM;
  spec = cureduce_shape_heuristic(&problem, device.sm_count, device.max_threads_per_sm);
  ck_assert_int_eq(spec.strategy, CUREDUCE_STRATEGY_COLUMN_TILES);
  static const struct {
    cureduce_op op;
    cureduce_dtype input, output;
  } wider[] = {{CUREDUCE_OP_SUM, CUREDUCE_U8, CUREDUCE_U64},
               {CUREDUCE_OP_SUM, CUREDUCE_BF16, CUREDUCE_F32},
               {CUREDUCE_OP_ARGMAX, CUREDUCE_F32, CUREDUCE_F32}};
  for (size_t w = 0; w < sizeof wider / sizeof wider[0]; w++) {
    cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_COLUMNS, wider[w].op, wider[w].input, wider[w].output, 1,
                                 (uint64_t)1 << 28, (uint64_t)1 << 28);
    spec = cureduce_shape_heuristic(&problem, device.sm_count, device.max_threads_per_sm);
    cureduce_spec_format(&spec, text);
    ck_assert_msg(spec.strategy == CUREDUCE_STRATEGY_COLUMN_TILES, "%s", text);
  }
}
END_TEST

/* A matrix of one row has no pitch to keep: plans and the tuner take its leading dimension as
 * its length rounded up to 16 bytes (the length where shorter; every pitch of a longer matrix
 * kept), so 1 x 100003 bf16 with a pitch of 100007 gets the 16-byte tiles of a pitch of 100008,
 * and its kernel the pitch that passes their run-time alignment check, not element loads. */
START_TEST(test_one_row_pitch) {
  cureduce_problem problem, canonical;
  cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_OP_SUM, CUREDUCE_BF16, CUREDUCE_F32, 1,
                               100003, 100007);
  cureduce_spec given = cureduce_shape_heuristic(&problem, device.sm_count, device.max_threads_per_sm);
  canonical = cureduce_problem_canonical(&problem);
  ck_assert_uint_eq(canonical.leading_dimension, 100008);
  cureduce_spec spec = cureduce_shape_heuristic(&canonical, device.sm_count, device.max_threads_per_sm);
  ck_assert(given.vector_bytes == 2 && spec.vector_bytes == 16 && spec.strategy == CUREDUCE_STRATEGY_COLUMN_TILES);
  ck_assert_uint_eq(cureduce_shape_argument_of(&spec, &canonical, 0, 0).leading, 100008);
  static const struct {
    cureduce_layout layout;
    cureduce_dtype type;
    uint64_t rows, cols, leading, canonical;
  } cases[] = {
      {CUREDUCE_LAYOUT_ROWS, CUREDUCE_F32, 1, 100003, 100003, 100004},
      {CUREDUCE_LAYOUT_ROWS, CUREDUCE_F32, 1, 2, 7, 2},   /* shorter than a load: rows back to back */
      {CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_U8, 1, 32, 45, 32},
      {CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_F64, 0, 3, 9, 4}, /* no rows: no pitch either */
      {CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_F32, 2, 5, 7, 7}, /* a pitch that steps is kept */
      {CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_U8, 1, UINT64_MAX - 3, UINT64_MAX, UINT64_MAX}, /* no room to round */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cureduce_problem_init_matrix(&problem, cases[i].layout, CUREDUCE_OP_SUM, cases[i].type, cases[i].type,
                                 cases[i].rows, cases[i].cols, cases[i].leading);
    ck_assert(cureduce_problem_check(&problem) == CUREDUCE_STATUS_OK);
    ck_assert_msg(cureduce_problem_canonical(&problem).leading_dimension == cases[i].canonical, "case %zu", i);
  }
}
END_TEST

/* Rows of blocks run in one wave and in equal passes: where the rows are fewer than the device's
 * blocks, every row at once (64 rows of 2^22 f32: 16 splits each, not 17 with two rows left for a
 * second pass); where more, as few blocks as take them in as few passes (2048 rows: 1024 blocks of
 * two rows, not 1056 with 32 of them one). Row groups' blocks likewise. */
START_TEST(test_geometry_of_rows) {
  for (unsigned log_cols = 4; log_cols <= 28; log_cols++) {
    uint64_t cols = (uint64_t)1 << log_cols, rows = ((uint64_t)1 << 28) / cols;
    cureduce_shape_launch launch;
    cureduce_spec spec = heuristic_of(CUREDUCE_LAYOUT_ROWS, CUREDUCE_F32, rows, cols, &launch);
    size_t resident = (size_t)device.sm_count * spec.blocks_per_sm;
    ck_assert_uint_le((size_t)launch.grid_x * launch.grid_y, resident);
    if (spec.strategy == CUREDUCE_STRATEGY_ROW_BLOCKS) {
      size_t slots = resident / spec.splits, passes = (rows + launch.grid_y - 1) / launch.grid_y;
      ck_assert_uint_eq(passes, (rows + slots - 1) / slots);
      ck_assert_uint_lt((uint64_t)(launch.grid_y - 1) * passes, rows);
      if (rows <= resident)
        ck_assert(launch.grid_y == rows && spec.splits == resident / rows);
    } else {
      uint64_t groups = spec.cols ? (rows + spec.unroll - 1) / spec.unroll : rows;
      uint64_t units = (groups + spec.block / spec.group - 1) / (spec.block / spec.group);
      size_t passes = (units + launch.grid_x - 1) / launch.grid_x;
      ck_assert_uint_eq(passes, (units + resident - 1) / resident);
      ck_assert_uint_lt((uint64_t)(launch.grid_x - 1) * passes, units);
    }
  }
}
END_TEST

/* Rows that a block reads in a few rounds are not split (the fold of the splits costs more than
 * the rounds it saves): at a total of 2^20 f32, rows of 8192 and 16384 (two and four rounds of
 * b256/u4/v16) run a block each; rows of 2^15 and longer are still split among the idle blocks. */
START_TEST(test_short_rows_unsplit) {
  for (unsigned log_cols = 13; log_cols <= 16; log_cols++) {
    uint64_t cols = (uint64_t)1 << log_cols, rows = ((uint64_t)1 << 20) / cols;
    cureduce_shape_launch launch;
    cureduce_spec spec = heuristic_of(CUREDUCE_LAYOUT_ROWS, CUREDUCE_F32, rows, cols, &launch);
    ck_assert_int_eq(spec.strategy, CUREDUCE_STRATEGY_ROW_BLOCKS);
    if (log_cols <= 14)
      ck_assert_uint_eq(spec.splits, 1);
    else
      ck_assert_uint_gt(spec.splits, 1);
  }
}
END_TEST

/* Distinct kernels (a spec's kernel part: what its source depends on), 2048 at most: more fails
 * the test. */
typedef struct {
  cureduce_spec kernels[2048];
  size_t count;
} kernel_set;

static void add_kernel(kernel_set *set, const cureduce_spec *spec) {
  ck_assert_uint_lt(set->count, sizeof set->kernels / sizeof set->kernels[0]);
  cureduce_spec_add_kernel_part(set->kernels, &set->count, spec);
}

/* How many kernels a stream of shapes can make the heuristic compile, per operation and types, as
 * the README counts them: rows with their length compiled in (at most 256 bytes), up to 6 a length
 * (load widths the leading dimension's alignment allows, and the packed form); 6 for rows of a
 * length at run time (group sizes); 1 for split rows; at most 80 for column tiles (4 load widths at
 * most by 20 tiles), 60 for f32; and 2 packed columns kernels (blocks of 256 or 1024) for each row
 * of 4 bytes or fewer: 3 for u8 (1, 2 or 4 columns), 1 for f32. Every compiled length, with padded
 * leading dimensions, and long rows and columns of many shapes, for f32 and u8 sums. */
START_TEST(test_heuristic_kernels_bounded) {
  static const cureduce_dtype types[] = {CUREDUCE_F32, CUREDUCE_U8};
  static const uint64_t row_counts[] = {1, 3, 64, 1000, (1 << 16) + 1, 1 << 20, 1 << 27};
  static kernel_set rows, columns, packed;
  for (size_t t = 0; t < 2; t++) {
    rows.count = columns.count = packed.count = 0;
    size_t element = cureduce_dtype_size(types[t]), compiled_lengths = CUREDUCE_COMPILED_ROW_BYTES_MAX / element;
    for (uint64_t cols = 1; cols <= ((uint64_t)1 << 28); cols = cols < 2 * compiled_lengths ? cols + 1 : cols * 2 + 1)
      for (size_t r = 0; r < sizeof row_counts / sizeof row_counts[0]; r++)
        for (uint64_t pad = 0; pad <= 8; pad = pad ? pad * 2 : 1) {
          uint64_t leading = cols + pad;
          if (row_counts[r] * leading > ((uint64_t)1 << 31))
            continue;
          for (int layout = CUREDUCE_LAYOUT_ROWS; layout <= CUREDUCE_LAYOUT_COLUMNS; layout++) {
            cureduce_problem problem;
            cureduce_problem_init_matrix(&problem, (cureduce_layout)layout, CUREDUCE_OP_SUM, types[t], types[t],
                                         row_counts[r], cols, leading);
            cureduce_spec spec = cureduce_shape_heuristic(&problem, device.sm_count, device.max_threads_per_sm);
            /* a kernel counts with its strategy's layout: a one-row matrix's columns as rows of one
             * element are a rows kernel */
            bool rows_kernel = cureduce_strategy_layout((cureduce_strategy)spec.strategy) == CUREDUCE_LAYOUT_ROWS;
            add_kernel(rows_kernel ? &rows : spec.cols ? &packed : &columns, &spec);
          }
        }
    size_t columns_most = types[t] == CUREDUCE_F32 ? 60 : 80;
    ck_assert_uint_le(rows.count, compiled_lengths * 6 + 6 + 1);
    ck_assert_uint_le(columns.count, columns_most);
    size_t packed_lengths = 0; /* rows of 4 bytes or fewer that divide a load */
    for (size_t bytes = element; bytes <= 4; bytes *= 2)
      packed_lengths++;
    ck_assert_uint_le(packed.count, 2 * packed_lengths);
    ck_assert_uint_ge(packed.count, packed_lengths); /* the sweep reached each */
    ck_assert_uint_ge(rows.count, compiled_lengths); /* the sweep reached every compiled length */
  }
}
END_TEST

int main(void) {
  Suite *suite = suite_create("tune-space");
  TCase *space = tcase_create("space");
  tcase_add_test(space, test_points_of_a_bucket);
  tcase_add_test(space, test_candidates_of_a_bucket);
  tcase_add_test(space, test_space_of_shapes);
  tcase_add_test(space, test_space_of_exact_shapes);
  tcase_add_test(space, test_space_of_short_exact_shapes);
  tcase_add_test(space, test_space_of_split_exact_shapes);
  tcase_add_test(space, test_fit_workspace);
  tcase_add_test(space, test_geometry_of_columns);
  tcase_add_test(space, test_packed_columns);
  tcase_add_test(space, test_one_row_columns);
  tcase_add_test(space, test_one_row_pitch);
  tcase_add_test(space, test_geometry_of_rows);
  tcase_add_test(space, test_short_rows_unsplit);
  tcase_add_test(space, test_heuristic_kernels_bounded);
  tcase_add_test(space, test_pair_jobs_refused);
  suite_add_tcase(suite, space);
  return harness_run(suite, false);
}
