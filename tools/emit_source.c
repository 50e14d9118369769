#include <stdio.h>
#include <stdlib.h>

#include "emit_source.h"
#include "source.h"

int cureduce_tool_emit_source(const char *tool, const char *spec_text) {
  cureduce_spec spec;
  const cureduce_template_set *templates;
  char *source;
  if (cureduce_spec_parse(spec_text, &spec) != CUREDUCE_STATUS_OK ||
      cureduce_templates_get(&templates) != CUREDUCE_STATUS_OK ||
      cureduce_source_generate(&spec, templates, &source) != CUREDUCE_STATUS_OK) {
    fprintf(stderr, "%s: %s\n", tool, cureduce_last_error_detail());
    return 1;
  }
  fputs(source, stdout);
  free(source);
  return 0;
}
