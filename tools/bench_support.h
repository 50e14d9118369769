/* What cureduce-bench's tables share: ending the run on a failed call, with the library's detail,
 * and timing calls between events. */
#ifndef CUREDUCE_BENCH_SUPPORT_H
#define CUREDUCE_BENCH_SUPPORT_H

#include "driver.h"

/* Prints "cureduce-bench: WHAT: <the thread's last error detail>" and exits with 1. */
_Noreturn void cureduce_bench_fail(const char *what);
/* cureduce_bench_fail(what) unless the driver call succeeded. */
void cureduce_bench_check_cuda(CUresult result, const char *what);

typedef struct cureduce_bench_timer {
  const cureduce_driver *cu;
  CUstream stream;
  CUevent start, stop;
} cureduce_bench_timer;

/* Enqueues one call of `what` for `state` on the timer's stream. */
typedef void (*cureduce_bench_enqueue)(void *state, const void *what);

/* Milliseconds between events recorded around `calls` calls enqueued back to back. */
float cureduce_bench_elapsed_ms(const cureduce_bench_timer *timer, cureduce_bench_enqueue enqueue, void *state,
                                const void *what, int calls);
/* The median of `count` times (sorts them). */
float cureduce_bench_median(float *times, int count);

#endif
