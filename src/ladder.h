/* The classic reduce ladder, a teaching module beside production: its rungs are generated,
 * compiled and loaded like any kernel (spec.h's strategies RUNG0 to RUNG11), and run here, pass
 * after pass over the partials, with scratch memory the caller provides. Plans, the tuner and the
 * tuning database never use a rung. cureduce-bench --ladder and the ladder's GPU suites do. */
#ifndef CUREDUCE_LADDER_H
#define CUREDUCE_LADDER_H

#include "context.h"

/* Device memory that running a classic rung over n elements needs: its two partial buffers (and
 * rung 1's work area); 0 for a single pass, which runs in the stream's workspace slot. */
size_t cureduce_ladder_scratch_bytes(const cureduce_spec *spec, int sm_count, size_t n);

/* Runs any strategy's spec over n elements, pass after pass with `scratch`, or as a single pass in
 * the stream's workspace slot: checked, the context made current, the kernel loaded. scratch
 * holds cureduce_ladder_scratch_bytes() of device memory (may be NULL when that is 0). */
cureduce_status cureduce_ladder_run(cureduce_context *context, const cureduce_spec *spec, const void *input, size_t n,
                                    void *output, void *stream, void *scratch);

#endif
