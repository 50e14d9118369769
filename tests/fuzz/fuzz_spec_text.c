/* libFuzzer: kernel spec text, as tools and users type it. Whatever the text, parsing must not
 * crash, and a spec it accepts must format back to text that parses to the same spec. */
#include <stdlib.h>
#include <string.h>

#include "spec.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  char text[256];
  if (size >= sizeof text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  cureduce_spec spec, again;
  if (cureduce_spec_parse(text, &spec) != CUREDUCE_STATUS_OK)
    return 0;
  char formatted[CUREDUCE_SPEC_TEXT_MAX];
  cureduce_spec_format(&spec, formatted);
  if (cureduce_spec_parse(formatted, &again) != CUREDUCE_STATUS_OK || !cureduce_spec_equal(&spec, &again))
    abort();
  return 0;
}
