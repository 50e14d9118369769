#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"

static const char *const level_names[] = {"off", "error", "warn", "info", "debug"};

cureduce_log_level cureduce_log_level_from_env(cureduce_log_level fallback) {
  static atomic_bool warned;
  const char *value = getenv("CUREDUCE_LOG");
  if (!value)
    return fallback;
  for (int level = CUREDUCE_LOG_OFF; level <= CUREDUCE_LOG_DEBUG; level++)
    if (strcasecmp(value, level_names[level]) == 0)
      return (cureduce_log_level)level;
  if (!atomic_exchange(&warned, true)) /* once a process: every context reads it */
    fprintf(stderr, "cureduce warn: CUREDUCE_LOG=%s is not off, error, warn, info or debug; using %s\n", value,
            level_names[fallback]);
  return fallback;
}

void cureduce_log(const cureduce_logger *logger, cureduce_log_level level, const char *format, ...) {
  if (!logger || level > logger->level || level == CUREDUCE_LOG_OFF)
    return;
  char message[1024];
  va_list arguments;
  va_start(arguments, format);
  vsnprintf(message, sizeof message, format, arguments);
  va_end(arguments);
  if (logger->callback)
    logger->callback(logger->user_data, level, message);
  else
    fprintf(stderr, "cureduce %s: %s\n", level_names[level], message);
}
