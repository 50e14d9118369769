/* What cureduce-bench's tables share: ending the run on a failed call, with the library's detail. */
#ifndef CUREDUCE_BENCH_SUPPORT_H
#define CUREDUCE_BENCH_SUPPORT_H

#include "driver.h"

/* Prints "cureduce-bench: WHAT: <the thread's last error detail>" and exits with 1. */
_Noreturn void cureduce_bench_fail(const char *what);
/* cureduce_bench_fail(what) unless the driver call succeeded. */
void cureduce_bench_check_cuda(CUresult result, const char *what);

#endif
