/* Runs one kernel specification over an input: the grid of each pass, the single-pass launch,
 * and the classic ladder's passes over partials. The library's own path and the tools that run
 * any spec (the ladder bench, the tests) share it. */
#ifndef CUREDUCE_EXECUTE_H
#define CUREDUCE_EXECUTE_H

#include <stdbool.h>

#include "kcache.h"

/* Blocks for one pass over `count` elements: input elements on the first pass, partials after. */
unsigned cureduce_grid_for(const cureduce_spec *spec, int sm_count, size_t count, bool first_pass);

/* Device memory, beyond a workspace slot, that running spec over n elements needs: the classic
 * ladder's two partial buffers (and rung 1's work area); 0 for single-pass strategies. */
size_t cureduce_execute_scratch_bytes(const cureduce_spec *spec, int sm_count, size_t n);

typedef struct cureduce_run {
  CUdeviceptr input;
  size_t n;
  CUdeviceptr output;
  CUstream stream;
  CUdeviceptr slot;    /* a workspace slot: single pass with more than one block */
  CUdeviceptr scratch; /* cureduce_execute_scratch_bytes() of device memory: the classic ladder */
} cureduce_run;

/* Launches every pass, asynchronously on run->stream. The context must be current. */
cureduce_status cureduce_execute(const cureduce_driver *driver, const cureduce_spec *spec, const cureduce_kernel *kernel,
                                 int sm_count, const cureduce_run *run);

#endif
