/* The kernel templates: the ones embedded at build time, or, while developing, the files of
 * $CUREDUCE_TEMPLATE_DIR read once per process. */
#ifndef CUREDUCE_TEMPLATES_H
#define CUREDUCE_TEMPLATES_H

#include <stddef.h>

#include "cureduce/cureduce.h"

typedef struct cureduce_template {
  const char *name; /* file name in kernel_templates/ */
  const char *text;
} cureduce_template;

typedef struct cureduce_template_set {
  const cureduce_template *templates;
  size_t count;
} cureduce_template_set;

/* Written by tools/embed_templates.py at build time. */
extern const cureduce_template_set cureduce_embedded_template_set;

/* The set in use. An unreadable $CUREDUCE_TEMPLATE_DIR is an error, never a silent fallback. */
cureduce_status cureduce_templates_get(const cureduce_template_set **set);
/* The text of one template in a set, or NULL. */
const char *cureduce_template_find(const cureduce_template_set *set, const char *name);

#endif
