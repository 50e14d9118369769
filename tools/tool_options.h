/* What the tools' command lines share: their parse, and option values (architectures, sizes, comma
 * lists of names, shapes). */
#ifndef CUREDUCE_TOOL_OPTIONS_H
#define CUREDUCE_TOOL_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

struct option; /* getopt.h's */

/* A tool's command line: getopt_long over argv with its short and long options, each option handed
 * to parse_one (false, with *why, for a bad value; why starts as an option getopt_long refused),
 * then whether they go together (conflict, where the tool has one: why not, or NULL). */
typedef struct cureduce_tool_command_line {
  const char *tool, *short_options;
  const struct option *long_options;
  bool (*parse_one)(int option, void *options, const char **why);
  const char *(*conflict)(const void *options);
} cureduce_tool_command_line;

/* false, after "TOOL: why (--help lists the options)" on stderr, for a line the tool cannot take. */
bool cureduce_tool_parse_command_line(const cureduce_tool_command_line *line, int argc, char **argv, void *options);

/* Decimal digits alone, "0", "1", ... -> a number from least to INT_MAX (a CUDA device ordinal:
 * least 0; a count of calls: 1); false for anything else. */
bool cureduce_tool_parse_int(const char *text, unsigned least, int *value);

/* "sm_90" or "90" -> 90; false for anything else or an architecture below sm_50. */
bool cureduce_tool_parse_arch(const char *text, int *arch);

/* "2^20" or "1048576" -> a size above 0 (powers up to 2^47, digits alone up to SIZE_MAX); false
 * otherwise. */
bool cureduce_tool_parse_size(const char *text, size_t *size);

/* "sum,max" -> each name through lookup (its index, or -1), at most max of them; false on an
 * unknown name, an empty list or too many. */
bool cureduce_tool_parse_names(const char *text, int (*lookup)(const char *), int *into, int max, int *count);

/* "rows", "columns" or "segments" -> its cureduce_layout; -1 for anything else. */
int cureduce_tool_layout_from_name(const char *name);

/* One shape of a --shapes list: "[rows:|columns:|segments:]AxB", A rows (or segments) of B
 * elements each (segments: B their length), each a size as cureduce_tool_parse_size takes it;
 * rows when no layout is named; or "n:N", a whole array of N elements (rows = N, cols = 0).
 * layout is a cureduce_layout. */
typedef struct cureduce_tool_shape {
  int layout;
  size_t rows, cols;
} cureduce_tool_shape;

/* A comma list of shapes, at most max; false on anything else. */
bool cureduce_tool_parse_shapes(const char *text, cureduce_tool_shape *into, int max, int *count);

#endif
