#include <stdlib.h>

#include "dtype.h"
#include "plancache.h"

unsigned cureduce_size_bucket(size_t n) {
  unsigned bits = 0;
  while (n) {
    bits++;
    n >>= 1;
  }
  return bits;
}

/* 0: the output is the input type; 1: the accumulator type; 2: an exact sum's words. */
static unsigned output_slot(const cureduce_plancache_key *key) {
  return cureduce_is_exact_partial(key->op, key->output) ? 2 : key->output != key->input;
}

static _Atomic(cureduce_choice *) *slot_of(cureduce_plancache *cache, const cureduce_plancache_key *key) {
  return &cache->slots[key->op][key->input][output_slot(key)][key->bucket];
}

const cureduce_choice *cureduce_plancache_peek(cureduce_plancache *cache, const cureduce_plancache_key *key) {
  return atomic_load_explicit(slot_of(cache, key), memory_order_acquire);
}

const cureduce_choice *cureduce_plancache_publish(cureduce_plancache *cache, const cureduce_plancache_key *key,
                                                  cureduce_choice *made, unsigned generation) {
  _Atomic(cureduce_choice *) *slot = slot_of(cache, key);
  cureduce_choice *expected = NULL;
  if (!atomic_compare_exchange_strong(slot, &expected, made)) {
    free(made); /* a racing thread's choice is as good */
    return expected;
  }
  made->next = atomic_load(&cache->all);
  while (!atomic_compare_exchange_weak(&cache->all, &made->next, made))
    ;
  /* A tune adopted after `made` was chosen bumped the generation before emptying the slot; if
   * that emptying came before this publication, undo the publication here. */
  if (atomic_load(&cache->generation) != generation) {
    expected = made;
    atomic_compare_exchange_strong(slot, &expected, NULL);
  }
  return made;
}

void cureduce_plancache_forget(cureduce_plancache *cache, const cureduce_plancache_key *key) {
  atomic_fetch_add(&cache->generation, 1);
  atomic_store(slot_of(cache, key), NULL);
}

void cureduce_plancache_free(cureduce_plancache *cache) {
  for (cureduce_choice *choice = atomic_load(&cache->all), *next; choice; choice = next) {
    next = choice->next;
    free(choice);
  }
}
