/* Entry points inside the library, for the tools and tests that run a chosen kernel spec. */
#ifndef CUREDUCE_REDUCE_H
#define CUREDUCE_REDUCE_H

#include "context.h"

/* Runs one spec as cureduce_reduce runs its plan (checked, context made current, kernel loaded,
 * a workspace slot claimed when needed). Classic strategies need `scratch`:
 * cureduce_execute_scratch_bytes() of device memory. */
cureduce_status cureduce_reduce_spec(cureduce_context *context, const cureduce_spec *spec, const void *input, size_t n,
                                     void *output, void *stream, void *scratch);

#endif
