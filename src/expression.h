/* User maps (CUREDUCE_TRANSFORM_EXPRESSION): the checks an expression must pass before it is
 * compiled into a kernel, its digest (what specs, the kernel cache and the tuning database name it
 * by), and the process's table from digest to text, which the source generator reads. */
#ifndef CUREDUCE_EXPRESSION_H
#define CUREDUCE_EXPRESSION_H

#include <stdint.h>

#include "cureduce/cureduce.h"

/* Longest expression, in bytes. */
#define CUREDUCE_EXPRESSION_MAX 1024

/* INVALID_ARGUMENT, saying why, unless `text` is one expression: at most CUREDUCE_EXPRESSION_MAX
 * bytes of printable ASCII and whitespace, with no ';', '{', '}', '#', '\\', comment, string or
 * character literal. */
cureduce_status cureduce_expression_check(const char *text);

/* The first 8 bytes of the SHA-256 of the text; never 0 (0 is a spec without an expression). */
uint64_t cureduce_expression_digest(const char *text);

/* Makes the (checked) text known to this process's kernel builder under its digest; kept until the
 * process ends, once per distinct text. */
cureduce_status cureduce_expression_register(const char *text);

/* The text registered under the digest, or NULL. */
const char *cureduce_expression_find(uint64_t digest);

#endif
