#include "error.h"
#include "execute.h"
#include "workspace.h"

static size_t ceil_div(size_t a, size_t b) { return a / b + (a % b != 0); }

unsigned cureduce_grid_for(const cureduce_spec *spec, int sm_count, size_t count, bool first_pass) {
  size_t per_block = spec->block;
  switch (cureduce_strategy_coverage(spec->strategy)) {
  case CUREDUCE_COVER_ONE_PER_THREAD: break;
  case CUREDUCE_COVER_TWO_PER_THREAD: per_block *= 2; break;
  case CUREDUCE_COVER_UNROLL_PER_THREAD: per_block *= spec->unroll; break;
  case CUREDUCE_COVER_GRID_STRIDE: {
    /* Partials are read one at a time; the input a vector at a time, several in flight. */
    if (first_pass)
      per_block *= (size_t)spec->unroll * (spec->vector_bytes / cureduce_dtype_size(spec->input));
    size_t cap = (size_t)sm_count * spec->blocks_per_sm, blocks = ceil_div(count, per_block);
    cap = cap < CUREDUCE_MAX_GRID ? cap : CUREDUCE_MAX_GRID;
    return (unsigned)(blocks < 1 ? 1 : blocks < cap ? blocks : cap);
  }
  }
  size_t blocks = ceil_div(count, per_block);
  return (unsigned)(blocks < 1 ? 1 : blocks);
}

static size_t align16(size_t bytes) { return (bytes + 15) & ~(size_t)15; }

/* Where a classic strategy's passes keep their partials in the caller's scratch memory: two
 * ping-pong buffers, sized for the first and the second pass, then rung 1's work area (one
 * accumulator per thread of the first pass). Offsets from the scratch's start. */
typedef struct classic_layout {
  size_t buffers[2], work, total;
} classic_layout;

static classic_layout classic_layout_for(const cureduce_spec *spec, int sm_count, size_t n) {
  size_t accumulator = cureduce_accumulator_bytes(spec->op, spec->input);
  size_t first = cureduce_grid_for(spec, sm_count, n, true), second = cureduce_grid_for(spec, sm_count, first, false);
  classic_layout layout = {{0, align16(first * accumulator)}, 0, 0};
  layout.work = layout.buffers[1] + align16(second * accumulator);
  layout.total = layout.work + (spec->strategy == CUREDUCE_STRATEGY_RUNG1 ? first * spec->block * accumulator : 0);
  return layout;
}

size_t cureduce_execute_scratch_bytes(const cureduce_spec *spec, int sm_count, size_t n) {
  if (cureduce_strategy_passes(spec->strategy) != CUREDUCE_PASSES_CLASSIC)
    return 0;
  return classic_layout_for(spec, sm_count, n).total;
}

static cureduce_status launch(const cureduce_driver *cu, CUfunction function, unsigned grid, unsigned block,
                              CUdeviceptr input, size_t n, CUdeviceptr output, CUdeviceptr partials, CUdeviceptr work,
                              CUstream stream) {
  unsigned long long count = n;
  void *parameters[] = {&input, &count, &output, &partials, &work};
  CUREDUCE_CU(cu->cuLaunchKernel(function, grid, 1, 1, block, 1, 1, 0, stream, parameters, NULL));
  return CUREDUCE_STATUS_OK;
}

/* The classic finish: pass after pass over the partials, ping-ponging between two buffers, until
 * a launch of one block writes the result. */
static cureduce_status execute_classic(const cureduce_driver *cu, const cureduce_spec *spec,
                                       const cureduce_kernel *kernel, int sm_count, const cureduce_run *run) {
  classic_layout layout = classic_layout_for(spec, sm_count, run->n);
  CUdeviceptr buffers[2] = {run->scratch + layout.buffers[0], run->scratch + layout.buffers[1]};
  CUdeviceptr work = run->scratch + layout.work;
  CUdeviceptr input = run->input;
  size_t count = run->n;
  for (int pass = 0;; pass++) {
    unsigned grid = cureduce_grid_for(spec, sm_count, count, pass == 0);
    CUREDUCE_FORWARD_IF_ERROR(launch(cu, pass == 0 ? kernel->first : kernel->partials, grid, spec->block, input, count,
                                     run->output, buffers[pass % 2], work, run->stream));
    if (grid == 1)
      return CUREDUCE_STATUS_OK;
    input = buffers[pass % 2];
    count = grid;
  }
}

cureduce_status cureduce_execute(const cureduce_driver *driver, const cureduce_spec *spec, const cureduce_kernel *kernel,
                                 int sm_count, const cureduce_run *run) {
  if (cureduce_strategy_passes(spec->strategy) == CUREDUCE_PASSES_CLASSIC) {
    CUREDUCE_RETURN_ERROR_IF(!run->scratch && cureduce_grid_for(spec, sm_count, run->n, true) > 1, INVALID_ARGUMENT,
                             "a classic strategy over %zu elements needs scratch memory", run->n);
    return execute_classic(driver, spec, kernel, sm_count, run);
  }
  unsigned grid = cureduce_grid_for(spec, sm_count, run->n, true);
  CUREDUCE_RETURN_ERROR_IF(grid > 1 && !run->slot, INVALID_ARGUMENT, "a multi-block single pass needs a workspace slot");
  CUdeviceptr partials = run->slot ? run->slot + CUREDUCE_SLOT_PARTIALS : 0;
  CUdeviceptr ticket = run->slot ? run->slot + CUREDUCE_SLOT_TICKET : 0;
  return launch(driver, kernel->first, grid, spec->block, run->input, run->n, run->output, partials, ticket, run->stream);
}
