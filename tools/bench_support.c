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
