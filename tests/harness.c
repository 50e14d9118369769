#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "context.h"
#include "harness.h"
#include "tune.h"

/* ---- shards ------------------------------------------------------------------------------ */

enum { max_shards = 64 };
static int shard_count = 1, shard_index, tests_registered;

/* The value of a variable of the environment in [low, high]; `fallback` when unset; exits 2 on
 * anything else, so that a typo never runs a suite partly. */
static int environment_number(const char *name, int low, int high, int fallback) {
  const char *text = getenv(name);
  if (!text)
    return fallback;
  char *end;
  long value = strtol(text, &end, 10);
  if (end == text || *end || value < low || value > high) {
    fprintf(stderr, "%s=%s: not a number from %d to %d\n", name, text, low, high);
    exit(2);
  }
  return (int)value;
}

/* The exit code of shard `k` (0, 77 or failure), after its output. */
static int report_shard(int k, pid_t child, FILE *log) {
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) {
      perror("harness: waiting for a shard");
      return 1;
    }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  printf("== shard %d/%d: exit %d%s\n", k, shard_count, code, WIFSIGNALED(status) ? " (killed by a signal)" : "");
  rewind(log);
  char chunk[4096];
  for (size_t n; (n = fread(chunk, 1, sizeof chunk, log)) > 0;)
    fwrite(chunk, 1, n, stdout);
  fclose(log);
  return code;
}

/* The parent: the shards' processes, each writing to a file of its own; never returns. */
static void run_shards(void) {
  char seed[32];
  snprintf(seed, sizeof seed, "%" PRIu64, cureduce_ref_seed());
  setenv("CUREDUCE_TEST_SEED", seed, 1); /* one seed for all, to replay any shard */
  pid_t children[max_shards];
  FILE *logs[max_shards];
  fflush(NULL);
  for (int k = 0; k < shard_count; k++) {
    logs[k] = tmpfile();
    children[k] = logs[k] ? fork() : -1;
    if (children[k] < 0) {
      perror("harness: a shard's log or process");
      exit(1);
    }
    if (children[k] == 0) {
      dup2(fileno(logs[k]), STDOUT_FILENO);
      dup2(fileno(logs[k]), STDERR_FILENO);
      setvbuf(stdout, NULL, _IOLBF, 0); /* what a crash leaves is in the log */
      char index[16];
      snprintf(index, sizeof index, "%d", k);
      setenv("CUREDUCE_TEST_SHARD", index, 1);
      shard_index = k;
      return;
    }
  }
  int failed = 0, skipped = 0;
  for (int k = 0; k < shard_count; k++) {
    int code = report_shard(k, children[k], logs[k]);
    failed += code != 0 && code != 77;
    skipped += code == 77;
  }
  exit(failed || (skipped && skipped < shard_count) ? 1 : skipped ? 77 : 0);
}

void harness_split_into_shards(void) {
  shard_count = environment_number("CUREDUCE_TEST_SHARDS", 1, max_shards, 1);
  shard_index = environment_number("CUREDUCE_TEST_SHARD", 0, shard_count - 1, -1);
  if (shard_count > 1 && shard_index < 0)
    run_shards(); /* returns in the children only */
  if (shard_index < 0)
    shard_index = 0;
}

void harness_add_loop_test(TCase *tcase, const TTest *test, int start, int end) {
  for (int i = start; i < end; i++)
    if (tests_registered++ % shard_count == shard_index)
      tcase_add_loop_test(tcase, test, i, i + 1);
}

/* ---- running -------------------------------------------------------------------------------- */

static bool gpu_required(void) {
  const char *value = getenv("CUREDUCE_REQUIRE_GPU");
  return value && strcmp(value, "1") == 0;
}

/* 0 when a context can be made; else the exit code: 77 (skip) or 1 (fail). */
static int check_gpu(void) {
  cureduce_context *context = NULL;
  cureduce_status status = cureduce_context_create(&context, NULL);
  if (status == CUREDUCE_STATUS_OK) {
    cureduce_context_destroy(context);
    return 0;
  }
  bool no_gpu = status == CUREDUCE_STATUS_NO_DRIVER || status == CUREDUCE_STATUS_NO_DEVICE;
  if (no_gpu && !gpu_required()) {
    printf("SKIP: no GPU here, so this GPU suite does not run (%s). "
           "Set CUREDUCE_REQUIRE_GPU=1 to make that a failure.\n",
           cureduce_last_error_detail());
    return 77;
  }
  printf("FAIL: %s: %s\n", no_gpu ? "CUREDUCE_REQUIRE_GPU=1 but no GPU" : "no context", cureduce_last_error_detail());
  return 1;
}

int harness_run(Suite *suite, bool needs_gpu) {
  uint64_t seed = cureduce_ref_seed();
  if (shard_count > 1)
    printf("random seed %" PRIu64 " (replay with CUREDUCE_TEST_SEED=%" PRIu64
           " CUREDUCE_TEST_SHARDS=%d CUREDUCE_TEST_SHARD=%d)\n",
           seed, seed, shard_count, shard_index);
  else
    printf("random seed %" PRIu64 " (replay with CUREDUCE_TEST_SEED=%" PRIu64 ")\n", seed, seed);
  if (needs_gpu) {
    int code = check_gpu();
    if (code != 0) {
      srunner_free(srunner_create(suite)); /* frees the suite */
      return code;
    }
  }
  SRunner *runner = srunner_create(suite);
  if (needs_gpu)
    srunner_set_fork_status(runner, CK_NOFORK);
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed ? 1 : 0;
}

cureduce_context *harness_context_in(const char *cache_dir, cureduce_tuning tuning) {
  cureduce_settings settings;
  cureduce_default_settings(&settings);
  settings.cache_dir = cache_dir;
  settings.tuning = tuning;
  cureduce_context *context;
  ck_assert_msg(cureduce_context_create(&context, &settings) == CUREDUCE_STATUS_OK, "%s", cureduce_last_error_detail());
  return context;
}

harness_gpu harness_gpu_open(void) {
  harness_gpu gpu = {0};
  cureduce_status status = cureduce_context_create(&gpu.context, NULL);
  ck_assert_msg(status == CUREDUCE_STATUS_OK, "context: %s", cureduce_last_error_detail());
  ck_assert(cureduce_driver_get(&gpu.cu) == CUREDUCE_STATUS_OK);
  ck_assert(gpu.cu->cuCtxPushCurrent(gpu.context->primary) == CUDA_SUCCESS);
  return gpu;
}

void harness_gpu_close(harness_gpu *gpu) {
  CUcontext popped;
  ck_assert(gpu->cu->cuCtxSynchronize() == CUDA_SUCCESS);
  gpu->cu->cuCtxPopCurrent(&popped);
  cureduce_context_destroy(gpu->context);
  gpu->context = NULL;
}

void harness_compile_ahead(const harness_gpu *gpu, const cureduce_spec *specs, size_t count) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  cureduce_context *c = gpu->context;
  ck_assert_msg(cureduce_compile_specs(specs, count, c->info.arch, &c->disk, &c->logger, cpus > 1 ? (int)cpus : 1) ==
                    CUREDUCE_STATUS_OK,
                "%s", cureduce_last_error_detail());
}

CUdeviceptr harness_device_alloc(const harness_gpu *gpu, size_t bytes) {
  CUdeviceptr pointer = 0;
  CUresult result = gpu->cu->cuMemAlloc(&pointer, bytes);
  ck_assert_msg(result == CUDA_SUCCESS, "cuMemAlloc(%zu) failed: %d", bytes, (int)result);
  return pointer;
}

void harness_upload(const harness_gpu *gpu, CUdeviceptr to, const void *from, size_t bytes) {
  ck_assert(gpu->cu->cuMemcpyHtoD(to, from, bytes) == CUDA_SUCCESS);
  /* From pageable memory the copy may return before its DMA ends, and work on a non-blocking
   * stream does not wait for the legacy stream: wait here. */
  ck_assert(gpu->cu->cuStreamSynchronize(NULL) == CUDA_SUCCESS);
}

void harness_download(const harness_gpu *gpu, void *to, CUdeviceptr from, size_t bytes) {
  ck_assert(gpu->cu->cuMemcpyDtoH(to, from, bytes) == CUDA_SUCCESS);
}


int harness_warnings;
char harness_last_warning[8192];

static void keep_warning(void *user, cureduce_log_level level, const char *message) {
  (void)user;
  if (level == CUREDUCE_LOG_WARN) {
    harness_warnings++;
    snprintf(harness_last_warning, sizeof harness_last_warning, "%s", message);
  }
}

const cureduce_logger harness_keep_warnings = {CUREDUCE_LOG_WARN, keep_warning, NULL};

char *harness_temporary_folder(void) {
  char *folder = strdup("/tmp/cureduce-test-XXXXXX");
  if (folder && (!mkdtemp(folder) || chmod(folder, 0755) != 0)) {
    free(folder);
    folder = NULL;
  }
  return folder;
}

bool harness_remove_tree(char *folder) {
  char command[512];
  snprintf(command, sizeof command, "rm -rf '%s'", folder);
  bool removed = system(command) == 0;
  free(folder);
  return removed;
}

bool harness_make_readable_by_all(const char *folder) {
  char command[512];
  snprintf(command, sizeof command, "chmod -R go+rX '%s'", folder);
  return system(command) == 0;
}

bool harness_drop_privileges(void) { return geteuid() != 0 || (setgid(65534) == 0 && setuid(65534) == 0); }

void harness_expect_child_success(pid_t child, const char *what) {
  int status;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", what);
}

void harness_kill_after_random_pause(pid_t child, int min_ms, int max_ms) {
  struct timespec pause = {0, (long)cureduce_ref_random_range(min_ms, max_ms) * 1000000};
  nanosleep(&pause, NULL);
  kill(child, SIGKILL);
  int status;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
}
