/* The tuning database without a GPU: round trip of whole-array and shaped records, the keys of
 * shaped problems, format 1 files (the fuzzer's seeds), another GPU's file, every corrupted byte
 * and every truncation, a read-only folder, and eight processes merging into one file at once. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cachefile.h"
#include "harness.h"
#include "shape.h"
#include "spec.h"
#include "tunedb.h"

static const char *const gpu = "device=NVIDIA H200;cc=9.0;sms=132;bus_bits=6144;memory_khz=3201000;driver=13000";
static const cureduce_logger quiet = {CUREDUCE_LOG_ERROR, NULL, NULL};

/* A shaped problem of each layout in turn, with rows short enough to compile in, long rows,
 * padded ones, columns (packed ones, and a matrix of one row among them) and segments: a record
 * of what the heuristic picks for it. */
static cureduce_tune_record shaped_record_for(cureduce_op op, cureduce_dtype input, int index) {
  static const struct {
    cureduce_layout layout;
    uint64_t rows, cols, leading;
  } shapes[] = {{CUREDUCE_LAYOUT_ROWS, 4096, 4, 4},       {CUREDUCE_LAYOUT_ROWS, 100, 1 << 20, 1 << 20},
                {CUREDUCE_LAYOUT_ROWS, 7, 33, 40},        {CUREDUCE_LAYOUT_COLUMNS, 1 << 16, 300, 300},
                {CUREDUCE_LAYOUT_SEGMENTS, 5000, 0, 0},   {CUREDUCE_LAYOUT_COLUMNS, 1 << 16, 1, 1},
                {CUREDUCE_LAYOUT_COLUMNS, 1, 5000, 5000}};
  int s = index / 3 % 7;
  uint64_t rows = shapes[s].rows == 1 ? 1 : shapes[s].rows << (index % 7);
  cureduce_problem problem;
  if (shapes[s].layout == CUREDUCE_LAYOUT_SEGMENTS)
    cureduce_problem_init_segments(&problem, op, input, input, rows);
  else
    cureduce_problem_init_matrix(&problem, shapes[s].layout, op, input, input, rows, shapes[s].cols,
                                 shapes[s].leading);
  cureduce_tune_record record = cureduce_tunedb_key(&problem);
  record.spec = cureduce_shape_heuristic(&problem, 132, 2048);
  return record;
}

static cureduce_tune_record record_for(int index) {
  enum { every_type_ops = CUREDUCE_OP_EXACT_SUM }; /* the operations before it take every type */
  cureduce_op op = (cureduce_op)(index % every_type_ops);
  cureduce_dtype input = (cureduce_dtype)(index / every_type_ops % CUREDUCE_DTYPE_COUNT);
  cureduce_tune_record record;
  if (index % 3 == 2) {
    record = shaped_record_for(op, input, index);
  } else {
    record = cureduce_tunedb_contiguous_key(op, input, input, 8 + index / 60 % 23);
    record.spec = cureduce_spec_heuristic(op, input, input, 2048);
  }
  record.spec.unroll = (uint8_t)(1 + index % 8);
  record.nvrtc_version = 13000, record.time_us = 10 + index, record.default_us = 12 + index;
  return record;
}

static bool same_record(const cureduce_tune_record *a, const cureduce_tune_record *b) {
  return a->op == b->op && a->input == b->input && a->output == b->output && a->bucket == b->bucket &&
         a->layout == b->layout && a->cols_class == b->cols_class && a->nvrtc_version == b->nvrtc_version &&
         cureduce_spec_equal(&a->spec, &b->spec) && a->time_us == b->time_us && a->default_us == b->default_us;
}

static cureduce_tunedb some_records(int count, int first) {
  cureduce_tunedb db = {0};
  for (int i = 0; i < count; i++) {
    cureduce_tune_record r = record_for(first + i);
    ck_assert(cureduce_tunedb_put(&db, &r));
  }
  return db;
}

START_TEST(test_round_trip_and_lookup) {
  cureduce_tunedb db = some_records(100, 0), back = {0};
  int packed = 0, one_row = 0; /* the records of packed columns and of a matrix of one row */
  for (size_t i = 0; i < db.count; i++) {
    packed += db.records[i].layout == CUREDUCE_LAYOUT_COLUMNS && db.records[i].spec.cols != 0;
    one_row += db.records[i].layout == CUREDUCE_LAYOUT_COLUMNS && db.records[i].bucket == 1;
  }
  ck_assert(packed > 0 && one_row > 0);
  void *data;
  size_t size;
  ck_assert(cureduce_tunedb_encode(gpu, &db, &data, &size));
  ck_assert_int_eq(cureduce_tunedb_decode(gpu, data, size, &back), CUREDUCE_TUNEDB_VALID);
  ck_assert_uint_eq(back.count, 100);
  for (size_t i = 0; i < 100; i++)
    ck_assert(same_record(&back.records[i], &db.records[i]));
  cureduce_tune_record newer = record_for(7);
  newer.nvrtc_version = 13010;
  newer.spec.block = 512;
  ck_assert(cureduce_tunedb_put(&back, &newer));
  const cureduce_tune_record *found = cureduce_tunedb_find(&back, &newer);
  ck_assert(found && found->spec.block == 512); /* the newest NVRTC's record wins */
  cureduce_tune_record absent = cureduce_tunedb_contiguous_key(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 64);
  ck_assert_ptr_null(cureduce_tunedb_find(&back, &absent));
  for (size_t i = 0; i < back.count; i++) /* each record's own key finds it */
    ck_assert(same_record(cureduce_tunedb_find(&back, &back.records[i]), &back.records[i]) ||
              &back.records[i] == &back.records[7]);
  cureduce_tune_record other_layout = back.records[2]; /* a shaped record's key, as columns */
  ck_assert_int_eq(other_layout.layout, CUREDUCE_LAYOUT_ROWS);
  other_layout.layout = CUREDUCE_LAYOUT_COLUMNS;
  ck_assert_ptr_null(cureduce_tunedb_find(&back, &other_layout));
  cureduce_tunedb other = {0};
  ck_assert_int_eq(cureduce_tunedb_decode("device=another GPU", data, size, &other), CUREDUCE_TUNEDB_FOREIGN);
  ck_assert_uint_eq(other.count, 0);
  free(data);
  cureduce_tunedb_free(&db);
  cureduce_tunedb_free(&back);
}
END_TEST

/* The keys of shaped problems: rows short enough to compile in are keyed by their exact length,
 * others by its bit length; padding, layout and the bit length of rows tell keys apart; segments
 * have no columns class. */
START_TEST(test_shaped_keys) {
  cureduce_problem a, b;
  cureduce_problem_init_matrix(&a, CUREDUCE_LAYOUT_ROWS, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 1000, 64, 64);
  cureduce_tune_record key = cureduce_tunedb_key(&a);
  ck_assert_uint_eq(key.cols_class, 64);
  ck_assert_uint_eq(key.bucket, 10);
  ck_assert_uint_eq(cureduce_tunedb_class_length(key.cols_class), 64);
  cureduce_problem_init_matrix(&b, CUREDUCE_LAYOUT_ROWS, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 1023, 65, 65);
  ck_assert_uint_ne(cureduce_tunedb_key(&b).cols_class, key.cols_class); /* another compiled length */
  ck_assert_uint_eq(cureduce_tunedb_key(&b).bucket, key.bucket);
  cureduce_problem_init_matrix(&a, CUREDUCE_LAYOUT_ROWS, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 10, 5000, 5000);
  cureduce_problem_init_matrix(&b, CUREDUCE_LAYOUT_ROWS, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 12, 8000, 8000);
  ck_assert_uint_eq(cureduce_tunedb_key(&a).cols_class, CUREDUCE_COLS_BUCKETED + 13); /* 5000 < 2^13 */
  ck_assert_uint_eq(cureduce_tunedb_key(&b).cols_class, cureduce_tunedb_key(&a).cols_class);
  ck_assert_uint_eq(cureduce_tunedb_class_length(cureduce_tunedb_key(&a).cols_class), 0);
  b.leading_dimension = 8192;
  ck_assert_uint_eq(cureduce_tunedb_key(&b).cols_class, CUREDUCE_COLS_BUCKETED + 13 + CUREDUCE_COLS_PADDED);
  b.layout = CUREDUCE_LAYOUT_COLUMNS;
  ck_assert_uint_eq(cureduce_tunedb_key(&b).layout, CUREDUCE_LAYOUT_COLUMNS);
  /* columns whose rows may be packed (under 16 bytes) by their length, as compiled rows */
  cureduce_problem_init_matrix(&b, CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 1000, 2, 2);
  ck_assert_uint_eq(cureduce_tunedb_key(&b).cols_class, 2);
  b.cols = b.leading_dimension = 3;
  ck_assert_uint_eq(cureduce_tunedb_key(&b).cols_class, 3);
  b.cols = b.leading_dimension = 4;
  ck_assert_uint_eq(cureduce_tunedb_key(&b).cols_class, CUREDUCE_COLS_BUCKETED + 3);
  cureduce_problem_init_segments(&a, CUREDUCE_OP_MAX, CUREDUCE_I8, CUREDUCE_I8, 70000);
  key = cureduce_tunedb_key(&a);
  ck_assert(key.layout == CUREDUCE_LAYOUT_SEGMENTS && key.bucket == 17 && key.cols_class == 0);
  cureduce_problem_init(&a, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 4096);
  key = cureduce_tunedb_key(&a);
  ck_assert(key.layout == CUREDUCE_LAYOUT_CONTIGUOUS && key.bucket == 13 && key.cols_class == 0);
  ck_assert_uint_eq(key.transform, CUREDUCE_TRANSFORM_NONE);
  a.transform = CUREDUCE_TRANSFORM_ABS;
  ck_assert_uint_eq(cureduce_tunedb_key(&a).transform, CUREDUCE_TRANSFORM_ABS);
}
END_TEST

/* A transform is a key of its own: an abs record survives the round trip and is found for abs
 * alone; an expression's record for its own digest alone. */
START_TEST(test_transform_is_part_of_the_key) {
  cureduce_tunedb db = some_records(2, 0), back = {0};
  cureduce_tune_record *abs_record = &db.records[1];
  *abs_record = db.records[0];
  abs_record->transform = abs_record->spec.transform = CUREDUCE_TRANSFORM_ABS;
  abs_record->spec.op = abs_record->op = CUREDUCE_OP_MAX;
  abs_record->spec.input = abs_record->spec.output = abs_record->input = abs_record->output = CUREDUCE_F32;
  ck_assert(cureduce_spec_validate_production(&abs_record->spec) == CUREDUCE_STATUS_OK);
  void *data;
  size_t size;
  ck_assert(cureduce_tunedb_encode(gpu, &db, &data, &size));
  ck_assert_int_eq(cureduce_tunedb_decode(gpu, data, size, &back), CUREDUCE_TUNEDB_VALID);
  cureduce_tune_record key = *abs_record;
  const cureduce_tune_record *found = cureduce_tunedb_find(&back, &key);
  ck_assert(found && found->spec.transform == CUREDUCE_TRANSFORM_ABS);
  key.transform = CUREDUCE_TRANSFORM_NONE;
  found = cureduce_tunedb_find(&back, &key);
  ck_assert(!found || found->spec.transform == CUREDUCE_TRANSFORM_NONE);
  free(data);
  /* An expression's record: its digest is part of the key. */
  abs_record->transform = abs_record->spec.transform = CUREDUCE_TRANSFORM_EXPRESSION;
  abs_record->expression = abs_record->spec.expression = 0x0123456789abcdefull;
  ck_assert(cureduce_spec_validate_production(&abs_record->spec) == CUREDUCE_STATUS_OK);
  cureduce_tunedb_free(&back);
  ck_assert(cureduce_tunedb_encode(gpu, &db, &data, &size));
  ck_assert_int_eq(cureduce_tunedb_decode(gpu, data, size, &back), CUREDUCE_TUNEDB_VALID);
  key = *abs_record;
  found = cureduce_tunedb_find(&back, &key);
  ck_assert(found && found->spec.expression == 0x0123456789abcdefull);
  key.expression ^= 1;
  ck_assert_ptr_null(cureduce_tunedb_find(&back, &key));
  free(data);
  /* The fuzzer's format 3 seed (written by hand: abs, an expression, square and nonzero records) is
   * what the encoder writes, byte for byte. */
  FILE *seed = fopen(CUREDUCE_FUZZ_CORPUS "/tuning_database/four_records_format3", "rb");
  ck_assert_ptr_nonnull(seed);
  unsigned char bytes[1024];
  size_t seed_size = fread(bytes, 1, sizeof bytes, seed);
  fclose(seed);
  cureduce_tunedb_free(&back);
  ck_assert_int_eq(cureduce_tunedb_decode("device=fuzz;cc=9.0;sms=132", bytes, seed_size, &back), CUREDUCE_TUNEDB_VALID);
  ck_assert_uint_eq(back.count, 4);
  ck_assert(cureduce_tunedb_encode("device=fuzz;cc=9.0;sms=132", &back, &data, &size));
  ck_assert(size == seed_size && memcmp(data, bytes, size) == 0);
  free(data);
  cureduce_tunedb_free(&db);
  cureduce_tunedb_free(&back);
}
END_TEST

/* A record that does not fit its own key is damage: a compiled row length other than the class's,
 * a strategy of another layout, a whole-array record with a columns class. */
START_TEST(test_record_must_fit_its_key) {
  for (int wrong = 0; wrong < 3; wrong++) {
    cureduce_tunedb db = some_records(6, 0), back = {0};
    cureduce_tune_record *shaped = &db.records[2], *contiguous = &db.records[0];
    ck_assert_int_eq(shaped->layout, CUREDUCE_LAYOUT_ROWS);
    ck_assert_uint_ne(shaped->spec.cols, 0);
    if (wrong == 0)
      shaped->spec.cols -= 1;
    else if (wrong == 1)
      shaped->layout = CUREDUCE_LAYOUT_SEGMENTS;
    else
      contiguous->cols_class = 1;
    void *data;
    size_t size;
    ck_assert(cureduce_tunedb_encode(gpu, &db, &data, &size));
    ck_assert_int_eq(cureduce_tunedb_decode(gpu, data, size, &back), CUREDUCE_TUNEDB_DAMAGED);
    ck_assert_uint_eq(back.count, 5);
    free(data);
    cureduce_tunedb_free(&db);
    cureduce_tunedb_free(&back);
  }
}
END_TEST

/* The columns of a matrix of one row may run as rows of one element (shape.c): a record of that
 * class (rows of bit length 1) with such a spec is sound, one of two rows is damage. */
START_TEST(test_one_row_columns_record) {
  cureduce_problem problem;
  cureduce_problem_init_matrix(&problem, CUREDUCE_LAYOUT_COLUMNS, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 1,
                               5000, 5000);
  for (int rows = 1; rows <= 2; rows++) {
    cureduce_tune_record record = cureduce_tunedb_key(&problem);
    record.spec = cureduce_shape_heuristic(&problem, 132, 2048);
    ck_assert_int_eq(record.spec.strategy, CUREDUCE_STRATEGY_ROW_GROUPS);
    record.bucket = (uint8_t)rows, record.nvrtc_version = 13000, record.time_us = 1, record.default_us = 2;
    cureduce_tunedb db = {0}, back = {0};
    ck_assert(cureduce_tunedb_put(&db, &record));
    void *data;
    size_t size;
    ck_assert(cureduce_tunedb_encode(gpu, &db, &data, &size));
    ck_assert_int_eq(cureduce_tunedb_decode(gpu, data, size, &back),
                     rows == 1 ? CUREDUCE_TUNEDB_VALID : CUREDUCE_TUNEDB_DAMAGED);
    free(data);
    cureduce_tunedb_free(&db);
    cureduce_tunedb_free(&back);
  }
}
END_TEST

/* A record whose checksum holds but whose reserved bytes are set (found by the fuzzer, which
 * learns checksums through comparison tracing) is refused, not read as if they were zero. */
START_TEST(test_reserved_bytes_must_be_zero) {
  cureduce_tunedb db = some_records(1, 0), back = {0};
  void *data;
  size_t size;
  ck_assert(cureduce_tunedb_encode(gpu, &db, &data, &size));
  FILE *seed = fopen(CUREDUCE_FUZZ_CORPUS "/tuning_database/crash-reserved-bytes", "rb");
  ck_assert_ptr_nonnull(seed);
  unsigned char crash[512];
  size_t crash_size = fread(crash, 1, sizeof crash, seed);
  fclose(seed);
  ck_assert_int_eq(cureduce_tunedb_decode("device=fuzz;cc=9.0;sms=132", crash, crash_size, &back),
                   CUREDUCE_TUNEDB_DAMAGED);
  ck_assert_uint_eq(back.count, 2);
  free(data);
  cureduce_tunedb_free(&db);
  cureduce_tunedb_free(&back);
}
END_TEST

/* A file whose checksums all hold but which stores one slot twice (found by the fuzzer: it did
 * not encode back to itself) is damaged, not valid; the later record is kept. */
/* A ladder rung is a legal spec but needs scratch memory no production call passes: a database
 * (written by hand, or imported) that names one is damaged, and the rung is never loaded. */
START_TEST(test_ladder_rung_is_refused) {
  cureduce_tunedb db = some_records(3, 0), back = {0};
  db.records[1].spec = cureduce_spec_for_strategy(CUREDUCE_STRATEGY_RUNG8, (cureduce_op)db.records[1].op,
                                                  (cureduce_dtype)db.records[1].input,
                                                  (cureduce_dtype)db.records[1].output, 2048);
  ck_assert(cureduce_spec_validate(&db.records[1].spec) == CUREDUCE_STATUS_OK);
  void *data;
  size_t size;
  ck_assert(cureduce_tunedb_encode(gpu, &db, &data, &size));
  ck_assert_int_eq(cureduce_tunedb_decode(gpu, data, size, &back), CUREDUCE_TUNEDB_DAMAGED);
  ck_assert_uint_eq(back.count, 2);
  for (size_t i = 0; i < back.count; i++)
    ck_assert(cureduce_strategy_is_production(back.records[i].spec.strategy));
  free(data);
  cureduce_tunedb_free(&db);
  cureduce_tunedb_free(&back);
}
END_TEST

START_TEST(test_one_slot_twice_is_damage) {
  FILE *seed = fopen(CUREDUCE_FUZZ_CORPUS "/tuning_database/crash-duplicate-slot", "rb");
  ck_assert_ptr_nonnull(seed);
  unsigned char crash[512];
  size_t crash_size = fread(crash, 1, sizeof crash, seed);
  fclose(seed);
  cureduce_tunedb back = {0};
  ck_assert_int_eq(cureduce_tunedb_decode("device=fuzz;cc=9.0;sms=132", crash, crash_size, &back),
                   CUREDUCE_TUNEDB_DAMAGED);
  ck_assert_uint_eq(back.count, 2);
  cureduce_tunedb_free(&back);
}
END_TEST

START_TEST(test_every_corruption_and_truncation) {
  cureduce_tunedb db = some_records(5, 0);
  void *data;
  size_t size;
  ck_assert(cureduce_tunedb_encode(gpu, &db, &data, &size));
  unsigned char *bytes = data;
  for (size_t i = 0; i < size; i++) { /* a flipped bit costs its record at most, never a wrong one */
    bytes[i] ^= (unsigned char)(1u << (i % 8));
    cureduce_tunedb back = {0};
    cureduce_tunedb_verdict verdict = cureduce_tunedb_decode(gpu, data, size, &back);
    ck_assert_msg(verdict != CUREDUCE_TUNEDB_VALID, "flip at byte %zu passed", i);
    ck_assert(back.count <= 4);
    for (size_t r = 0; r < back.count; r++)
      ck_assert(same_record(&back.records[r], &db.records[r]) || same_record(&back.records[r], &db.records[r + 1]));
    cureduce_tunedb_free(&back);
    bytes[i] ^= (unsigned char)(1u << (i % 8));
  }
  for (size_t cut = 0; cut < size; cut++) {
    cureduce_tunedb back = {0};
    ck_assert_msg(cureduce_tunedb_decode(gpu, data, cut, &back) != CUREDUCE_TUNEDB_VALID, "cut at %zu passed", cut);
    cureduce_tunedb_free(&back);
  }
  free(data);
  cureduce_tunedb_free(&db);
}
END_TEST

static char *temporary_folder(void) {
  char *dir = harness_temporary_folder();
  ck_assert_ptr_nonnull(dir);
  return dir;
}

/* How many records the database file holds, failing the test unless the whole file is valid;
 * 0 when there is no file yet. */
static size_t valid_records_in(const char *path) {
  void *data;
  size_t size;
  if (!cureduce_read_file(path, 1 << 20, &data, &size))
    return 0;
  cureduce_tunedb db = {0};
  ck_assert_int_eq(cureduce_tunedb_decode(gpu, data, size, &db), CUREDUCE_TUNEDB_VALID);
  size_t count = db.count;
  free(data);
  cureduce_tunedb_free(&db);
  return count;
}

/* Eight processes merge 40 records each into one database at once: none is lost. */
START_TEST(test_eight_processes_merge_at_once) {
  char *root = temporary_folder(), path[4096];
  cureduce_tunedb_path(root, gpu, path, sizeof path);
  pid_t children[8];
  for (int c = 0; c < 8; c++)
    if ((children[c] = fork()) == 0) {
      cureduce_tunedb mine = some_records(40, 40 * c);
      _exit(cureduce_tunedb_merge(path, gpu, &mine, &quiet) == CUREDUCE_STATUS_OK ? 0 : 1);
    }
  for (int c = 0; c < 8; c++)
    harness_expect_child_success(children[c], "a merging process failed");
  ck_assert_uint_eq(valid_records_in(path), 320);
  ck_assert(harness_remove_tree(root));
}
END_TEST

/* A tuner killed with SIGKILL while it holds the lock and writes: the lock dies with it (no
 * deadlock), the file stays whole, and the next merge adds its records. */
START_TEST(test_writer_killed_holding_the_lock) {
  char *root = temporary_folder(), path[4096];
  cureduce_tunedb_path(root, gpu, path, sizeof path);
  for (int round = 0; round < 10; round++) {
    pid_t writer = fork();
    if (writer == 0)
      for (int first = 0;; first = (first + 50) % 1000) {
        cureduce_tunedb batch = some_records(50, first);
        cureduce_tunedb_merge(path, gpu, &batch, &quiet);
        cureduce_tunedb_free(&batch);
      }
    harness_kill_after_random_pause(writer, 1, 20);
    valid_records_in(path);
  }
  cureduce_tunedb last = some_records(5, 5000);
  ck_assert(cureduce_tunedb_merge(path, gpu, &last, &quiet) == CUREDUCE_STATUS_OK);
  cureduce_tunedb read = {0};
  cureduce_tunedb_read(path, gpu, &read, &quiet);
  ck_assert(cureduce_tunedb_find(&read, &last.records[4]));
  cureduce_tunedb_free(&last);
  cureduce_tunedb_free(&read);
  ck_assert(harness_remove_tree(root));
}
END_TEST

/* A folder that cannot be written: a clear status, and reading still works. The unprivileged
 * part runs in a child (root ignores permissions), so the parent can clean up. */

/* The trust rule: a tuning folder others can write is neither read nor written; a database that
 * is a symbolic link is not read; the files the library writes are private. */
START_TEST(test_untrusted_tuning_is_not_used) {
  char *root = temporary_folder(), path[4096], tuning[4200], elsewhere[4200];
  cureduce_tunedb_path(root, gpu, path, sizeof path);
  cureduce_tunedb some = some_records(3, 0), read = {0};
  ck_assert(cureduce_tunedb_merge(path, gpu, &some, &quiet) == CUREDUCE_STATUS_OK);
  struct stat info;
  ck_assert(stat(path, &info) == 0 && (info.st_mode & 07777) == 0600);
  snprintf(tuning, sizeof tuning, "%s/tuning", root);
  ck_assert(stat(tuning, &info) == 0 && (info.st_mode & 07777) == 0700);

  ck_assert_int_eq(chmod(tuning, 0777), 0);
  cureduce_tunedb_read(path, gpu, &read, &harness_keep_warnings);
  ck_assert_uint_eq(read.count, 0);
  ck_assert_int_eq(harness_warnings, 1);
  ck_assert_msg(strstr(harness_last_warning, tuning) && strstr(harness_last_warning, "mode 0777"), "%s", harness_last_warning);
  ck_assert(cureduce_tunedb_merge(path, gpu, &some, &quiet) == CUREDUCE_STATUS_CACHE_IO);
  ck_assert(strstr(cureduce_last_error_detail(), "not trusted"));
  ck_assert_int_eq(chmod(tuning, 0700), 0);

  snprintf(elsewhere, sizeof elsewhere, "%s/planted.db", root);
  ck_assert_int_eq(rename(path, elsewhere), 0);
  ck_assert_int_eq(symlink(elsewhere, path), 0);
  cureduce_tunedb_read(path, gpu, &read, &harness_keep_warnings);
  ck_assert_uint_eq(read.count, 0);
  ck_assert_int_eq(harness_warnings, 2);
  ck_assert(strstr(harness_last_warning, "symbolic link"));
  ck_assert(cureduce_tunedb_merge(path, gpu, &some, &quiet) == CUREDUCE_STATUS_OK); /* replaces the link */
  cureduce_tunedb_read(path, gpu, &read, &harness_keep_warnings);
  ck_assert_uint_eq(read.count, 3);
  cureduce_tunedb_free(&some);
  cureduce_tunedb_free(&read);
  ck_assert(harness_remove_tree(root));
}
END_TEST

START_TEST(test_read_only_folder) {
  char *root = temporary_folder(), path[4096];
  cureduce_tunedb_path(root, gpu, path, sizeof path);
  cureduce_tunedb some = some_records(3, 0);
  ck_assert(cureduce_tunedb_merge(path, gpu, &some, &quiet) == CUREDUCE_STATUS_OK);
  cureduce_tunedb_free(&some);
  char tuning[4200];
  snprintf(tuning, sizeof tuning, "%s/tuning", root);
  ck_assert(harness_make_readable_by_all(root));
  ck_assert_int_eq(chmod(tuning, 0555), 0);
  pid_t child = fork();
  if (child == 0) {
    if (!harness_drop_privileges())
      _exit(2);
    cureduce_tunedb more = some_records(3, 10), read = {0};
    bool refused = cureduce_tunedb_merge(path, gpu, &more, &quiet) == CUREDUCE_STATUS_CACHE_IO;
    cureduce_tunedb_read(path, gpu, &read, &quiet);
    bool readable = read.count == 3;
    cureduce_tunedb_free(&more);
    cureduce_tunedb_free(&read);
    _exit(refused && readable ? 0 : 1);
  }
  harness_expect_child_success(child, "read-only folder: not refused, or not readable");
  ck_assert(harness_remove_tree(root));
}
END_TEST

int main(void) {
  Suite *suite = suite_create("tunedb");
  TCase *tunedb = tcase_create("tunedb");
  tcase_set_timeout(tunedb, 120);
  tcase_add_test(tunedb, test_round_trip_and_lookup);
  tcase_add_test(tunedb, test_shaped_keys);
  tcase_add_test(tunedb, test_transform_is_part_of_the_key);
  tcase_add_test(tunedb, test_record_must_fit_its_key);
  tcase_add_test(tunedb, test_one_row_columns_record);
  tcase_add_test(tunedb, test_reserved_bytes_must_be_zero);
  tcase_add_test(tunedb, test_ladder_rung_is_refused);
  tcase_add_test(tunedb, test_one_slot_twice_is_damage);
  tcase_add_test(tunedb, test_every_corruption_and_truncation);
  tcase_add_test(tunedb, test_eight_processes_merge_at_once);
  tcase_add_test(tunedb, test_read_only_folder);
  tcase_add_test(tunedb, test_untrusted_tuning_is_not_used);
  tcase_add_test(tunedb, test_writer_killed_holding_the_lock);
  suite_add_tcase(suite, tunedb);
  return harness_run(suite, false);
}
