/* The per-GPU tuning database: (operation, input type, output type, size bucket) -> the kernel
 * spec the tuner measured fastest, with its time and the heuristic default's.
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

#define CUREDUCE_TUNEDB_FORMAT 1
/* Changes whenever the candidates the tuner tries change, so old choices are not trusted. */
#define CUREDUCE_TUNING_SPACE_VERSION 1
#define CUREDUCE_TUNEDB_KEY_MAX 512

typedef struct cureduce_tune_record {
  uint8_t op, input, output, bucket;
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
/* Adds the record, replacing one with the same (op, input, output, bucket, NVRTC version). */
bool cureduce_tunedb_put(cureduce_tunedb *db, const cureduce_tune_record *record);
/* The record for the key tuned with the newest NVRTC, or NULL. */
const cureduce_tune_record *cureduce_tunedb_find(const cureduce_tunedb *db, cureduce_op op, cureduce_dtype input,
                                                 cureduce_dtype output, unsigned bucket);

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
