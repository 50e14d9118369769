/* A shaped problem's results against the host reference, in threads (reference.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"
#include "reference.h"

/* Host memory the columns of a check are gathered into, in all (split among its threads): each
 * gather is a pass over the whole matrix, so the more columns a pass, the fewer passes. */
enum { DEFAULT_GATHER_BYTES = 256 << 20 };

/* One thread's share: results [first, end), in order. */
typedef struct check_share {
  const cureduce_ref_results *results;
  unsigned number;                 /* the share's place: lower numbers hold lower results */
  atomic_uint *first_failed_share; /* the lowest number of a share that found a wrong result */
  uint64_t first, end, at_once;    /* at_once: columns gathered a pass (1 for rows and segments) */
  size_t gathered_bytes;
  uint64_t wrong; /* the share's first wrong result, when it found one */
  char why[256];
  bool failed, threaded;
} check_share;

/* The most elements a result has. */
static uint64_t longest_result(const cureduce_ref_results *r) {
  const cureduce_problem *p = r->problem;
  switch (p->layout) {
  case CUREDUCE_LAYOUT_CONTIGUOUS: return p->n;
  case CUREDUCE_LAYOUT_ROWS: return p->cols;
  case CUREDUCE_LAYOUT_COLUMNS: return p->rows;
  case CUREDUCE_LAYOUT_SEGMENTS: break;
  }
  uint64_t longest = 0;
  for (uint64_t i = 0; i < p->rows; i++)
    longest = r->end[i] > r->begin[i] && (uint64_t)(r->end[i] - r->begin[i]) > longest
                  ? (uint64_t)(r->end[i] - r->begin[i]) : longest;
  return longest;
}

/* Results [first, first + count) gathered from one input, each whole after the one before (count
 * > 1: columns alone); returns each one's length. */
static size_t gather(const cureduce_ref_results *r, const void *input, uint64_t first, uint64_t count, void *into) {
  if (r->problem->layout != CUREDUCE_LAYOUT_COLUMNS)
    return cureduce_ref_gather(r->problem, input, r->begin, r->end, first, into);
  cureduce_ref_gather_columns(r->problem, input, first, count, into);
  return (size_t)r->problem->rows;
}

/* A check without memory has no answer to give (as the reference's own mapping). */
static _Noreturn void out_of_memory(size_t bytes) {
  fprintf(stderr, "reference: no host memory for a check (%zu bytes)\n", bytes);
  abort();
}

/* Checks the share's results in order up to its first wrong one; stops early, unchecked, once a
 * share of lower results has found one (the first wrong result is then that share's). */
static void *check_share_run(void *argument) {
  check_share *share = argument;
  const cureduce_ref_results *r = share->results;
  const cureduce_problem *p = r->problem;
  size_t element = cureduce_dtype_size(p->input_type), result_bytes = cureduce_result_bytes(p->op, p->output_type);
  unsigned char *x = malloc(share->gathered_bytes), *y = r->y ? malloc(share->gathered_bytes) : NULL;
  if (!x || (r->y && !y))
    out_of_memory(share->gathered_bytes);
  for (uint64_t first = share->first; !share->failed && first < share->end;
       first += share->at_once) {
    if (atomic_load(share->first_failed_share) < share->number)
      break;
    uint64_t count = share->end - first < share->at_once ? share->end - first : share->at_once;
    size_t length = gather(r, r->x, first, count, x);
    if (r->y)
      gather(r, r->y, first, count, y);
    for (uint64_t k = 0; k < count && !share->failed; k++) {
      size_t offset = k * length * element;
      cureduce_ref_result want = cureduce_ref_expected_mapped(p->op, p->transform, p->input_type, p->output_type,
                                                              x + offset, r->y ? y + offset : NULL, length);
      cureduce_value got = {.index = -1};
      memcpy(&got, r->got + (first + k) * result_bytes, result_bytes);
      if (length && !cureduce_ref_matches(p->op, p->output_type, &got, &want, share->why, sizeof share->why)) {
        share->failed = true, share->wrong = first + k;
        unsigned seen = atomic_load(share->first_failed_share);
        while (share->number < seen && !atomic_compare_exchange_weak(share->first_failed_share, &seen, share->number)) {
        }
      }
    }
  }
  free(x);
  free(y);
  return NULL;
}

cureduce_ref_check cureduce_ref_check_results(const cureduce_ref_results *r, unsigned threads) {
  const cureduce_problem *p = r->problem;
  uint64_t results = cureduce_problem_results(p);
  if (threads < 1)
    threads = 1;
  if (results < threads) /* a thread a result at most */
    threads = results ? (unsigned)results : 1;
  size_t element = cureduce_dtype_size(p->input_type);
  uint64_t longest = longest_result(r), at_once = 1;
  if (p->layout == CUREDUCE_LAYOUT_COLUMNS) {
    size_t budget = (r->gather_bytes ? r->gather_bytes : DEFAULT_GATHER_BYTES) / threads;
    uint64_t column_bytes = longest * element;
    uint64_t share_most = (results + threads - 1) / threads;
    at_once = column_bytes && budget / column_bytes ? budget / column_bytes : 1;
    at_once = at_once < share_most ? at_once : share_most ? share_most : 1;
  }
  check_share *shares = calloc(threads, sizeof *shares);
  pthread_t *running = calloc(threads, sizeof *running);
  atomic_uint first_failed_share = threads;
  if (!shares || !running)
    out_of_memory(threads * (sizeof *shares + sizeof *running));
  for (unsigned t = 0; t < threads; t++) {
    shares[t] = (check_share){.results = r, .number = t, .first_failed_share = &first_failed_share,
                              .first = results * t / threads, .end = results * (t + 1) / threads, .at_once = at_once,
                              .gathered_bytes = at_once * longest * element + 16};
    shares[t].threaded = pthread_create(&running[t], NULL, check_share_run, &shares[t]) == 0;
    if (!shares[t].threaded)
      check_share_run(&shares[t]); /* no thread to be had: this one checks the share itself */
  }
  for (unsigned t = 0; t < threads; t++)
    if (shares[t].threaded)
      pthread_join(running[t], NULL);
  cureduce_ref_check verdict = {.ok = true};
  for (unsigned t = 0; t < threads && verdict.ok; t++)
    if (shares[t].failed)
      verdict.ok = false, verdict.wrong = shares[t].wrong, memcpy(verdict.why, shares[t].why, sizeof verdict.why);
  free(shares);
  free(running);
  return verdict;
}
