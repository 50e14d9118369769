/* The build pipeline of one kernel: spec -> CUDA source -> disk cache, else NVRTC (and the result
 * back into the disk cache). Loads nothing into a CUDA context (kcache.h does), so offline cache
 * warming, the compile tests and the tuner's parallel compiles use it without a GPU. */
#ifndef CUREDUCE_BUILD_H
#define CUREDUCE_BUILD_H

#include "diskcache.h"
#include "spec.h"

/* The CUBIN or PTX of spec's kernel part for sm_`arch`. The caller frees binary->data. */
cureduce_status cureduce_build_kernel(const cureduce_spec *spec, int arch, cureduce_diskcache *disk,
                                      const cureduce_logger *logger, cureduce_binary *binary);

#endif
