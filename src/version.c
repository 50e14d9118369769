#include "cureduce/cureduce.h"

#define CUREDUCE_STRINGIFY_(x) #x
#define CUREDUCE_STRINGIFY(x) CUREDUCE_STRINGIFY_(x)

unsigned cureduce_version(void) { return CUREDUCE_VERSION; }

const char *cureduce_version_string(void) {
  return CUREDUCE_STRINGIFY(CUREDUCE_VERSION_MAJOR) "." CUREDUCE_STRINGIFY(
      CUREDUCE_VERSION_MINOR) "." CUREDUCE_STRINGIFY(CUREDUCE_VERSION_PATCH);
}
