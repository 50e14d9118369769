#define _GNU_SOURCE /* F_OFD_SETLKW */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cachefile.h"
#include "error.h"
#include "problem.h"
#include "sha256.h"
#include "tunedb.h"

static const unsigned char file_magic[8] = {'C', 'U', 'R', 'D', 'T', 'U', 'N', 'E'};
/* Records are fixed-size: a payload, then the first 8 bytes of its SHA-256. Format 1's payload is
 * format 2's first 40 bytes, in which the fields format 2 added (bytes 18 to 23) were zero. */
enum { record_bytes_v1 = 48, record_bytes_v2 = 64, record_bytes = 72, digest_bytes = 8, max_file_size = 16 << 20 };

void cureduce_tunedb_free(cureduce_tunedb *db) {
  free(db->records);
  *db = (cureduce_tunedb){0};
}

static bool same_key(const cureduce_tune_record *a, const cureduce_tune_record *b) {
  return a->op == b->op && a->input == b->input && a->output == b->output && a->layout == b->layout &&
         a->bucket == b->bucket && a->cols_class == b->cols_class && a->transform == b->transform &&
         a->expression == b->expression;
}

static bool same_slot(const cureduce_tune_record *a, const cureduce_tune_record *b) {
  return same_key(a, b) && a->nvrtc_version == b->nvrtc_version;
}

static unsigned bit_length(uint64_t x) {
  unsigned bits = 0;
  for (; x; x >>= 1)
    bits++;
  return bits;
}

/* The key but its transform. */
static cureduce_tune_record shape_key(const cureduce_problem *problem) {
  if (problem->layout == CUREDUCE_LAYOUT_CONTIGUOUS)
    return cureduce_tunedb_contiguous_key(problem->op, problem->input_type, problem->output_type,
                                          bit_length(problem->n));
  uint16_t cols_class = 0;
  if (problem->layout != CUREDUCE_LAYOUT_SEGMENTS) {
    /* A length kernels may compile in is a class of its own. */
    bool compiled = problem->cols <= cureduce_compiled_length_max(problem->layout, problem->input_type);
    cols_class = (uint16_t)(compiled ? problem->cols : CUREDUCE_COLS_BUCKETED + bit_length(problem->cols));
    if (problem->leading_dimension > problem->cols)
      cols_class |= CUREDUCE_COLS_PADDED;
  }
  return (cureduce_tune_record){.op = (uint8_t)problem->op, .input = (uint8_t)problem->input_type,
                                .output = (uint8_t)problem->output_type, .layout = (uint8_t)problem->layout,
                                .bucket = (uint8_t)bit_length(problem->rows), .cols_class = cols_class};
}

cureduce_tune_record cureduce_tunedb_key(const cureduce_problem *problem) {
  cureduce_tune_record key = shape_key(problem);
  key.transform = (uint8_t)problem->transform;
  key.expression = cureduce_problem_expression(problem);
  return key;
}

unsigned cureduce_tunedb_class_length(uint16_t cols_class) {
  cols_class &= (uint16_t)~CUREDUCE_COLS_PADDED;
  return cols_class < CUREDUCE_COLS_BUCKETED ? cols_class : 0;
}

cureduce_tune_record cureduce_tunedb_contiguous_key(cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                                                    unsigned bucket) {
  return (cureduce_tune_record){.op = (uint8_t)op, .input = (uint8_t)input, .output = (uint8_t)output,
                                .bucket = (uint8_t)bucket, .layout = CUREDUCE_LAYOUT_CONTIGUOUS};
}

bool cureduce_tunedb_put(cureduce_tunedb *db, const cureduce_tune_record *record) {
  for (size_t i = 0; i < db->count; i++)
    if (same_slot(&db->records[i], record)) {
      db->records[i] = *record;
      return true;
    }
  if (db->count == db->capacity) {
    size_t capacity = db->capacity ? db->capacity * 2 : 64;
    cureduce_tune_record *grown = realloc(db->records, capacity * sizeof *grown);
    if (!grown)
      return false;
    db->records = grown;
    db->capacity = capacity;
  }
  db->records[db->count++] = *record;
  return true;
}

const cureduce_tune_record *cureduce_tunedb_find(const cureduce_tunedb *db, const cureduce_tune_record *key) {
  const cureduce_tune_record *best = NULL;
  for (size_t i = 0; i < db->count; i++) {
    const cureduce_tune_record *r = &db->records[i];
    if (same_key(r, key) && (!best || r->nvrtc_version > best->nvrtc_version))
      best = r;
  }
  return best;
}

/* ---- encoding: little-endian, fixed-size records ------------------------------------------- */

static void put_u16(unsigned char *p, uint16_t v) { p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8); }
static void put_u32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}
static uint16_t get_u16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get_u32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void put_f64(unsigned char *p, double v) {
  uint64_t bits;
  memcpy(&bits, &v, 8);
  put_u32(p, (uint32_t)bits);
  put_u32(p + 4, (uint32_t)(bits >> 32));
}
static double get_f64(const unsigned char *p) {
  uint64_t bits = (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
  double v;
  memcpy(&v, &bits, 8);
  return v;
}

/* Format 3: key 0-3, NVRTC 4-7, spec 8-17, layout 18, zero 19, columns class 20-21, spec group
 * 22-23, times 24-39, spec cols 40-43 and splits 44-47, transform 48 (key and spec), zero 49-55,
 * the expression's digest 56-63 (key and spec), checksum 64-71. Format 2 is its first 56 bytes,
 * with byte 48 zero, and the checksum. */
static void encode_record(const cureduce_tune_record *r, unsigned char *p) {
  memset(p, 0, record_bytes);
  p[0] = r->op, p[1] = r->input, p[2] = r->output, p[3] = r->bucket;
  put_u32(p + 4, r->nvrtc_version);
  p[8] = r->spec.op, p[9] = r->spec.input, p[10] = r->spec.output, p[11] = r->spec.strategy;
  put_u16(p + 12, r->spec.block);
  p[14] = r->spec.unroll, p[15] = r->spec.vector_bytes;
  put_u16(p + 16, r->spec.blocks_per_sm);
  p[18] = r->layout;
  put_u16(p + 20, r->cols_class);
  put_u16(p + 22, r->spec.group);
  put_f64(p + 24, r->time_us);
  put_f64(p + 32, r->default_us);
  put_u32(p + 40, r->spec.cols);
  put_u32(p + 44, r->spec.splits);
  p[48] = r->transform;
  put_u32(p + 56, (uint32_t)r->expression);
  put_u32(p + 60, (uint32_t)(r->expression >> 32));
  unsigned char digest[CUREDUCE_SHA256_BYTES];
  cureduce_sha256(p, record_bytes - digest_bytes, digest);
  memcpy(p + record_bytes - digest_bytes, digest, digest_bytes);
}

static bool all_zero(const unsigned char *p, size_t count) {
  for (size_t i = 0; i < count; i++)
    if (p[i] != 0)
      return false;
  return true;
}

/* Whether a record's spec runs problems of its class (shape.c, cureduce_shape_check_spec): a
 * strategy of the class's layout, its compiled length the class's; or for columns that run as
 * rows of one element, those. A rows bucket holds the row counts of its bit length, the fewest
 * 2^(bucket - 1). */
static bool spec_fits_class(const cureduce_tune_record *r) {
  cureduce_layout runs = cureduce_strategy_layout(r->spec.strategy);
  if (r->layout == CUREDUCE_LAYOUT_COLUMNS && runs == CUREDUCE_LAYOUT_ROWS)
    return r->bucket >= 1 && cureduce_columns_run_as_rows(r->op, (uint64_t)1 << (r->bucket - 1)) && r->spec.cols == 1;
  return runs == (cureduce_layout)r->layout &&
         (r->spec.cols == 0 || r->spec.cols == cureduce_tunedb_class_length(r->cols_class));
}

/* A record is valid when its checksum holds, nothing hides in its zero bytes, and it describes a
 * legal production spec for its own key: of the key's operation, transform, types and layout, a compiled row
 * length only as the key's columns class (the exact length), contiguous keys with class 0. A
 * ladder rung would need scratch memory that no production call passes. */
static size_t record_size_of(uint32_t format) {
  return format == 1 ? record_bytes_v1 : format == 2 ? record_bytes_v2 : record_bytes;
}

static bool decode_record(const unsigned char *p, uint32_t format, cureduce_tune_record *r) {
  const size_t size = record_size_of(format), payload = size - digest_bytes;
  unsigned char digest[CUREDUCE_SHA256_BYTES];
  cureduce_sha256(p, payload, digest);
  if (memcmp(digest, p + payload, digest_bytes) != 0 || p[19] != 0 ||
      (format == 1 ? !all_zero(p + 18, 6) : !all_zero(p + (format == 2 ? 48 : 49), format == 2 ? 8 : 7)))
    return false;
  bool v2 = format >= 2;
  *r = (cureduce_tune_record){.op = p[0], .input = p[1], .output = p[2], .bucket = p[3], .nvrtc_version = get_u32(p + 4),
                              .layout = p[18], .cols_class = get_u16(p + 20)};
  r->spec = (cureduce_spec){.op = p[8], .input = p[9], .output = p[10], .strategy = p[11], .block = get_u16(p + 12),
                            .unroll = p[14], .vector_bytes = p[15], .blocks_per_sm = get_u16(p + 16),
                            .group = get_u16(p + 22), .cols = v2 ? get_u32(p + 40) : 0,
                            .splits = v2 ? get_u32(p + 44) : 0, .transform = v2 ? p[48] : 0,
                            .expression = format >= 3 ? (uint64_t)get_u32(p + 56) | (uint64_t)get_u32(p + 60) << 32 : 0};
  r->transform = r->spec.transform;
  r->expression = r->spec.expression;
  r->time_us = get_f64(p + 24);
  r->default_us = get_f64(p + 32);
  bool contiguous = r->layout == CUREDUCE_LAYOUT_CONTIGUOUS;
  return r->spec.op == r->op && r->spec.input == r->input && r->spec.output == r->output && r->bucket <= 64 &&
         r->layout <= CUREDUCE_LAYOUT_SEGMENTS && (!contiguous || r->cols_class == 0) &&
         r->cols_class < 2 * CUREDUCE_COLS_PADDED && cureduce_spec_validate_production(&r->spec) == CUREDUCE_STATUS_OK &&
         spec_fits_class(r);
}

/* Whether records [from, count) already hold r's slot. */
static bool holds_slot(const cureduce_tunedb *db, size_t from, const cureduce_tune_record *r) {
  for (size_t i = from; i < db->count; i++)
    if (same_slot(&db->records[i], r))
      return true;
  return false;
}

static size_t header_bytes(size_t key_length) { return 8 + 4 + 4 + key_length + 4 + CUREDUCE_SHA256_BYTES; }

bool cureduce_tunedb_encode(const char *gpu_key, const cureduce_tunedb *db, void **data, size_t *size) {
  size_t key_length = strlen(gpu_key), header = header_bytes(key_length);
  unsigned char *file = malloc(header + db->count * record_bytes);
  if (!file || key_length > CUREDUCE_TUNEDB_KEY_MAX || db->count > UINT32_MAX) {
    free(file);
    return false;
  }
  memcpy(file, file_magic, 8);
  put_u32(file + 8, CUREDUCE_TUNEDB_FORMAT);
  put_u32(file + 12, (uint32_t)key_length);
  memcpy(file + 16, gpu_key, key_length);
  put_u32(file + 16 + key_length, (uint32_t)db->count);
  cureduce_sha256(file, header - CUREDUCE_SHA256_BYTES, file + header - CUREDUCE_SHA256_BYTES);
  for (size_t i = 0; i < db->count; i++)
    encode_record(&db->records[i], file + header + i * record_bytes);
  *data = file;
  *size = header + db->count * record_bytes;
  return true;
}

cureduce_tunedb_verdict cureduce_tunedb_decode(const char *gpu_key, const void *data, size_t size, cureduce_tunedb *db) {
  const unsigned char *file = data;
  if (size < 16 || memcmp(file, file_magic, 8) != 0)
    return CUREDUCE_TUNEDB_INVALID;
  const uint32_t format = get_u32(file + 8);
  if (format < 1 || format > CUREDUCE_TUNEDB_FORMAT)
    return CUREDUCE_TUNEDB_FOREIGN;
  const size_t record_size = record_size_of(format);
  size_t key_length = get_u32(file + 12);
  if (key_length > CUREDUCE_TUNEDB_KEY_MAX || size < header_bytes(key_length))
    return CUREDUCE_TUNEDB_INVALID;
  size_t header = header_bytes(key_length);
  unsigned char digest[CUREDUCE_SHA256_BYTES];
  cureduce_sha256(file, header - CUREDUCE_SHA256_BYTES, digest);
  if (memcmp(digest, file + header - CUREDUCE_SHA256_BYTES, CUREDUCE_SHA256_BYTES) != 0)
    return CUREDUCE_TUNEDB_INVALID;
  if (key_length != strlen(gpu_key) || memcmp(file + 16, gpu_key, key_length) != 0)
    return CUREDUCE_TUNEDB_FOREIGN;
  size_t promised = get_u32(file + 16 + key_length), present = (size - header) / record_size;
  bool damaged = promised != present || (size - header) % record_size != 0;
  size_t first = db->count;
  for (size_t i = 0; i < present && i < promised; i++) {
    cureduce_tune_record record;
    if (decode_record(file + header + i * record_size, format, &record)) {
      /* A writer stores each slot once; a second record for one (found by the fuzzer) replaces
       * the first, so the file is not what was written. */
      damaged |= holds_slot(db, first, &record);
      damaged |= !cureduce_tunedb_put(db, &record);
    } else {
      damaged = true;
    }
  }
  return damaged ? CUREDUCE_TUNEDB_DAMAGED : CUREDUCE_TUNEDB_VALID;
}

/* ---- files --------------------------------------------------------------------------------- */

void cureduce_tunedb_path(const char *root, const char *gpu_key, char *path, size_t size) {
  unsigned char digest[CUREDUCE_SHA256_BYTES];
  cureduce_sha256(gpu_key, strlen(gpu_key), digest);
  int length = snprintf(path, size, "%s/tuning/", root);
  for (int i = 0; i < 16 && length > 0 && (size_t)length < size; i++)
    length += snprintf(path + length, size - (size_t)length, "%02x", digest[i]);
  if (length > 0 && (size_t)length < size)
    snprintf(path + length, size - (size_t)length, ".db");
}

static const char *verdict_text(cureduce_tunedb_verdict verdict) {
  return verdict == CUREDUCE_TUNEDB_DAMAGED ? "damaged (its valid records are kept)"
         : verdict == CUREDUCE_TUNEDB_FOREIGN ? "another GPU's or another format's"
                                              : "not a tuning database";
}

/* The folder of a database's path. */
static void folder_of(const char *path, char *folder, size_t size) {
  snprintf(folder, size, "%s", path);
  char *slash = strrchr(folder, '/');
  if (slash)
    *slash = '\0';
}

void cureduce_tunedb_read(const char *path, const char *gpu_key, cureduce_tunedb *db, const cureduce_logger *logger) {
  char folder[4096], why[4600];
  folder_of(path, folder, sizeof folder);
  if (access(path, F_OK) != 0 && errno == ENOENT)
    return; /* no file yet: nothing tuned */
  if (!cureduce_folder_is_trusted(folder, why, sizeof why)) {
    cureduce_log(logger, CUREDUCE_LOG_WARN, "tuning database folder %s: its tuning is not used", why);
    return;
  }
  void *data;
  size_t size;
  if (!cureduce_read_trusted_file(path, max_file_size, &data, &size)) {
    if (errno == EPERM || errno == ELOOP)
      cureduce_log(logger, CUREDUCE_LOG_WARN,
                   "tuning database %s is a symbolic link, or owned by another user, or writable by others: not used",
                   path);
    return;
  }
  cureduce_tunedb_verdict verdict = cureduce_tunedb_decode(gpu_key, data, size, db);
  free(data);
  if (verdict != CUREDUCE_TUNEDB_VALID)
    cureduce_log(logger, CUREDUCE_LOG_WARN, "tuning database %s is %s; the next tune rewrites it", path,
                 verdict_text(verdict));
}

/* Holds an exclusive OFD lock on <path>.lock while the file is read, merged and replaced. */
static int lock_database(const char *path) {
  char lock_path[4200];
  snprintf(lock_path, sizeof lock_path, "%s.lock", path);
  int fd = open(lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return -1;
  struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
  while (fcntl(fd, F_OFD_SETLKW, &lock) != 0)
    if (errno != EINTR) {
      close(fd);
      return -1;
    }
  return fd;
}

cureduce_status cureduce_tunedb_merge(const char *path, const char *gpu_key, const cureduce_tunedb *records,
                                      const cureduce_logger *logger) {
  char folder[4096], why[4600];
  folder_of(path, folder, sizeof folder);
  CUREDUCE_RETURN_ERROR_IF(!cureduce_make_directories(folder), CACHE_IO, "tuning folder %s %s: %s", folder,
                           cureduce_folder_failure(folder), strerror(errno));
  CUREDUCE_RETURN_ERROR_IF(!cureduce_folder_is_trusted(folder, why, sizeof why), CACHE_IO,
                           "tuning database folder %s", why);
  int lock = lock_database(path);
  CUREDUCE_RETURN_ERROR_IF(lock < 0, CACHE_IO, "cannot lock %s.lock: %s", path, strerror(errno));
  cureduce_tunedb merged = {0};
  cureduce_tunedb_read(path, gpu_key, &merged, logger);
  bool ok = true;
  for (size_t i = 0; i < records->count && ok; i++)
    ok = cureduce_tunedb_put(&merged, &records->records[i]);
  void *data = NULL;
  size_t size = 0;
  ok = ok && cureduce_tunedb_encode(gpu_key, &merged, &data, &size);
  int error = 0;
  if (ok && !cureduce_write_file_atomic(path, data, size)) {
    ok = false;
    error = errno;
  }
  free(data);
  cureduce_tunedb_free(&merged);
  close(lock); /* releases the OFD lock */
  CUREDUCE_RETURN_ERROR_IF(!ok, CACHE_IO, "cannot write %s: %s", path, error ? strerror(error) : "out of memory");
  return CUREDUCE_STATUS_OK;
}
