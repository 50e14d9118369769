#include <string.h>

#include "error.h"
#include "exact.h"
#include "execute.h"

static size_t ceil_div(size_t a, size_t b) { return a / b + (a % b != 0); }

unsigned cureduce_grid_for(const cureduce_spec *spec, int sm_count, size_t count, bool first_pass) {
  size_t per_block = spec->block;
  switch (cureduce_strategy_coverage(spec->strategy)) {
  case CUREDUCE_COVER_ONE_PER_THREAD: break;
  case CUREDUCE_COVER_TWO_PER_THREAD: per_block *= 2; break;
  case CUREDUCE_COVER_UNROLL_PER_THREAD: per_block *= spec->unroll; break;
  case CUREDUCE_COVER_SHAPE: /* shape.c sizes shaped launches; one here keeps the switch whole */
    return 1;
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

cureduce_status cureduce_fit_resident(const cureduce_driver *driver, CUfunction kernel, cureduce_spec *spec) {
  int resident = 0;
  CUREDUCE_CU(driver->cuOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, spec->block, 0));
  if (resident >= 1 && resident < spec->blocks_per_sm)
    spec->blocks_per_sm = (uint16_t)resident;
  return CUREDUCE_STATUS_OK;
}

/* An exact sum keeps one accumulator for the whole grid, where no other kernel writes (execute.h);
 * every other operation one partial a block. */
static bool one_accumulator(const cureduce_spec *spec) { return spec->op == CUREDUCE_OP_EXACT_SUM; }

static size_t partials_offset(const cureduce_spec *spec) {
  return one_accumulator(spec) ? CUREDUCE_WORKSPACE_EXACT : CUREDUCE_WORKSPACE_PARTIALS;
}

_Static_assert(CUREDUCE_WORKSPACE_EXACT + 8 * CUREDUCE_EXACT_MAX_WORDS <= CUREDUCE_WORKSPACE_PARTIALS,
               "exact sums' words lie below the partials of other operations");

size_t cureduce_single_pass_workspace_bytes(const cureduce_spec *spec, unsigned grid) {
  if (grid <= 1)
    return 0;
  size_t partials = one_accumulator(spec) ? 1 : grid;
  return partials_offset(spec) + partials * cureduce_accumulator_bytes(spec->op, spec->transform, spec->input);
}

size_t cureduce_workspace_armed_bytes(const cureduce_spec *spec) {
  if (!one_accumulator(spec))
    return 4; /* the ticket */
  return partials_offset(spec) + cureduce_accumulator_bytes(spec->op, spec->transform, spec->input); /* and the accumulator */
}

void cureduce_kernel_arguments_point(cureduce_kernel_arguments *a) {
  void *pointers[] = {&a->input, &a->n, &a->output, &a->partials, &a->work, &a->second};
  memcpy(a->pointers, pointers, sizeof pointers);
}

cureduce_kernel_arguments cureduce_single_pass_arguments(const cureduce_spec *spec, CUdeviceptr input, size_t n,
                                                         CUdeviceptr output, CUdeviceptr workspace, CUdeviceptr second) {
  return (cureduce_kernel_arguments){
      .input = input,
      .n = n,
      .output = output,
      .partials = workspace ? workspace + partials_offset(spec) : 0,
      .work = workspace ? workspace + CUREDUCE_WORKSPACE_TICKET : 0,
      .second = second,
  };
}

cureduce_status cureduce_launch_kernel(const cureduce_driver *driver, CUfunction function, unsigned grid, unsigned block,
                                       cureduce_kernel_arguments arguments, CUstream stream) {
  cureduce_kernel_arguments_point(&arguments);
  CUREDUCE_CU(driver->cuLaunchKernel(function, grid, 1, 1, block, 1, 1, 0, stream, arguments.pointers, NULL));
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_launch_single_pass(const cureduce_driver *driver, const cureduce_spec *spec, CUfunction kernel,
                                            unsigned grid, CUdeviceptr input, size_t n, CUdeviceptr output,
                                            CUdeviceptr workspace, CUdeviceptr second, CUstream stream) {
  CUREDUCE_RETURN_ERROR_IF(grid > 1 && !workspace, INVALID_ARGUMENT, "a multi-block single pass needs a workspace");
  return cureduce_launch_kernel(driver, kernel, grid, spec->block,
                                cureduce_single_pass_arguments(spec, input, n, output, workspace, second), stream);
}
