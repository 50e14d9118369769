#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "error.h"
#include "source.h"

cureduce_status cureduce_build_kernel(const cureduce_spec *spec, int arch, cureduce_diskcache *disk,
                                      const cureduce_logger *logger, cureduce_binary *binary) {
  const cureduce_template_set *templates;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_templates_get(&templates));
  char *source;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_source_generate(spec, templates, &source));
  cureduce_kernel_key key;
  cureduce_kernel_key_make(source, arch, &key);
  if (cureduce_diskcache_load(disk, &key, binary)) {
    free(source);
    return CUREDUCE_STATUS_OK;
  }
  char name[CUREDUCE_SPEC_TEXT_MAX + 8];
  cureduce_spec kernel = cureduce_spec_kernel_part(spec);
  cureduce_spec_format(&kernel, name);
  strcat(name, ".cu");
  int nvrtc_version = 0;
  cureduce_status status = cureduce_nvrtc_version(&nvrtc_version);
  if (status == CUREDUCE_STATUS_OK)
    status = cureduce_nvrtc_compile(source, name, arch, binary);
  free(source);
  CUREDUCE_FORWARD_IF_ERROR(status);
  cureduce_log(logger, CUREDUCE_LOG_DEBUG, "compiled %s for sm_%d (%zu-byte %s)", name, arch, binary->size,
               binary->is_cubin ? "CUBIN" : "PTX");
  cureduce_diskcache_store(disk, &key, nvrtc_version, binary);
  return CUREDUCE_STATUS_OK;
}
