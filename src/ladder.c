#include <stdint.h>

#include "dtype.h"
#include "error.h"
#include "execute.h"
#include "ladder.h"
#include "plan.h"

static size_t align16(size_t bytes) { return (bytes + 15) & ~(size_t)15; }

/* Where a classic strategy's passes keep their partials in the caller's scratch memory: two
 * ping-pong buffers, sized for the first and the second pass, then rung 1's work area (one
 * accumulator per thread of the first pass). Offsets from the scratch's start. */
typedef struct classic_layout {
  size_t buffers[2], work, total;
} classic_layout;

static classic_layout classic_layout_for(const cureduce_spec *spec, int sm_count, size_t n) {
  size_t accumulator = cureduce_accumulator_bytes(spec->op, spec->transform, spec->input);
  size_t first = cureduce_grid_for(spec, sm_count, n, true), second = cureduce_grid_for(spec, sm_count, first, false);
  classic_layout layout = {{0, align16(first * accumulator)}, 0, 0};
  layout.work = layout.buffers[1] + align16(second * accumulator);
  layout.total = layout.work + (spec->strategy == CUREDUCE_STRATEGY_RUNG1 ? first * spec->block * accumulator : 0);
  return layout;
}

size_t cureduce_ladder_scratch_bytes(const cureduce_spec *spec, int sm_count, size_t n) {
  if (cureduce_strategy_is_production(spec->strategy))
    return 0;
  return classic_layout_for(spec, sm_count, n).total;
}

/* The classic finish: pass after pass over the partials, ping-ponging between two buffers, until
 * a launch of one block writes the result. */
static cureduce_status run_classic(const cureduce_context *context, const cureduce_spec *spec,
                                   const cureduce_kernel *kernel, CUdeviceptr input, size_t n, CUdeviceptr output,
                                   CUstream stream, CUdeviceptr scratch) {
  int sm_count = context->info.sm_count;
  classic_layout layout = classic_layout_for(spec, sm_count, n);
  CUdeviceptr buffers[2] = {scratch + layout.buffers[0], scratch + layout.buffers[1]};
  CUdeviceptr work = scratch + layout.work;
  size_t count = n;
  for (int pass = 0;; pass++) {
    unsigned grid = cureduce_grid_for(spec, sm_count, count, pass == 0);
    cureduce_kernel_arguments arguments = {
        .input = input, .n = count, .output = output, .partials = buffers[pass % 2], .work = work};
    CUREDUCE_FORWARD_IF_ERROR(cureduce_launch_kernel(context->driver, pass == 0 ? kernel->first : kernel->partials,
                                                     grid, spec->block, arguments, stream));
    if (grid == 1)
      return CUREDUCE_STATUS_OK;
    input = buffers[pass % 2];
    count = grid;
  }
}

static cureduce_status run_loaded(cureduce_context *context, const cureduce_spec *spec, CUdeviceptr input, size_t n,
                                  CUdeviceptr output, CUstream stream, CUdeviceptr scratch) {
  cureduce_kernel kernel;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_kcache_get(&context->kernels, spec, &kernel));
  unsigned grid = cureduce_grid_for(spec, context->info.sm_count, n, true);
  if (cureduce_strategy_is_production(spec->strategy)) {
    CUdeviceptr slot = 0;
    if (grid > 1)
      CUREDUCE_FORWARD_IF_ERROR(cureduce_workspace_slot(&context->workspace, stream, &slot));
    return cureduce_launch_single_pass(context->driver, spec, kernel.first, grid, input, n, output, slot, 0, stream);
  }
  CUREDUCE_RETURN_ERROR_IF(grid > 1 && !scratch, INVALID_ARGUMENT, "%zu elements need %zu bytes of scratch", n,
                           cureduce_ladder_scratch_bytes(spec, context->info.sm_count, n));
  return run_classic(context, spec, &kernel, input, n, output, stream, scratch);
}

cureduce_status cureduce_ladder_run(cureduce_context *context, const cureduce_spec *spec, const void *input, size_t n,
                                    void *output, void *stream, void *scratch) {
  cureduce_error_clear();
  CUREDUCE_RETURN_ERROR_IF(!context || !spec, NULL_POINTER, "context and spec must not be NULL");
  CUREDUCE_FORWARD_IF_ERROR(cureduce_spec_validate(spec));
  CUREDUCE_FORWARD_IF_ERROR(cureduce_check_call_pointers((cureduce_op)spec->op, (cureduce_dtype)spec->input, input, n,
                                                         (cureduce_dtype)spec->output, output));
  CUREDUCE_FORWARD_IF_ERROR(cureduce_check_not_empty((cureduce_op)spec->op, n));
  bool pushed;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_context_enter(context, &pushed));
  cureduce_status status = run_loaded(context, spec, (CUdeviceptr)(uintptr_t)input, n, (CUdeviceptr)(uintptr_t)output,
                                      (CUstream)stream, (CUdeviceptr)(uintptr_t)scratch);
  cureduce_context_leave(context, pushed);
  return status;
}
