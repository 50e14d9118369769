#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "templates.h"

/* The override set is built once and lives until the process ends. */
static cureduce_template_set override_set;
static cureduce_template *override_templates;
static cureduce_status override_status;
static char override_failure[4608];
static pthread_once_t override_once = PTHREAD_ONCE_INIT;

static char *read_text_file(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  char *text = NULL;
  if (fseek(file, 0, SEEK_END) == 0) {
    long size = ftell(file);
    if (size >= 0 && fseek(file, 0, SEEK_SET) == 0 && (text = malloc((size_t)size + 1))) {
      if (fread(text, 1, (size_t)size, file) == (size_t)size) {
        text[size] = '\0';
      } else {
        free(text);
        text = NULL;
      }
    }
  }
  fclose(file);
  return text;
}

static void load_override(void) {
  const char *dir = getenv("CUREDUCE_TEMPLATE_DIR");
  const cureduce_template_set *embedded = &cureduce_embedded_template_set;
  size_t count = embedded->count;
  override_templates = calloc(count, sizeof *override_templates);
  if (!override_templates) {
    override_status = CUREDUCE_STATUS_OUT_OF_MEMORY;
    snprintf(override_failure, sizeof override_failure, "no memory for the template table");
    return;
  }
  for (size_t i = 0; i < count; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, embedded->templates[i].name);
    char *text = read_text_file(path);
    if (!text) {
      override_status = CUREDUCE_STATUS_INVALID_ARGUMENT;
      snprintf(override_failure, sizeof override_failure,
               "CUREDUCE_TEMPLATE_DIR is set but %s cannot be read", path);
      return;
    }
    override_templates[i].name = embedded->templates[i].name;
    override_templates[i].text = text;
  }
  override_set.templates = override_templates;
  override_set.count = count;
}

cureduce_status cureduce_templates_get(const cureduce_template_set **set) {
  if (!getenv("CUREDUCE_TEMPLATE_DIR")) {
    *set = &cureduce_embedded_template_set;
    return CUREDUCE_STATUS_OK;
  }
  pthread_once(&override_once, load_override);
  CUREDUCE_RETURN_ERROR_IF(override_status != CUREDUCE_STATUS_OK, INVALID_ARGUMENT, "%s", override_failure);
  *set = &override_set;
  return CUREDUCE_STATUS_OK;
}

const char *cureduce_template_find(const cureduce_template_set *set, const char *name) {
  for (size_t i = 0; i < set->count; i++)
    if (strcmp(set->templates[i].name, name) == 0)
      return set->templates[i].text;
  return NULL;
}
