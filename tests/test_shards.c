/* The harness's shards themselves (harness_split_into_shards), on the CPU: a suite of eleven tests
 * that each append their name to the file $CUREDUCE_SHARDS_LOG, and fail where
 * $CUREDUCE_SHARDS_FAIL names them. tests/shards.sh runs it in shards and checks that every test
 * ran once, that the exit status gathers the shards', and that one shard replays alone. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* One line, in one write: lines of shards side by side do not interleave (O_APPEND). */
static void record(const char *name, int i) {
  char line[64];
  int length = snprintf(line, sizeof line, "%s %d\n", name, i);
  const char *path = getenv("CUREDUCE_SHARDS_LOG");
  ck_assert(path);
  int file = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  ck_assert(file >= 0);
  ck_assert(write(file, line, (size_t)length) == length);
  close(file);
  const char *fail = getenv("CUREDUCE_SHARDS_FAIL");
  line[length - 1] = '\0';
  ck_assert_msg(!fail || strcmp(fail, line) != 0, "failing as asked: %s", line);
}

START_TEST(test_looped) { record("looped", _i); }
END_TEST

START_TEST(test_single) { record("single", _i); }
END_TEST

int main(void) {
  harness_split_into_shards();
  Suite *suite = suite_create("shards");
  TCase *tests = tcase_create("tests");
  harness_add_loop_test(tests, test_looped, 3, 13);
  harness_add_test(tests, test_single);
  suite_add_tcase(suite, tests);
  return harness_run(suite, false);
}
