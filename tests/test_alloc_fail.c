/* Allocation failure at every allocation site of the host code that runs without a GPU: spec
 * text, source generation, the template override, the kernel cache's entries and files, the
 * tuning database's encoding, files and merges, and the error detail. For each scenario the
 * test counts its allocations, then runs it again once per allocation with that one failing:
 * each run must end in success or a clean status, and give back every allocation it made.
 *
 * The counting allocator replaces malloc, calloc, realloc and free in this executable over
 * glibc's own, so it also sees allocations made inside libc (fopen, strdup). It cannot sit under
 * AddressSanitizer, which replaces them too: the sanitized build skips this suite. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cachefile.h"
#include "diskcache.h"
#include "error.h"
#include "harness.h"
#include "plan.h"
#include "source.h"
#include "tunedb.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

#ifndef UNDER_SANITIZER
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);

static atomic_long allocations; /* made since the scenario began */
static atomic_long live;        /* allocated and not yet freed */
static long fail_at = -1;       /* the allocation that fails, counting from 1; -1: none */

static bool fails_now(void) {
  long number = atomic_fetch_add(&allocations, 1) + 1;
  if (number != fail_at)
    return false;
  errno = ENOMEM;
  return true;
}

void *malloc(size_t size) {
  if (fails_now())
    return NULL;
  void *pointer = __libc_malloc(size);
  if (pointer)
    atomic_fetch_add(&live, 1);
  return pointer;
}

void *calloc(size_t count, size_t size) {
  if (fails_now())
    return NULL;
  void *pointer = __libc_calloc(count, size);
  if (pointer)
    atomic_fetch_add(&live, 1);
  return pointer;
}

void *realloc(void *pointer, size_t size) {
  if (fails_now())
    return NULL;
  void *moved = __libc_realloc(pointer, size);
  if (moved && !pointer)
    atomic_fetch_add(&live, 1);
  return moved;
}

void free(void *pointer) {
  if (pointer)
    atomic_fetch_add(&live, -1);
  __libc_free(pointer);
}

static char *scratch; /* the folder the file scenarios write in */
static const cureduce_logger quiet = {CUREDUCE_LOG_OFF, NULL, NULL};
static const char *const gpu = "device=allocation failures;cc=9.0";

/* Each scenario returns the status it ended with. */
static cureduce_status generate_source(void) {
  const cureduce_template_set *templates;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_templates_get(&templates));
  cureduce_spec spec = cureduce_plan_strategy_spec(CUREDUCE_STRATEGY_RUNG7, CUREDUCE_OP_MAX, CUREDUCE_F64,
                                                   CUREDUCE_F64, 2048);
  char *source;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_source_generate(&spec, templates, &source));
  free(source);
  return CUREDUCE_STATUS_OK;
}

static cureduce_status parse_spec(void) {
  cureduce_spec spec;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_spec_parse("sum:bf16->f32/single_pass/b256/u4/v16/g8", &spec));
  return cureduce_spec_parse("not a spec", &spec) == CUREDUCE_STATUS_INVALID_SPEC ? CUREDUCE_STATUS_OK
                                                                                : CUREDUCE_STATUS_INVALID_ARGUMENT;
}

static cureduce_status kernel_cache_files(void) {
  cureduce_diskcache cache;
  cureduce_diskcache_open(&cache, scratch, &quiet);
  cureduce_kernel_key key;
  cureduce_kernel_key_make("allocation failure kernel", 90, &key);
  unsigned char payload[3000];
  memset(payload, 0x5a, sizeof payload);
  payload[0] = 0x7f;
  cureduce_binary binary = {payload, sizeof payload, true}, loaded;
  cureduce_diskcache_store(&cache, &key, 13000, &binary);
  if (cureduce_diskcache_load(&cache, &key, &loaded))
    free(loaded.data);
  cureduce_diskcache_close(&cache);
  return CUREDUCE_STATUS_OK;
}

static cureduce_status tuning_database(void) {
  cureduce_tunedb db = {0};
  for (int i = 0; i < 70; i++) { /* past the first growth of the record array */
    cureduce_tune_record r = {.op = CUREDUCE_OP_SUM, .input = CUREDUCE_F32, .output = CUREDUCE_F32,
                              .bucket = (uint8_t)(i % 60), .nvrtc_version = (uint32_t)(13000 + i / 60),
                              .spec = cureduce_plan_default_spec(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 2048),
                              .time_us = i, .default_us = i};
    if (!cureduce_tunedb_put(&db, &r)) {
      cureduce_tunedb_free(&db);
      return CUREDUCE_STATUS_OUT_OF_MEMORY;
    }
  }
  char path[4096];
  cureduce_tunedb_path(scratch, gpu, path, sizeof path);
  cureduce_status status = cureduce_tunedb_merge(path, gpu, &db, &quiet);
  cureduce_tunedb read = {0};
  cureduce_tunedb_read(path, gpu, &read, &quiet);
  cureduce_tunedb_free(&read);
  cureduce_tunedb_free(&db);
  return status;
}

static cureduce_status long_error_detail(void) {
  char long_text[3000];
  memset(long_text, 'x', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = '\0';
  CUREDUCE_FAIL(COMPILE_FAILED, "%s", "a compile failed");
  cureduce_error_append(long_text);
  cureduce_error_append(long_text);
  /* Without memory the detail may come out short, but never as the previous error's text. */
  const char *detail = cureduce_last_error_detail();
  return !*detail || strstr(detail, "CUREDUCE_STATUS_COMPILE_FAILED") ? CUREDUCE_STATUS_OK
                                                                        : CUREDUCE_STATUS_INVALID_ARGUMENT;
}

typedef struct scenario {
  const char *name;
  cureduce_status (*run)(void);
} scenario;

static const scenario scenarios[] = {
    {"source generation", generate_source}, {"spec text", parse_spec},
    {"kernel cache files", kernel_cache_files}, {"tuning database", tuning_database},
    {"error detail", long_error_detail},
};

static bool acceptable(cureduce_status status) {
  return status == CUREDUCE_STATUS_OK || status == CUREDUCE_STATUS_OUT_OF_MEMORY || status == CUREDUCE_STATUS_CACHE_IO;
}

START_TEST(test_every_allocation_fails_once) {
  const scenario *s = &scenarios[_i];
  /* Warm what lives as long as the thread or process, which is no leak: the thread's error detail
   * (made at its first failure, freed when the thread ends) and the template set. */
  cureduce_check_types(CUREDUCE_OP_SUM, CUREDUCE_F16, CUREDUCE_F64);
  s->run();
  long baseline = atomic_load(&live);
  atomic_store(&allocations, 0);
  fail_at = -1;
  ck_assert_msg(s->run() == CUREDUCE_STATUS_OK, "%s fails without injection: %s", s->name,
                cureduce_last_error_detail());
  long total = atomic_load(&allocations);
  ck_assert_msg(atomic_load(&live) == baseline, "%s leaks without injection", s->name);
  for (long k = 1; k <= total; k++) {
    atomic_store(&allocations, 0);
    fail_at = k;
    cureduce_status status = s->run();
    fail_at = -1;
    ck_assert_msg(acceptable(status), "%s, allocation %ld of %ld failing: %s", s->name, k, total,
                  cureduce_status_name(status));
    ck_assert_msg(atomic_load(&live) == baseline, "%s, allocation %ld of %ld failing: %ld allocations not freed",
                  s->name, k, total, atomic_load(&live) - baseline);
  }
  printf("%s: %ld allocation sites, each failed once and survived\n", s->name, total);
}
END_TEST
#endif

int main(void) {
#ifdef UNDER_SANITIZER
  printf("SKIP: the counting allocator cannot run under AddressSanitizer\n");
  return 77;
#else
  if (!(scratch = harness_temporary_folder()))
    return 1;
  Suite *suite = suite_create("alloc-fail");
  TCase *faults = tcase_create("faults");
  tcase_set_timeout(faults, 120);
  tcase_add_loop_test(faults, test_every_allocation_fails_once, 0, sizeof scenarios / sizeof scenarios[0]);
  suite_add_tcase(suite, faults);
  int code = harness_run(suite, false);
  return harness_remove_tree(scratch) ? code : 1;
#endif
}
