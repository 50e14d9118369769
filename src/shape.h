/* Shaped problems (rows, columns, segments): the heuristic's family and configuration for a
 * shape, whether a pinned spec fits one, the launch's geometry and workspace, and the launch
 * itself with the shape argument every shaped kernel takes. */
#ifndef CUREDUCE_SHAPE_H
#define CUREDUCE_SHAPE_H

#include <stdbool.h>

#include "driver.h"
#include "spec.h"

/* The kernels' shape argument, laid out as shape_t in kernel_templates/shapes.cuh. */
typedef struct cureduce_shape_argument {
  uint64_t rows, cols, leading;
  CUdeviceptr begin, end;
} cureduce_shape_argument;

/* Where a launch's blocks go and what workspace they share: a ticket for each row, segment or
 * column tile whose blocks fold their partials (0 bytes when every block writes its own results),
 * then the partials. */
typedef struct cureduce_shape_launch {
  unsigned grid_x, grid_y;
  size_t ticket_offset, ticket_bytes;
  size_t partials_offset;
  size_t workspace_bytes; /* 0: the launch needs none */
  /* Few enough tickets lie where a slot is always zero between launches (execute.h); more are
   * armed: zeroed on the stream before the launch, or kept in a slot's armed area, which every
   * launch leaves zero (workspace.h). An exact sum's words, and argmin's and argmax's split words
   * of columns, after the tickets, are armed with them: armed_bytes from ticket_offset. */
  bool arm_tickets;
  size_t armed_bytes;
} cureduce_shape_launch;

/* The heuristic's spec for a shaped problem (cureduce_problem_check passed). */
cureduce_spec cureduce_shape_heuristic(const cureduce_problem *problem, int sm_count, int max_threads_per_sm);
/* INVALID_SPEC unless a production spec is for the problem's layout (a matrix of one row's
 * columns: also a row strategy, on its transpose) and a compiled row length is the problem's. */
cureduce_status cureduce_shape_check_spec(const cureduce_spec *spec, const cureduce_problem *problem);
/* The kernel's shape argument for spec on the problem (a one-row matrix's columns under a row
 * strategy: rows of one element), with a segments problem's offsets (else 0). */
cureduce_shape_argument cureduce_shape_argument_of(const cureduce_spec *spec, const cureduce_problem *problem,
                                                   CUdeviceptr begin, CUdeviceptr end);
/* The launch of spec on the problem's shape. */
cureduce_shape_launch cureduce_shape_geometry(const cureduce_spec *spec, const cureduce_problem *problem,
                                              int sm_count);

/* The most workspace a tuned shape's launch may need: the heuristic's for the shape, or a stream's
 * slot, whichever is more, so that a tuned plan needs a workspace of the caller's only where the
 * heuristic's plan did. */
size_t cureduce_shape_workspace_limit(const cureduce_problem *problem, int sm_count, int max_threads_per_sm);

/* spec with its splits lowered (halved) until the launch needs at most workspace_limit bytes. */
cureduce_spec cureduce_shape_fit_workspace(cureduce_spec spec, const cureduce_problem *problem, int sm_count,
                                           size_t workspace_limit);

/* Every spec the tuner may pick for the problem, at most max, the heuristic's first: each family
 * that suits the shape in the heuristic's configuration for it, and that with one field at a time
 * halved or doubled (group, splits; unless quick, also loads in flight and threads a block), each
 * a legal spec for the problem whose launch needs at most workspace_limit bytes of workspace.
 * At most CUREDUCE_SHAPE_SPACE_MAX specs. */
enum { CUREDUCE_SHAPE_SPACE_MAX = 1 + 2 * 9 };
size_t cureduce_shape_tune_space(const cureduce_problem *problem, int sm_count, int max_threads_per_sm, bool quick,
                                 size_t workspace_limit, cureduce_spec *out, size_t max);

/* Launches a shaped kernel on input (x) and, for a map of two inputs, second (y; else 0);
 * `workspace` holds the launch's workspace_bytes, its tickets zero unless arm_tickets. The armed
 * bytes of an arm_tickets launch lie at `armed_area` where it is not 0 (a slot's, already zero:
 * workspace.h), else in the workspace, zeroed on the stream first. The context must be current. */
cureduce_status cureduce_launch_shaped(const cureduce_driver *driver, const cureduce_spec *spec, CUfunction kernel,
                                       const cureduce_shape_launch *launch, CUdeviceptr input, CUdeviceptr second,
                                       const cureduce_shape_argument *shape, CUdeviceptr output,
                                       CUdeviceptr workspace, CUdeviceptr armed_area, CUstream stream);

#endif
