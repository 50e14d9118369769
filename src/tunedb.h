/* The per-GPU tuning database: (operation, transform, input type, output type, layout, size bucket,
 * columns class) -> the kernel spec the tuner measured fastest, with its time and the heuristic default's.
 * Contiguous problems are keyed by the bit length of n (columns class 0); shaped ones by the bit
 * length of their rows or segments and a columns class (shape.h, cureduce_shape_tuning_key).
 *
 * One file per GPU, <cache>/tuning/<hash of the GPU key>.db, whose header names the GPU key in
 * full (device name, compute capability, SMs, memory bus and clock, driver, library and
 * tuning-space versions). Each record carries the NVRTC version it was tuned with and a checksum;
 * a lookup takes the newest NVRTC's record, without loading NVRTC. A foreign, corrupt or
 * truncated file is a miss (one warning, and the valid records it still holds are kept) and the
 * next update rewrites it. Updates take an OFD lock, re-read, merge, write a temporary file and
 * rename it into place, so concurrent tuners lose no record. */
#ifndef CUREDUCE_TUNEDB_H
#define CUREDUCE_TUNEDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "spec.h"

/* Format 2 added the layout, the columns class and the shaped specs' fields, format 3 the
 * transform; format 1 and 2 files (no transforms) are still read, and the next update rewrites them
 * as format 3. */
#define CUREDUCE_TUNEDB_FORMAT 3
/* Changes whenever the candidates the tuner tries change, so old choices are not trusted. */
#define CUREDUCE_TUNING_SPACE_VERSION 1
#define CUREDUCE_TUNEDB_KEY_MAX 512

typedef struct cureduce_tune_record {
  uint8_t op, input, output, bucket; /* bucket: the bit length of n, or of a shape's rows */
  uint8_t layout;                    /* cureduce_layout */
  uint8_t transform;                 /* cureduce_transform */
  uint64_t expression;               /* CUREDUCE_TRANSFORM_EXPRESSION: the text's digest; else 0 */
  uint16_t cols_class;               /* shaped problems: cureduce_shape_tuning_key's; else 0 */
  uint32_t nvrtc_version;
  cureduce_spec spec;
  double time_us;    /* the chosen spec's median, as the tuner measured it */
  double default_us; /* the heuristic default's, in the same measurement */
} cureduce_tune_record;

typedef struct cureduce_tunedb {
  cureduce_tune_record *records;
  size_t count, capacity;
} cureduce_tunedb;

typedef enum cureduce_tunedb_verdict {
  CUREDUCE_TUNEDB_VALID,   /* every record checked out */
  CUREDUCE_TUNEDB_DAMAGED, /* the header is right; bad or missing records were dropped */
  CUREDUCE_TUNEDB_FOREIGN, /* another GPU's, or another format's */
  CUREDUCE_TUNEDB_INVALID  /* not a tuning database */
} cureduce_tunedb_verdict;

void cureduce_tunedb_free(cureduce_tunedb *db);
/* Adds the record, replacing one with the same key and NVRTC version. */
bool cureduce_tunedb_put(cureduce_tunedb *db, const cureduce_tune_record *record);
/* The record whose key (op, input, output, layout, bucket, cols_class) is the given record's,
 * tuned with the newest NVRTC, or NULL. */
const cureduce_tune_record *cureduce_tunedb_find(const cureduce_tunedb *db, const cureduce_tune_record *key);
/* The key of a contiguous problem's bucket, for cureduce_tunedb_find. */
cureduce_tune_record cureduce_tunedb_contiguous_key(cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                                                    unsigned bucket);

/* A shaped problem's columns class: the row length itself where a kernel may compile it in
 * (cureduce_compiled_length_max: a tuned spec that compiled it in serves that length alone),
 * else CUREDUCE_COLS_BUCKETED + the bit length of cols; segments, whose lengths are on the
 * device, 0; plus CUREDUCE_COLS_PADDED where rows are padded (a leading
 * dimension above cols), which changes the loads a kernel can use. */
enum { CUREDUCE_COLS_BUCKETED = 512, CUREDUCE_COLS_PADDED = 1024 };
/* The key of any problem (cureduce_problem_check passed): its operation, types, layout, the bit
 * length of n or of its rows (segments), and its columns class. */
cureduce_tune_record cureduce_tunedb_key(const cureduce_problem *problem);
/* The row length a columns class names, 0 for a bucketed class: the only compiled row length a
 * tuned spec of that class may have. */
unsigned cureduce_tunedb_class_length(uint16_t cols_class);

/* Pure encoding, for the tests and the fuzzer. decode appends the valid records to *db. */
bool cureduce_tunedb_encode(const char *gpu_key, const cureduce_tunedb *db, void **data, size_t *size);
cureduce_tunedb_verdict cureduce_tunedb_decode(const char *gpu_key, const void *data, size_t size, cureduce_tunedb *db);

/* <root>/tuning/<hash>.db for the key. */
void cureduce_tunedb_path(const char *root, const char *gpu_key, char *path, size_t size);
/* Reads the file into *db. A missing file is an empty database; a damaged or foreign one gives
 * one warning and what it validly holds. */
void cureduce_tunedb_read(const char *path, const char *gpu_key, cureduce_tunedb *db, const cureduce_logger *logger);
/* Merges the records into the file under its lock; CACHE_IO when the location cannot be written. */
cureduce_status cureduce_tunedb_merge(const char *path, const char *gpu_key, const cureduce_tunedb *records,
                                      const cureduce_logger *logger);

#endif
