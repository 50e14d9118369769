/* The plans cureduce_reduce() runs: one per (operation, input type, output type, size bucket) of a
 * context, made on first use and then read without a lock on every call. A pure data structure:
 * plan.c decides what goes in, context.c empties slots when tuning changes a choice. */
#ifndef CUREDUCE_PLANCACHE_H
#define CUREDUCE_PLANCACHE_H

#include <stdatomic.h>

#include "cureduce/cureduce.h"
#include "driver.h"
#include "spec.h"

/* Size buckets: the bit length of n, 0 to 64. */
#define CUREDUCE_SIZE_BUCKETS 65
unsigned cureduce_size_bucket(size_t n);

typedef struct cureduce_choice {
  cureduce_spec spec;
  CUfunction kernel;
  cureduce_plan_origin origin;
  struct cureduce_choice *next; /* every choice ever published, for freeing */
} cureduce_choice;

typedef struct cureduce_plancache {
  _Atomic(cureduce_choice *) slots[CUREDUCE_OP_COUNT][CUREDUCE_DTYPE_COUNT][3][CUREDUCE_SIZE_BUCKETS];
  _Atomic(cureduce_choice *) all;
  /* Counts adoptions of tuning: a choice made before one may be stale. */
  atomic_uint generation;
} cureduce_plancache;

/* The cache holds untransformed keys only (the shortcut's): plans of a transformed problem make
 * their choice each time (plan.c). */
typedef struct cureduce_plancache_key {
  cureduce_op op;
  cureduce_dtype input, output;
  unsigned bucket;
  cureduce_transform transform;
  uint64_t expression; /* CUREDUCE_TRANSFORM_EXPRESSION: the text's digest */
} cureduce_plancache_key;

/* The published choice for the key, or NULL. Lock-free. */
const cureduce_choice *cureduce_plancache_peek(cureduce_plancache *cache, const cureduce_plancache_key *key);

/* Publishes `made` (malloc'd, chosen while the generation was `generation`) unless another thread
 * was first, and returns the choice to run now. The cache owns `made` afterwards. When tuning was
 * adopted meanwhile, the slot is emptied again so that the next call chooses anew. */
const cureduce_choice *cureduce_plancache_publish(cureduce_plancache *cache, const cureduce_plancache_key *key,
                                                  cureduce_choice *made, unsigned generation);

/* Tuning changed the key's choice: bumps the generation, then empties the slot. Choices stay
 * allocated until the cache is freed, since a racing call may still run one. */
void cureduce_plancache_forget(cureduce_plancache *cache, const cureduce_plancache_key *key);

void cureduce_plancache_free(cureduce_plancache *cache);

#endif
