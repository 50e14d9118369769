/* Status returns that remember where they came from (after zstd's RETURN_ERROR_IF and
 * FORWARD_IF_ERROR): a failure records file, line, the failed condition and a message in the
 * calling thread's error detail, which cureduce_last_error_detail() hands out. */
#ifndef CUREDUCE_ERROR_H
#define CUREDUCE_ERROR_H

#include "cureduce/cureduce.h"

/* Records the detail of a failure and returns `status`. */
cureduce_status cureduce_fail(cureduce_status status, const char *file, int line,
                              const char *condition, const char *format, ...)
    __attribute__((format(printf, 5, 6)));
/* Appends text to the current detail (a compile log, say). */
void cureduce_error_append(const char *text);
/* Called at the top of every public entry point: the last call's detail is gone. */
void cureduce_error_clear(void);

#define CUREDUCE_FAIL(status, ...) \
  cureduce_fail(CUREDUCE_STATUS_##status, __FILE__, __LINE__, NULL, __VA_ARGS__)

#define CUREDUCE_RETURN_ERROR_IF(condition, status, ...)                                  \
  do {                                                                                    \
    if (condition)                                                                        \
      return cureduce_fail(CUREDUCE_STATUS_##status, __FILE__, __LINE__, #condition,      \
                           __VA_ARGS__);                                                  \
  } while (0)

#define CUREDUCE_FORWARD_IF_ERROR(expression)                  \
  do {                                                         \
    cureduce_status cureduce_forwarded_ = (expression);        \
    if (cureduce_forwarded_ != CUREDUCE_STATUS_OK)             \
      return cureduce_forwarded_;                              \
  } while (0)

#endif
