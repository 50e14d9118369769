/* Kernel specification -> CUDA source. A pure function of the spec and the templates: the
 * specialization prelude, then the shared template, then the strategy's, each behind a #line
 * so that NVRTC's messages name the template file and line. */
#ifndef CUREDUCE_SOURCE_H
#define CUREDUCE_SOURCE_H

#include "spec.h"
#include "templates.h"

/* The entry point every strategy defines, and the one the classic ladder adds for the passes
 * over partials. */
#define CUREDUCE_KERNEL_NAME "cureduce_kernel"
#define CUREDUCE_PARTIALS_KERNEL_NAME "cureduce_kernel_partials"

/* On success *source is a malloc'd NUL-terminated string the caller frees. */
cureduce_status cureduce_source_generate(const cureduce_spec *spec, const cureduce_template_set *templates,
                                         char **source);

#endif
