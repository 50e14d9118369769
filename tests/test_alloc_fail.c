/* Allocation failure at every allocation site of the host code that runs without a GPU: spec
 * text, source generation, the template override, the kernel cache's entries and files, the
 * tuning database's encoding, files and merges, and the error detail. For each scenario the
 * test counts its allocations, then runs it again once per allocation with that one failing:
 * each run must end in success or a clean status, and give back every allocation it made.
 *
 * With "gpu" as argv[1], the same for the code that needs a GPU: context creation, plans, kernel
 * loading from the disk cache, launches and results read back, checked against the host
 * reference whenever the run succeeds. There only allocations made by this executable's own code
 * (the library is linked in) are counted and failed, since the driver's would be failed too and
 * its own recovery is not under test.
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
#include "context.h"
#include "diskcache.h"
#include "error.h"
#include "harness.h"
#include "execute.h"
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

/* Own-code mode (the GPU scenario): only allocations called from this executable's text count,
 * and `live` follows them through a table of their addresses, since free cannot tell who
 * allocated what it is given. */
extern char __executable_start[], etext[];
static bool own_code_only;
enum { table_size = 1 << 16 };
static void *owned[table_size]; /* guarded by table_lock */
static atomic_flag table_lock = ATOMIC_FLAG_INIT;
static void *const removed = (void *)1;

static bool called_from_own_code(const void *caller) {
  return (const char *)caller >= __executable_start && (const char *)caller < etext;
}

static size_t slot_of(const void *pointer) { return ((uintptr_t)pointer >> 4) * 0x9e3779b97f4a7c15ull >> 48; }

static void table_insert(void *pointer) {
  while (atomic_flag_test_and_set(&table_lock))
    ;
  size_t i = slot_of(pointer);
  while (owned[i] && owned[i] != removed)
    i = (i + 1) % table_size;
  owned[i] = pointer;
  atomic_flag_clear(&table_lock);
}

static bool table_remove(void *pointer) {
  while (atomic_flag_test_and_set(&table_lock))
    ;
  bool found = false;
  for (size_t i = slot_of(pointer); owned[i] && !found; i = (i + 1) % table_size)
    if (owned[i] == pointer) {
      owned[i] = removed;
      found = true;
    }
  atomic_flag_clear(&table_lock);
  return found;
}

static bool counted(const void *caller) { return !own_code_only || called_from_own_code(caller); }

static bool fails_now(const void *caller) {
  if (!counted(caller))
    return false;
  long number = atomic_fetch_add(&allocations, 1) + 1;
  if (number != fail_at)
    return false;
  errno = ENOMEM;
  return true;
}

static void track(void *pointer, const void *caller) {
  if (!pointer || !counted(caller))
    return;
  if (own_code_only)
    table_insert(pointer);
  atomic_fetch_add(&live, 1);
}

static void untrack(void *pointer) {
  if (pointer && (!own_code_only || table_remove(pointer)))
    atomic_fetch_add(&live, -1);
}

void *malloc(size_t size) {
  const void *caller = __builtin_return_address(0);
  if (fails_now(caller))
    return NULL;
  void *pointer = __libc_malloc(size);
  track(pointer, caller);
  return pointer;
}

void *calloc(size_t count, size_t size) {
  const void *caller = __builtin_return_address(0);
  if (fails_now(caller))
    return NULL;
  void *pointer = __libc_calloc(count, size);
  track(pointer, caller);
  return pointer;
}

void *realloc(void *pointer, size_t size) {
  const void *caller = __builtin_return_address(0);
  if (fails_now(caller))
    return NULL;
  void *moved = __libc_realloc(pointer, size);
  if (moved) {
    untrack(pointer);
    track(moved, caller);
  }
  return moved;
}

void free(void *pointer) {
  untrack(pointer);
  __libc_free(pointer);
}

static char *scratch; /* the folder the file scenarios write in */
static const cureduce_logger quiet = {CUREDUCE_LOG_OFF, NULL, NULL};
static const char *const gpu_key = "device=allocation failures;cc=9.0";

/* Each scenario returns the status it ended with. */
static cureduce_status generate_source(void) {
  const cureduce_template_set *templates;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_templates_get(&templates));
  cureduce_spec spec = cureduce_spec_for_strategy(CUREDUCE_STRATEGY_RUNG7, CUREDUCE_OP_MAX, CUREDUCE_F64,
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
                              .spec = cureduce_spec_heuristic(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 2048),
                              .time_us = i, .default_us = i};
    if (!cureduce_tunedb_put(&db, &r)) {
      cureduce_tunedb_free(&db);
      return CUREDUCE_STATUS_OUT_OF_MEMORY;
    }
  }
  char path[4096];
  cureduce_tunedb_path(scratch, gpu_key, path, sizeof path);
  cureduce_status status = cureduce_tunedb_merge(path, gpu_key, &db, &quiet);
  cureduce_tunedb read = {0};
  cureduce_tunedb_read(path, gpu_key, &read, &quiet);
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

/* The GPU paths, on an input staged once (gpu_input, gpu_host): a context in a cache folder of
 * its own, reductions of one and of many blocks and an argmax, checked against the reference. */
enum { gpu_n = 300007 };
static CUdeviceptr gpu_input, gpu_workspace, gpu_output;
static float *gpu_host;
static const cureduce_driver *gpu_driver;

static cureduce_status reduce_and_check(cureduce_context *context, cureduce_op op, size_t n) {
  cureduce_dtype output = CUREDUCE_F32;
  cureduce_value got;
  memset(&got, 0xA5, sizeof got);
  CUREDUCE_FORWARD_IF_ERROR(cureduce_reduce_to_host(context, op, CUREDUCE_F32, (const void *)(uintptr_t)gpu_input, n,
                                                    output, &got, NULL));
  cureduce_ref_result expected = cureduce_ref_expected(op, CUREDUCE_F32, output, gpu_host, n);
  char why[256];
  return cureduce_ref_matches(op, output, &got, &expected, why, sizeof why) ? CUREDUCE_STATUS_OK
                                                                             : CUREDUCE_STATUS_INVALID_ARGUMENT;
}

/* A plan made, described and executed in a workspace of the test's own. */
static cureduce_status plan_and_check(cureduce_context *context) {
  cureduce_problem problem;
  cureduce_problem_init(&problem, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, gpu_n);
  cureduce_plan *plan;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_plan_create(&plan, context, &problem, NULL));
  size_t bytes, alignment;
  cureduce_status status = cureduce_plan_workspace_size(plan, &bytes, &alignment);
  if (status == CUREDUCE_STATUS_OK)
    status = cureduce_plan_execute(plan, (const void *)(uintptr_t)gpu_input, (void *)(uintptr_t)gpu_output,
                                   (void *)(uintptr_t)gpu_workspace, bytes, NULL);
  cureduce_plan_destroy(plan);
  cureduce_value got = {.index = -1};
  if (status == CUREDUCE_STATUS_OK && gpu_driver->cuMemcpyDtoH(&got.value.f32, gpu_output, 4) != CUDA_SUCCESS)
    status = CUREDUCE_STATUS_CUDA_ERROR;
  CUREDUCE_FORWARD_IF_ERROR(status);
  cureduce_ref_result expected = cureduce_ref_expected(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, gpu_host, gpu_n);
  char why[256];
  return cureduce_ref_matches(CUREDUCE_OP_SUM, CUREDUCE_F32, &got, &expected, why, sizeof why)
             ? CUREDUCE_STATUS_OK
             : CUREDUCE_STATUS_INVALID_ARGUMENT;
}

static cureduce_status gpu_paths(void) {
  cureduce_settings settings;
  cureduce_default_settings(&settings);
  settings.cache_dir = scratch;
  settings.log_level = CUREDUCE_LOG_OFF;
  cureduce_context *context;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_context_create(&context, &settings));
  cureduce_status status = reduce_and_check(context, CUREDUCE_OP_SUM, 1000);
  if (status == CUREDUCE_STATUS_OK)
    status = reduce_and_check(context, CUREDUCE_OP_SUM, gpu_n);
  if (status == CUREDUCE_STATUS_OK)
    status = reduce_and_check(context, CUREDUCE_OP_ARGMAX, gpu_n);
  if (status == CUREDUCE_STATUS_OK)
    status = plan_and_check(context);
  cureduce_context_destroy(context);
  return status;
}

typedef struct scenario {
  const char *name;
  cureduce_status (*run)(void);
} scenario;

static const scenario gpu_scenario = {"GPU paths", gpu_paths};

static const scenario scenarios[] = {
    {"source generation", generate_source}, {"spec text", parse_spec},
    {"kernel cache files", kernel_cache_files}, {"tuning database", tuning_database},
    {"error detail", long_error_detail},
};

static bool acceptable(cureduce_status status) {
  return status == CUREDUCE_STATUS_OK || status == CUREDUCE_STATUS_OUT_OF_MEMORY || status == CUREDUCE_STATUS_CACHE_IO;
}

/* Fails each allocation of the scenario once, checking each run's status and leaks. */
static void fail_each_allocation(const scenario *s) {
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

START_TEST(test_every_allocation_fails_once) { fail_each_allocation(&scenarios[_i]); }
END_TEST

START_TEST(test_every_gpu_path_allocation_fails_once) {
  harness_gpu gpu = harness_gpu_open();
  gpu_host = __libc_malloc(gpu_n * sizeof *gpu_host);
  cureduce_ref_fill(CUREDUCE_OP_SUM, CUREDUCE_F32, gpu_host, gpu_n);
  gpu_input = harness_device_alloc(&gpu, gpu_n * sizeof *gpu_host);
  harness_upload(&gpu, gpu_input, gpu_host, gpu_n * sizeof *gpu_host);
  gpu_workspace = harness_device_alloc(&gpu, CUREDUCE_WORKSPACE_MAX_BYTES);
  gpu_output = harness_device_alloc(&gpu, 16);
  gpu_driver = gpu.cu;
  own_code_only = true;
  fail_each_allocation(&gpu_scenario);
  own_code_only = false;
  gpu.cu->cuMemFree(gpu_input);
  gpu.cu->cuMemFree(gpu_workspace);
  gpu.cu->cuMemFree(gpu_output);
  __libc_free(gpu_host);
  harness_gpu_close(&gpu);
}
END_TEST
#endif

int main(int argc, char **argv) {
  bool on_gpu = argc == 2 && strcmp(argv[1], "gpu") == 0;
  if (argc > 2 || (argc == 2 && !on_gpu)) {
    fprintf(stderr, "usage: %s [gpu]\n", argv[0]);
    return 2;
  }
#ifdef UNDER_SANITIZER
  printf("SKIP: the counting allocator cannot run under AddressSanitizer\n");
  return 77;
#else
  if (!(scratch = harness_temporary_folder()))
    return 1;
  Suite *suite = suite_create(on_gpu ? "gpu-alloc-fail" : "alloc-fail");
  TCase *faults = tcase_create("faults");
  tcase_set_timeout(faults, 300);
  if (on_gpu)
    tcase_add_test(faults, test_every_gpu_path_allocation_fails_once);
  else
    tcase_add_loop_test(faults, test_every_allocation_fails_once, 0, sizeof scenarios / sizeof scenarios[0]);
  suite_add_tcase(suite, faults);
  int code = harness_run(suite, on_gpu);
  return harness_remove_tree(scratch) ? code : 1;
#endif
}
