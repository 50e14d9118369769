#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_options.h"

static bool refuse_command_line(const char *tool, const char *why) {
  fprintf(stderr, "%s: %s (--help lists the options)\n", tool, why);
  return false;
}

bool cureduce_tool_parse_command_line(const cureduce_tool_command_line *line, int argc, char **argv, void *options) {
  for (int c; (c = getopt_long(argc, argv, line->short_options, line->long_options, NULL)) != -1;) {
    const char *why = "an option it does not know, or one without its value"; /* getopt_long named it */
    if (!line->parse_one(c, options, &why))
      return refuse_command_line(line->tool, why);
  }
  if (optind < argc)
    return refuse_command_line(line->tool, "arguments other than options");
  const char *conflict = line->conflict ? line->conflict(options) : NULL;
  return conflict ? refuse_command_line(line->tool, conflict) : true;
}

/* Decimal digits, all of text, within unsigned long long: strtoull alone would skip spaces, take
 * a sign (wrapping "-1" to its largest value) and saturate on overflow. */
static bool parse_digits(const char *text, unsigned long long *value) {
  char *end;
  errno = 0;
  *value = strtoull(text, &end, 10);
  return text[0] >= '0' && text[0] <= '9' && *end == '\0' && errno == 0;
}

bool cureduce_tool_parse_int(const char *text, unsigned least, int *value) {
  unsigned long long parsed;
  if (!parse_digits(text, &parsed) || parsed < least || parsed > INT_MAX)
    return false;
  *value = (int)parsed;
  return true;
}

bool cureduce_tool_parse_arch(const char *text, int *arch) {
  unsigned long long value;
  if (!parse_digits(strncmp(text, "sm_", 3) == 0 ? text + 3 : text, &value) || value < 50 || value > 1000)
    return false;
  *arch = (int)value;
  return true;
}

bool cureduce_tool_parse_size(const char *text, size_t *size) {
  if (text[0] == '2' && text[1] == '^') {
    unsigned long long exponent;
    if (!parse_digits(text + 2, &exponent) || exponent > 47)
      return false;
    *size = (size_t)1 << exponent;
    return true;
  }
  unsigned long long value;
  if (!parse_digits(text, &value) || value == 0 || value > SIZE_MAX)
    return false;
  *size = (size_t)value;
  return true;
}

bool cureduce_tool_parse_names(const char *text, int (*lookup)(const char *), int *into, int max, int *count) {
  char copy[1024];
  snprintf(copy, sizeof copy, "%s", text);
  *count = 0;
  for (char *item = strtok(copy, ","); item; item = strtok(NULL, ","))
    if (*count >= max || (into[(*count)++] = lookup(item)) < 0)
      return false;
  return *count > 0;
}

int cureduce_tool_layout_from_name(const char *name) {
  static const char *const names[] = {"rows", "columns", "segments"}; /* CUREDUCE_LAYOUT_ROWS, ... */
  for (int l = 0; l < 3; l++)
    if (strcmp(name, names[l]) == 0)
      return l + 1;
  return -1;
}

/* "rows:4096x1024" and the like, parsed in place (the text is a copy). */
static bool parse_shape(char *item, cureduce_tool_shape *shape) {
  if (strncmp(item, "n:", 2) == 0) { /* a whole array */
    shape->layout = 0, shape->cols = 0;
    return cureduce_tool_parse_size(item + 2, &shape->rows);
  }
  shape->layout = 1; /* rows unless a layout is named */
  char *colon = strchr(item, ':');
  if (colon) {
    *colon = '\0';
    shape->layout = cureduce_tool_layout_from_name(item);
    item = colon + 1;
  }
  char *times = strchr(item, 'x');
  if (!times || shape->layout < 0)
    return false;
  *times = '\0';
  return cureduce_tool_parse_size(item, &shape->rows) && cureduce_tool_parse_size(times + 1, &shape->cols);
}

bool cureduce_tool_parse_shapes(const char *text, cureduce_tool_shape *into, int max, int *count) {
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", text);
  *count = 0;
  for (char *item = strtok(copy, ","); item; item = strtok(NULL, ","))
    if (*count >= max || !parse_shape(item, &into[(*count)++]))
      return false;
  return *count > 0;
}
