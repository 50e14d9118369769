/* What every test suite shares: running a libcheck suite (GPU suites skip with exit code 77 and a
 * reason, or fail when CUREDUCE_REQUIRE_GPU=1)
 * and device memory helpers. The host reference lives in tools/reference.h. */
#ifndef CUREDUCE_TEST_HARNESS_H
#define CUREDUCE_TEST_HARNESS_H

#include <check.h>
#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "cureduce/cureduce.h"
#include "reference.h"

/* Runs the suite and returns the process exit code. GPU suites run without fork (CUDA does not
 * survive one) and first make sure a GPU is there: without one they return 77 after printing
 * why, unless CUREDUCE_REQUIRE_GPU=1, when they fail. */
int harness_run(Suite *suite, bool needs_gpu);

/* ---- shards: a long suite's tests in processes side by side ------------------------------- */
/* Most of a GPU suite's time is the host's (NVRTC, references), so CUREDUCE_TEST_SHARDS=K spreads
 * its tests over K processes: called first in main, this forks them, and in the parent waits for
 * them, prints each one's output after the other's and exits (1 if any failed, 77 if all
 * skipped). Each shard runs every K-th test (harness_add_*), all with one seed; one shard alone,
 * to replay it: CUREDUCE_TEST_SHARD=k beside the seed and the count. Unset or 1: no fork. */
void harness_split_into_shards(void);
/* tcase_add_loop_test and tcase_add_test that register only this process's shard's tests (each
 * iteration of a loop is a test of its own). */
void harness_add_loop_test(TCase *tcase, const TTest *test, int start, int end);
#define harness_add_test(tcase, test) harness_add_loop_test((tcase), (test), 0, 1)

/* A context on device 0, made current for the calling thread together with the driver, so that
 * tests can allocate and copy; the test fails without one. */
#include "driver.h"
typedef struct harness_gpu {
  cureduce_context *context;
  const cureduce_driver *cu;
} harness_gpu;
harness_gpu harness_gpu_open(void);
void harness_gpu_close(harness_gpu *gpu);
/* A context of the device's beside the harness's, its kernel cache and tuning in cache_dir (NULL:
 * the default's), with the tuning policy given; fails the test if it cannot be made. */
cureduce_context *harness_context_in(const char *cache_dir, cureduce_tuning tuning);
/* Device memory helpers that fail the test on any driver error. An upload has reached the
 * device when it returns, so that any stream may read it. */
CUdeviceptr harness_device_alloc(const harness_gpu *gpu, size_t bytes);
/* Compiles the kernels of a sweep's specs into the context's disk cache with a compiler per CPU
 * (cureduce_compile_specs): the sweep's plans then load them. Fails the test if one does not
 * compile. */
#include "spec.h"
void harness_compile_ahead(const harness_gpu *gpu, const cureduce_spec *specs, size_t count);
void harness_upload(const harness_gpu *gpu, CUdeviceptr to, const void *from, size_t bytes);
void harness_download(const harness_gpu *gpu, void *to, CUdeviceptr from, size_t bytes);

/* ---- the library's warnings, for the cache tests ------------------------------------------ */
#include "log.h"
/* A logger (level warn) that counts the warnings and keeps the last one's text. */
extern const cureduce_logger harness_keep_warnings;
extern int harness_warnings;
extern char harness_last_warning[8192];

/* ---- processes and folders, for the cache and fault tests -------------------------------- */
/* A fresh folder under /tmp that an unprivileged user may enter (mode 0755), or NULL. */
char *harness_temporary_folder(void);
/* Removes the folder and everything below it, and frees its name; false if anything stayed. */
bool harness_remove_tree(char *folder);
/* chmod -R go+rX: what an administrator does to share a cache the library made 0700 and 0600
 * (it stays trusted: nobody else may write it). */
bool harness_make_readable_by_all(const char *folder);
/* In a forked child: as root, become nobody, since root ignores permissions; false on failure. */
bool harness_drop_privileges(void);
/* Waits for a forked child and fails the test, naming `what`, unless it exited with 0. */
void harness_expect_child_success(pid_t child, const char *what);
/* Lets a forked child run for a random min_ms to max_ms milliseconds, then kills it with
 * SIGKILL and reaps it. */
void harness_kill_after_random_pause(pid_t child, int min_ms, int max_ms);

#endif
