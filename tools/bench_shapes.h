/* cureduce-bench --shapes: rows, columns and ragged segments against CUB's segmented reduce, each
 * shape's effective bandwidth (inputs read + results written) against its ceiling measured in the
 * same run; with a transform, of the mapped values (a product reads x and y). */
#ifndef CUREDUCE_BENCH_SHAPES_H
#define CUREDUCE_BENCH_SHAPES_H

#include <stdbool.h>
#include <stdint.h>

#include "context.h"

typedef struct cureduce_shapes_run {
  cureduce_context *context;
  const cureduce_driver *cu;
  CUstream stream;
  CUevent start, stop;
  double read_gbps; /* the read ceiling, measured by the caller in this run */
  int reps;
  bool have_cub, csv;
  const int *ops, *types;
  int op_count, type_count;
  const size_t *totals; /* elements of each shape */
  int total_count;
  unsigned layouts; /* bit 1 << cureduce_layout for each layout timed */
  uint64_t cols_mask; /* bit k: matrices of 2^k columns are timed (all: every one) */
  cureduce_transform transform; /* a built-in map fused first, or none */
  const char *const *specs;     /* spec texts, each pinned to every shape in turn (a shape one does
                                   not fit: a row saying why), NULL the plan's own choice; none:
                                   each plan's own choice */
  int spec_count;
} cureduce_shapes_run;

/* Prints the table; 0 when every shape's results matched the host reference. */
int cureduce_bench_shapes(const cureduce_shapes_run *run);

#endif
