/* A growable string. On allocation failure it stays valid, marks itself failed, and ignores
 * further appends, so a builder checks once at the end. */
#ifndef CUREDUCE_STRBUF_H
#define CUREDUCE_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cureduce_strbuf {
  char *text;
  size_t length;
  size_t capacity;
  bool failed;
} cureduce_strbuf;

void cureduce_strbuf_append(cureduce_strbuf *buffer, const char *text);
void cureduce_strbuf_printf(cureduce_strbuf *buffer, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* Hands the text to the caller (NULL if anything failed) and empties the buffer. */
char *cureduce_strbuf_take(cureduce_strbuf *buffer);

#endif
