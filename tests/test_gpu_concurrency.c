/* 16 processes of 16 threads each against one cache folder at once: in every process 4 threads
 * tune (quick, n = 2^8 to 2^14, one of four (operation, type) pairs) while 12 reduce fresh random
 * data of random sizes and types on their own streams and check each result against the host
 * reference. Afterwards the tuning database must be valid and hold every bucket of every pair,
 * and a new process must reduce correctly with what the others stored. */
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cachefile.h"
#include "context.h"
#include "harness.h"
#include "plan.h"
#include "tunedb.h"

extern char **environ;

enum { processes = 16, threads = 16, tuners = 4, calls = 20, min_n = 256, max_n = 16384 };

static const struct {
  cureduce_op op;
  cureduce_dtype input, output;
} tuned_pairs[4] = {{CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32},
                    {CUREDUCE_OP_MAX, CUREDUCE_F32, CUREDUCE_F32},
                    {CUREDUCE_OP_SUM, CUREDUCE_I32, CUREDUCE_I64},
                    {CUREDUCE_OP_ARGMIN, CUREDUCE_BF16, CUREDUCE_BF16}};

static const cureduce_op reduced_ops[] = {CUREDUCE_OP_SUM, CUREDUCE_OP_MIN, CUREDUCE_OP_MAX, CUREDUCE_OP_ARGMAX};
static const cureduce_dtype reduced_types[] = {CUREDUCE_F32, CUREDUCE_F64, CUREDUCE_I32, CUREDUCE_U8, CUREDUCE_BF16};

typedef struct worker {
  cureduce_context *context;
  int process, thread;
  char failure[512];
} worker;

/* Reduces `calls` fresh random inputs on its own stream; the first wrong result is kept. */
static void reduce_and_check(worker *w, const cureduce_driver *cu) {
  CUstream stream;
  if (cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
    snprintf(w->failure, sizeof w->failure, "cuStreamCreate failed");
    return;
  }
  for (int call = 0; call < calls && !w->failure[0]; call++) {
    cureduce_op op = reduced_ops[cureduce_ref_random_range(0, 3)];
    cureduce_dtype type = reduced_types[cureduce_ref_random_range(0, 4)], output;
    cureduce_accumulator_type(op, type, &output);
    size_t n = (size_t)cureduce_ref_random_range(1, 1 << 21), bytes = n * cureduce_dtype_size(type);
    void *host = malloc(bytes);
    CUdeviceptr input = 0;
    cureduce_ref_fill(op, type, host, n);
    /* The copy runs on the legacy stream and may return before its DMA ends: wait for it, since
     * the reduction's non-blocking stream will not. */
    if (!host || cu->cuMemAlloc(&input, bytes) != CUDA_SUCCESS || cu->cuMemcpyHtoD(input, host, bytes) != CUDA_SUCCESS ||
        cu->cuStreamSynchronize(NULL) != CUDA_SUCCESS) {
      snprintf(w->failure, sizeof w->failure, "could not stage %zu bytes", bytes);
    } else {
      cureduce_value got;
      memset(&got, 0xA5, sizeof got);
      cureduce_status status =
          cureduce_reduce_to_host(w->context, op, type, (const void *)(uintptr_t)input, n, output, &got, stream);
      cureduce_ref_result expected = cureduce_ref_expected(op, type, output, host, n);
      char why[256];
      if (status != CUREDUCE_STATUS_OK)
        snprintf(w->failure, sizeof w->failure, "%s", cureduce_last_error_detail());
      else if (!cureduce_ref_matches(op, output, &got, &expected, why, sizeof why))
        snprintf(w->failure, sizeof w->failure, "%s %s n=%zu: %s", cureduce_op_name(op), cureduce_dtype_name(type), n,
                 why);
    }
    if (input)
      cu->cuMemFree(input);
    free(host);
  }
  cureduce_release_stream(w->context, stream);
  cu->cuStreamDestroy(stream);
}

static void *run_worker(void *argument) {
  worker *w = argument;
  const cureduce_driver *cu;
  cureduce_driver_get(&cu);
  cu->cuCtxPushCurrent(w->context->primary);
  if (w->thread < tuners) {
    int pair = (w->process + w->thread) % 4;
    if (cureduce_tune(w->context, tuned_pairs[pair].op, tuned_pairs[pair].input, tuned_pairs[pair].output, min_n,
                      max_n, 1) != CUREDUCE_STATUS_OK)
      snprintf(w->failure, sizeof w->failure, "tune: %s", cureduce_last_error_detail());
  } else {
    reduce_and_check(w, cu);
  }
  CUcontext popped;
  cu->cuCtxPopCurrent(&popped);
  return NULL;
}

/* One of the processes: exit 0 when every thread succeeded. */
static int run_child(int process, const char *folder) {
  cureduce_settings settings;
  cureduce_default_settings(&settings);
  settings.cache_dir = folder;
  cureduce_context *context;
  if (cureduce_context_create(&context, &settings) != CUREDUCE_STATUS_OK) {
    fprintf(stderr, "process %d: %s\n", process, cureduce_last_error_detail());
    return 1;
  }
  worker workers[threads];
  pthread_t ids[threads];
  for (int t = 0; t < threads; t++) {
    workers[t] = (worker){context, process, t, ""};
    pthread_create(&ids[t], NULL, run_worker, &workers[t]);
  }
  int failed = 0;
  for (int t = 0; t < threads; t++) {
    pthread_join(ids[t], NULL);
    if (workers[t].failure[0]) {
      fprintf(stderr, "process %d thread %d: %s\n", process, t, workers[t].failure);
      failed++;
    }
  }
  cureduce_context_destroy(context);
  return failed ? 1 : 0;
}

static const char *self_path;

START_TEST(test_processes_and_threads_share_a_cache) {
  char *folder = harness_temporary_folder();
  ck_assert(folder);
  pid_t children[processes];
  for (int p = 0; p < processes; p++) {
    char number[16];
    snprintf(number, sizeof number, "%d", p);
    char *argv[] = {(char *)self_path, "--child", number, folder, NULL};
    ck_assert(posix_spawn(&children[p], "/proc/self/exe", NULL, NULL, argv, environ) == 0);
  }
  for (int p = 0; p < processes; p++)
    harness_expect_child_success(children[p], "a tuning and reducing process");

  /* The database: valid, and every bucket of every pair in it. */
  harness_gpu gpu = harness_gpu_open();
  cureduce_settings settings;
  cureduce_default_settings(&settings);
  settings.cache_dir = folder;
  cureduce_context *context;
  ck_assert(cureduce_context_create(&context, &settings) == CUREDUCE_STATUS_OK);
  void *data;
  size_t size;
  ck_assert_msg(cureduce_read_file(context->tunedb_path, (size_t)64 << 20, &data, &size), "no database at %s", context->tunedb_path);
  cureduce_tunedb db = {0};
  ck_assert_int_eq(cureduce_tunedb_decode(context->gpu_key, data, size, &db), CUREDUCE_TUNEDB_VALID);
  free(data);
  for (int pair = 0; pair < 4; pair++)
    for (unsigned bucket = cureduce_size_bucket(min_n); bucket <= cureduce_size_bucket(max_n); bucket++)
    {
      cureduce_tune_record key = cureduce_tunedb_contiguous_key(tuned_pairs[pair].op, tuned_pairs[pair].input,
                                                                tuned_pairs[pair].output, bucket);
      ck_assert_msg(cureduce_tunedb_find(&db, &key), "pair %d bucket %u lost", pair, bucket);
    }
  cureduce_tunedb_free(&db);

  /* A new process's context reduces correctly with the stored choices. */
  for (int pair = 0; pair < 4; pair++)
    for (size_t n = min_n; n <= max_n; n = n * 2 + 7) {
      cureduce_dtype type = tuned_pairs[pair].input;
      size_t bytes = n * cureduce_dtype_size(type);
      void *host = malloc(bytes);
      cureduce_ref_fill(tuned_pairs[pair].op, type, host, n);
      CUdeviceptr input = harness_device_alloc(&gpu, bytes);
      harness_upload(&gpu, input, host, bytes);
      ck_assert(cureduce_plan_is_tuned(context, tuned_pairs[pair].op, type, tuned_pairs[pair].output, n));
      cureduce_value got;
      memset(&got, 0xA5, sizeof got);
      ck_assert(cureduce_reduce_to_host(context, tuned_pairs[pair].op, type, (const void *)(uintptr_t)input, n,
                                        tuned_pairs[pair].output, &got, NULL) == CUREDUCE_STATUS_OK);
      cureduce_ref_result expected = cureduce_ref_expected(tuned_pairs[pair].op, type, tuned_pairs[pair].output, host, n);
      char why[256];
      ck_assert_msg(cureduce_ref_matches(tuned_pairs[pair].op, tuned_pairs[pair].output, &got, &expected, why,
                                         sizeof why),
                    "pair %d n=%zu: %s", pair, n, why);
      gpu.cu->cuMemFree(input);
      free(host);
    }
  cureduce_context_destroy(context);
  harness_gpu_close(&gpu);
  ck_assert(harness_remove_tree(folder));
}
END_TEST

int main(int argc, char **argv) {
  self_path = argv[0];
  if (argc == 4 && strcmp(argv[1], "--child") == 0) {
    cureduce_ref_seed();
    return run_child(atoi(argv[2]), argv[3]);
  }
  Suite *suite = suite_create("gpu-concurrency");
  TCase *all = tcase_create("all");
  tcase_set_timeout(all, 600);
  tcase_add_test(all, test_processes_and_threads_share_a_cache);
  suite_add_tcase(suite, all);
  return harness_run(suite, true);
}
