#include <stdlib.h>

#include "context.h"
#include "error.h"

unsigned cureduce_size_bucket(size_t n) {
  unsigned bits = 0;
  while (n) {
    bits++;
    n >>= 1;
  }
  return bits;
}

cureduce_spec cureduce_plan_strategy_spec(cureduce_strategy strategy, cureduce_op op, cureduce_dtype input,
                                          cureduce_dtype output, int max_threads_per_sm) {
  enum { block = 256 };
  int blocks_per_sm = max_threads_per_sm / block;
  cureduce_coverage coverage = cureduce_strategy_coverage(strategy);
  return (cureduce_spec){
      .op = (uint8_t)op,
      .input = (uint8_t)input,
      .output = (uint8_t)output,
      .strategy = (uint8_t)strategy,
      .block = block,
      .unroll = coverage == CUREDUCE_COVER_GRID_STRIDE ? 4 : coverage == CUREDUCE_COVER_UNROLL_PER_THREAD ? 8 : 1,
      .vector_bytes = (uint8_t)(coverage == CUREDUCE_COVER_GRID_STRIDE ? 16 : cureduce_dtype_size(input)),
      .blocks_per_sm = (uint16_t)(blocks_per_sm < 1 ? 1 : blocks_per_sm > 32 ? 32 : blocks_per_sm)};
}

cureduce_spec cureduce_plan_default_spec(cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                                         int max_threads_per_sm) {
  return cureduce_plan_strategy_spec(CUREDUCE_STRATEGY_SINGLE_PASS, op, input, output, max_threads_per_sm);
}

/* The tuned spec of the key when the policy allows and the database has one, else the heuristic. */
static cureduce_spec choose_spec(cureduce_context *context, cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                                 unsigned bucket) {
  cureduce_spec spec = cureduce_plan_default_spec(op, input, output, context->info.max_threads_per_sm);
  if (context->tuning == CUREDUCE_TUNING_OFF)
    return spec;
  pthread_mutex_lock(&context->tuned_lock);
  const cureduce_tune_record *record = cureduce_tunedb_find(&context->tuned, op, input, output, bucket);
  if (record)
    spec = record->spec;
  pthread_mutex_unlock(&context->tuned_lock);
  return spec;
}

static cureduce_status make_plan(cureduce_context *context, cureduce_op op, cureduce_dtype input,
                                 cureduce_dtype output, unsigned bucket, cureduce_plan **made) {
  cureduce_plan *plan = calloc(1, sizeof *plan);
  CUREDUCE_RETURN_ERROR_IF(!plan, OUT_OF_MEMORY, "no memory for a plan");
  plan->spec = choose_spec(context, op, input, output, bucket);
  cureduce_status status = cureduce_kcache_get(&context->kernels, &plan->spec, &plan->kernel);
  if (status != CUREDUCE_STATUS_OK) {
    free(plan);
    return status;
  }
  *made = plan;
  return CUREDUCE_STATUS_OK;
}

static _Atomic(cureduce_plan *) *plan_slot(cureduce_context *context, cureduce_op op, cureduce_dtype input,
                                          cureduce_dtype output, unsigned bucket) {
  return &context->plans.slots[op][input][output != input][bucket];
}

const cureduce_plan *cureduce_plan_peek(cureduce_context *context, cureduce_op op, cureduce_dtype input,
                                        cureduce_dtype output, size_t n) {
  return atomic_load_explicit(plan_slot(context, op, input, output, cureduce_size_bucket(n)), memory_order_acquire);
}

cureduce_status cureduce_plan_get(cureduce_context *context, cureduce_op op, cureduce_dtype input,
                                  cureduce_dtype output, size_t n, const cureduce_plan **plan) {
  unsigned bucket = cureduce_size_bucket(n);
  _Atomic(cureduce_plan *) *slot = plan_slot(context, op, input, output, bucket);
  cureduce_plan *found = atomic_load_explicit(slot, memory_order_acquire);
  if (found) {
    *plan = found;
    return CUREDUCE_STATUS_OK;
  }
  cureduce_plan *made = NULL;
  CUREDUCE_FORWARD_IF_ERROR(make_plan(context, op, input, output, bucket, &made));
  /* Publish; a racing thread's plan is equally good, so the loser frees its own. */
  cureduce_plan *expected = NULL;
  if (!atomic_compare_exchange_strong_explicit(slot, &expected, made, memory_order_acq_rel, memory_order_acquire)) {
    free(made);
    *plan = expected;
    return CUREDUCE_STATUS_OK;
  }
  made->next = atomic_load(&context->plans.all);
  while (!atomic_compare_exchange_weak(&context->plans.all, &made->next, made))
    ;
  *plan = made;
  return CUREDUCE_STATUS_OK;
}

bool cureduce_plan_is_tuned(cureduce_context *context, cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                            size_t n) {
  pthread_mutex_lock(&context->tuned_lock);
  bool tuned = cureduce_tunedb_find(&context->tuned, op, input, output, cureduce_size_bucket(n)) != NULL;
  pthread_mutex_unlock(&context->tuned_lock);
  return tuned;
}

void cureduce_plan_forget(cureduce_plan_table *table, cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                          unsigned bucket) {
  atomic_store(&table->slots[op][input][output != input][bucket], NULL);
}

void cureduce_plan_table_free(cureduce_plan_table *table) {
  for (cureduce_plan *plan = atomic_load(&table->all), *next; plan; plan = next) {
    next = plan->next;
    free(plan);
  }
}
