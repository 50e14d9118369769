/* Status names and messages, generated from the one list in the public header, and the
 * per-thread error detail. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

const char *cureduce_status_name(cureduce_status status) {
  switch (status) {
#define CUREDUCE_STATUS_NAME_CASE(name, number, message) \
  case CUREDUCE_STATUS_##name:                           \
    return "CUREDUCE_STATUS_" #name;
    CUREDUCE_STATUS_LIST(CUREDUCE_STATUS_NAME_CASE)
#undef CUREDUCE_STATUS_NAME_CASE
  }
  return "CUREDUCE_STATUS_UNKNOWN";
}

const char *cureduce_status_string(cureduce_status status) {
  switch (status) {
#define CUREDUCE_STATUS_STRING_CASE(name, number, message) \
  case CUREDUCE_STATUS_##name:                             \
    return message;
    CUREDUCE_STATUS_LIST(CUREDUCE_STATUS_STRING_CASE)
#undef CUREDUCE_STATUS_STRING_CASE
  }
  return "unknown status";
}

/* The detail lives on the heap (a compile log runs to many kilobytes) and is freed by the
 * thread-exit destructor of a pthread key, so no thread leaves it behind. */
typedef struct error_detail {
  char *text;
  size_t length;
  size_t capacity;
} error_detail;

static pthread_key_t detail_key;
static pthread_once_t detail_key_once = PTHREAD_ONCE_INIT;

static void free_detail(void *pointer) {
  error_detail *detail = pointer;
  free(detail->text);
  free(detail);
}

static void create_detail_key(void) { pthread_key_create(&detail_key, free_detail); }

static error_detail *thread_detail(void) {
  pthread_once(&detail_key_once, create_detail_key);
  error_detail *detail = pthread_getspecific(detail_key);
  if (!detail) {
    detail = calloc(1, sizeof *detail);
    if (detail && pthread_setspecific(detail_key, detail) != 0) {
      free(detail);
      detail = NULL;
    }
  }
  return detail;
}

/* Appends, growing the buffer; on allocation failure the detail keeps what it had. */
static void append_text(error_detail *detail, const char *text, size_t length) {
  if (detail->length + length + 1 > detail->capacity) {
    size_t capacity = (detail->length + length + 1) * 2;
    char *grown = realloc(detail->text, capacity);
    if (!grown)
      return;
    detail->text = grown;
    detail->capacity = capacity;
  }
  memcpy(detail->text + detail->length, text, length);
  detail->length += length;
  detail->text[detail->length] = '\0';
}

cureduce_status cureduce_fail(cureduce_status status, const char *file, int line,
                              const char *condition, const char *format, ...) {
  error_detail *detail = thread_detail();
  if (!detail)
    return status;
  detail->length = 0;
  if (detail->text) /* should the appends below find no memory, no stale message survives */
    detail->text[0] = '\0';
  char head[512];
  const char *base = strrchr(file, '/');
  int head_length = snprintf(head, sizeof head, "%s: %s:%d: ", cureduce_status_name(status),
                             base ? base + 1 : file, line);
  append_text(detail, head, (size_t)head_length < sizeof head ? (size_t)head_length : sizeof head - 1);
  va_list arguments;
  va_start(arguments, format);
  char message[2048];
  int message_length = vsnprintf(message, sizeof message, format, arguments);
  va_end(arguments);
  if (message_length > 0)
    append_text(detail, message,
                (size_t)message_length < sizeof message ? (size_t)message_length : sizeof message - 1);
  if (condition) {
    append_text(detail, " [", 2);
    append_text(detail, condition, strlen(condition));
    append_text(detail, "]", 1);
  }
  return status;
}

void cureduce_error_append(const char *text) {
  error_detail *detail = thread_detail();
  if (detail)
    append_text(detail, text, strlen(text));
}

void cureduce_error_clear(void) {
  error_detail *detail = thread_detail();
  if (detail && detail->text) {
    detail->length = 0;
    detail->text[0] = '\0';
  }
}

const char *cureduce_last_error_detail(void) {
  error_detail *detail = thread_detail();
  return detail && detail->text ? detail->text : "";
}
