/* Launching a production (single-pass) kernel: its grid for n elements, the workspace it needs,
 * and the launch itself. Plans, the tuner and the ladder's own executor (ladder.h) share it. */
#ifndef CUREDUCE_EXECUTE_H
#define CUREDUCE_EXECUTE_H

#include <stdbool.h>

#include "kcache.h"

/* A single pass's workspace: the ticket that finds the last block to finish (0 between launches;
 * the last block re-arms it); exact sums' accumulator words (exact.h; zero between launches, the
 * last block clears them), where no other kernel writes, so that a stream's slot may serve every
 * operation; then one partial per block for the other operations: room for 8192 of 16 bytes (a
 * plan whose partials pass that, e.g. more than 4096 blocks of the moments' 32 bytes, needs a
 * workspace of the caller's; no tuned grid on an H200 comes near). */
enum {
  CUREDUCE_WORKSPACE_TICKET = 0,
  CUREDUCE_WORKSPACE_EXACT = 16,
  CUREDUCE_WORKSPACE_PARTIALS = 1024,
  CUREDUCE_WORKSPACE_ALIGNMENT = 16,
  CUREDUCE_MAX_GRID = 8192,
  CUREDUCE_WORKSPACE_MAX_BYTES = CUREDUCE_WORKSPACE_PARTIALS + CUREDUCE_MAX_GRID * 16
};

/* Blocks for one pass over `count` elements: input elements on the first pass, partials after. */
unsigned cureduce_grid_for(const cureduce_spec *spec, int sm_count, size_t count, bool first_pass);

/* Lowers spec's blocks per SM to what `kernel` can keep resident on an SM (its registers and
 * shared memory), so that the heuristic's grid is one wave: a grid-stride kernel's second,
 * part-filled wave runs with a fraction of the first's loads in flight (argmax f32, 40 registers,
 * lost 15% on an H200 to a 1.33-wave grid). */
cureduce_status cureduce_fit_resident(const cureduce_driver *driver, CUfunction kernel, cureduce_spec *spec);

/* Workspace bytes a single pass of `grid` blocks needs: none for one block. */
size_t cureduce_single_pass_workspace_bytes(const cureduce_spec *spec, unsigned grid);
/* Bytes from its start that a caller's workspace must hold as zeros before a launch: the ticket,
 * and for exact sums the accumulator words. */
size_t cureduce_workspace_armed_bytes(const cureduce_spec *spec);

/* Launches a single pass of `grid` blocks on `stream`; `workspace` (0 for one block) must hold
 * a zero ticket; `second`: y of a map of two inputs, else 0. The context must be current. */
cureduce_status cureduce_launch_single_pass(const cureduce_driver *driver, const cureduce_spec *spec, CUfunction kernel,
                                            unsigned grid, CUdeviceptr input, size_t n, CUdeviceptr output,
                                            CUdeviceptr workspace, CUdeviceptr second, CUstream stream);

/* The parameters every pass of every strategy takes, (input, n, output, partials, work, second),
 * and the array of pointers to them that cuLaunchKernel reads (kernels of one input declare the
 * first five alone, and the driver reads no more). The pointers point into the struct itself: set
 * them with cureduce_kernel_arguments_point once it is where it stays. */
typedef struct cureduce_kernel_arguments {
  CUdeviceptr input;
  unsigned long long n;
  CUdeviceptr output, partials, work, second;
  void *pointers[6];
} cureduce_kernel_arguments;
void cureduce_kernel_arguments_point(cureduce_kernel_arguments *arguments);
/* A single pass's arguments: its partials and ticket where `workspace` keeps them (0: none). */
cureduce_kernel_arguments cureduce_single_pass_arguments(const cureduce_spec *spec, CUdeviceptr input, size_t n,
                                                         CUdeviceptr output, CUdeviceptr workspace, CUdeviceptr second);

/* The raw launch of every pass of every strategy. */
cureduce_status cureduce_launch_kernel(const cureduce_driver *driver, CUfunction function, unsigned grid, unsigned block,
                                       cureduce_kernel_arguments arguments, CUstream stream);

#endif
