/* Plans: which kernel reduces (operation, input type, output type, size bucket) on this device,
 * and how it is launched. Made once per key, then read without a lock on every call. */
#ifndef CUREDUCE_PLAN_H
#define CUREDUCE_PLAN_H

#include <stdatomic.h>
#include <stdbool.h>

#include "kcache.h"

typedef struct cureduce_plan {
  cureduce_spec spec;
  cureduce_kernel kernel;
  struct cureduce_plan *next; /* every plan of the table, for freeing */
} cureduce_plan;

/* Size buckets: the bit length of n, 0 to 64. */
#define CUREDUCE_SIZE_BUCKETS 65

typedef struct cureduce_plan_table {
  _Atomic(cureduce_plan *) slots[CUREDUCE_OP_COUNT][CUREDUCE_DTYPE_COUNT][2][CUREDUCE_SIZE_BUCKETS];
  _Atomic(cureduce_plan *) all;
} cureduce_plan_table;

struct cureduce_context;

unsigned cureduce_size_bucket(size_t n);

/* The heuristic choice until the tuner has measured: the single-pass strategy, 256 threads,
 * 16-byte loads, four in flight, and a grid that fills every SM. */
cureduce_spec cureduce_plan_default_spec(cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                                         int max_threads_per_sm);
/* The same shape for any strategy, within what it accepts: the ladder's rungs load single
 * elements, rungs 8 to 10 take 8 per thread. */
cureduce_spec cureduce_plan_strategy_spec(cureduce_strategy strategy, cureduce_op op, cureduce_dtype input,
                                          cureduce_dtype output, int max_threads_per_sm);

/* The plan for a call whose types are already checked; the context must be current. */
cureduce_status cureduce_plan_get(struct cureduce_context *context, cureduce_op op, cureduce_dtype input,
                                  cureduce_dtype output, size_t n, const cureduce_plan **plan);

/* The plan already made for the key, or NULL; lock-free. */
const cureduce_plan *cureduce_plan_peek(struct cureduce_context *context, cureduce_op op, cureduce_dtype input,
                                        cureduce_dtype output, size_t n);

/* Whether the tuning database has a choice for the key (takes a lock: not for every call). */
bool cureduce_plan_is_tuned(struct cureduce_context *context, cureduce_op op, cureduce_dtype input,
                            cureduce_dtype output, size_t n);

/* Drops the plan of a key so that the next call makes it anew (after tuning). The old plan stays
 * allocated until the table is freed, since a racing call may still hold it. */
void cureduce_plan_forget(cureduce_plan_table *table, cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                          unsigned bucket);

void cureduce_plan_table_free(cureduce_plan_table *table);

#endif
