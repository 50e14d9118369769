/* Messages to the caller's log callback, or to stderr. */
#ifndef CUREDUCE_LOG_H
#define CUREDUCE_LOG_H

#include "cureduce/cureduce.h"

typedef struct cureduce_logger {
  cureduce_log_level level;
  cureduce_log_callback callback;
  void *user_data;
} cureduce_logger;

/* The level $CUREDUCE_LOG names (off, error, warn, info, debug); `fallback` when unset or unknown. */
cureduce_log_level cureduce_log_level_from_env(cureduce_log_level fallback);

void cureduce_log(const cureduce_logger *logger, cureduce_log_level level, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

#endif
