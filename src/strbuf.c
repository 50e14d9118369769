#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

static bool reserve(cureduce_strbuf *buffer, size_t extra) {
  if (buffer->failed)
    return false;
  if (buffer->length + extra + 1 <= buffer->capacity)
    return true;
  size_t capacity = buffer->capacity ? buffer->capacity : 256;
  while (capacity < buffer->length + extra + 1)
    capacity *= 2;
  char *grown = realloc(buffer->text, capacity);
  if (!grown) {
    buffer->failed = true;
    return false;
  }
  buffer->text = grown;
  buffer->capacity = capacity;
  return true;
}

void cureduce_strbuf_append(cureduce_strbuf *buffer, const char *text) {
  size_t length = strlen(text);
  if (!reserve(buffer, length))
    return;
  memcpy(buffer->text + buffer->length, text, length + 1);
  buffer->length += length;
}

void cureduce_strbuf_printf(cureduce_strbuf *buffer, const char *format, ...) {
  va_list arguments;
  va_start(arguments, format);
  int length = vsnprintf(NULL, 0, format, arguments);
  va_end(arguments);
  if (length < 0 || !reserve(buffer, (size_t)length))
    return;
  va_start(arguments, format);
  vsnprintf(buffer->text + buffer->length, (size_t)length + 1, format, arguments);
  va_end(arguments);
  buffer->length += (size_t)length;
}

char *cureduce_strbuf_take(cureduce_strbuf *buffer) {
  char *text = buffer->failed ? NULL : buffer->text;
  if (buffer->failed)
    free(buffer->text);
  if (text == NULL && !buffer->failed)
    text = calloc(1, 1);
  *buffer = (cureduce_strbuf){0};
  return text;
}
