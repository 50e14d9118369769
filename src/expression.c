#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "expression.h"
#include "sha256.h"

cureduce_status cureduce_expression_check(const char *text) {
  CUREDUCE_RETURN_ERROR_IF(!text, NULL_POINTER, "a problem with an expression transform needs its expression");
  size_t length = strlen(text);
  CUREDUCE_RETURN_ERROR_IF(length > CUREDUCE_EXPRESSION_MAX, INVALID_ARGUMENT,
                           "the expression is %zu bytes, more than %d", length, CUREDUCE_EXPRESSION_MAX);
  CUREDUCE_RETURN_ERROR_IF(strspn(text, " \t\n\r") == length, INVALID_ARGUMENT, "the expression is empty");
  for (size_t i = 0; i < length; i++) {
    unsigned char c = (unsigned char)text[i];
    /* Anything that could end the expression, open a block, reach the preprocessor or hide text
     * from these checks: the map must be one expression and nothing else. */
    CUREDUCE_RETURN_ERROR_IF(strchr(";{}#\\\"'", c) || (c < 0x20 && !strchr("\t\n\r", c)) || c > 0x7e,
                             INVALID_ARGUMENT, "the expression may not contain '%c' (byte %zu): it must be a single "
                             "expression, without ; { } # \\, string or character literals",
                             c >= 0x20 && c <= 0x7e ? c : '?', i);
    CUREDUCE_RETURN_ERROR_IF(c == '/' && (text[i + 1] == '/' || text[i + 1] == '*'), INVALID_ARGUMENT,
                             "the expression may not contain a comment (byte %zu)", i);
  }
  return CUREDUCE_STATUS_OK;
}

uint64_t cureduce_expression_digest(const char *text) {
  unsigned char digest[CUREDUCE_SHA256_BYTES];
  cureduce_sha256(text, strlen(text), digest);
  uint64_t value = 0;
  for (int i = 0; i < 8; i++)
    value = value << 8 | digest[i];
  return value ? value : 1;
}

/* The table: a list, since a process meets a handful of expressions. */
typedef struct entry {
  uint64_t digest;
  struct entry *next;
  char text[];
} entry;
static entry *table;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *find_locked(uint64_t digest) {
  for (entry *e = table; e; e = e->next)
    if (e->digest == digest)
      return e->text;
  return NULL;
}

cureduce_status cureduce_expression_register(const char *text) {
  CUREDUCE_FORWARD_IF_ERROR(cureduce_expression_check(text));
  uint64_t digest = cureduce_expression_digest(text);
  size_t length = strlen(text);
  pthread_mutex_lock(&table_lock);
  const char *known = find_locked(digest);
  cureduce_status status = CUREDUCE_STATUS_OK;
  if (known && strcmp(known, text) != 0) {
    status = cureduce_fail(CUREDUCE_STATUS_INVALID_ARGUMENT, __FILE__, __LINE__, NULL,
                           "two expressions share the digest %016llx: '%s' and '%s'", (unsigned long long)digest,
                           known, text);
  } else if (!known) {
    entry *e = malloc(sizeof *e + length + 1);
    if (e) {
      e->digest = digest;
      memcpy(e->text, text, length + 1);
      e->next = table;
      table = e;
    } else {
      status = cureduce_fail(CUREDUCE_STATUS_OUT_OF_MEMORY, __FILE__, __LINE__, NULL, "no memory for an expression");
    }
  }
  pthread_mutex_unlock(&table_lock);
  return status;
}

const char *cureduce_expression_find(uint64_t digest) {
  pthread_mutex_lock(&table_lock);
  const char *text = find_locked(digest);
  pthread_mutex_unlock(&table_lock);
  return text;
}
