/* NVRTC, opened at run time on first need: a warm kernel cache lets an application run with no
 * NVRTC installed. Compiles one source to a CUBIN for the device's sm_XY, or to PTX when this
 * NVRTC does not know that architecture (the driver then JIT-compiles it at load). */
#ifndef CUREDUCE_COMPILER_H
#define CUREDUCE_COMPILER_H

#include <stdbool.h>
#include <stddef.h>

#include "cureduce/cureduce.h"

typedef struct cureduce_binary {
  void *data;
  size_t size;
  bool is_cubin; /* false: PTX text, NUL included in size */
} cureduce_binary;

/* NVRTC's version as major * 1000 + minor * 10 (CUDA's own encoding). NO_NVRTC when absent. */
cureduce_status cureduce_nvrtc_version(int *version);

/* The options every compile uses for `arch` (e.g. 90), for the cache key and the log. */
const char *cureduce_nvrtc_options_text(void);

/* Compiles `source` for sm_`arch`. On COMPILE_FAILED the error detail holds NVRTC's log and the
 * numbered source. The caller frees binary->data. */
cureduce_status cureduce_nvrtc_compile(const char *source, const char *program_name, int arch,
                                       cureduce_binary *binary);

#endif
