#include <stdio.h>
#include <stdlib.h>

#include "bench_support.h"

_Noreturn void cureduce_bench_fail(const char *what) {
  fprintf(stderr, "cureduce-bench: %s: %s\n", what, cureduce_last_error_detail());
  exit(1);
}

void cureduce_bench_check_cuda(CUresult result, const char *what) {
  if (result != CUDA_SUCCESS) {
    cureduce_driver_check(result, what, __FILE__, __LINE__);
    cureduce_bench_fail(what);
  }
}

float cureduce_bench_elapsed_ms(const cureduce_bench_timer *timer, cureduce_bench_enqueue enqueue, void *state,
                                const void *what, int calls) {
  cureduce_bench_check_cuda(timer->cu->cuEventRecord(timer->start, timer->stream), "cuEventRecord");
  for (int i = 0; i < calls; i++)
    enqueue(state, what);
  cureduce_bench_check_cuda(timer->cu->cuEventRecord(timer->stop, timer->stream), "cuEventRecord");
  cureduce_bench_check_cuda(timer->cu->cuEventSynchronize(timer->stop), "cuEventSynchronize");
  float ms;
  cureduce_bench_check_cuda(timer->cu->cuEventElapsedTime(&ms, timer->start, timer->stop), "cuEventElapsedTime");
  return ms;
}

static int compare_floats(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

float cureduce_bench_median(float *times, int count) {
  qsort(times, (size_t)count, sizeof *times, compare_floats);
  return times[count / 2];
}
