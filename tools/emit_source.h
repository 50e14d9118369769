/* --emit-source, shared by the tools: prints the CUDA source of one kernel spec. */
#ifndef CUREDUCE_EMIT_SOURCE_H
#define CUREDUCE_EMIT_SOURCE_H

/* Prints the source of spec_text to stdout; on a bad spec prints why, prefixed by the tool's
 * name, to stderr. Returns the tool's exit status: 0 or 1. */
int cureduce_tool_emit_source(const char *tool, const char *spec_text);

#endif
