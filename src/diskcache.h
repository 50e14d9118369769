/* Compiled kernels on disk, content-addressed.
 *
 * An entry lives at <root>/kernels/<K>/<V>.bin, where K is a hash of (entry format, arch, NVRTC
 * options, source) and V is the version of the NVRTC that compiled it, so entries from several
 * NVRTC versions live side by side. A lookup takes the newest valid entry without loading NVRTC,
 * which is why a warm cache runs on a machine with no NVRTC.
 *
 * An entry: magic, format version, NVRTC version, arch, kind, payload size, the SHA-256 of
 * (key material, NVRTC version) and of the payload, then the payload. Anything that does not
 * verify (truncated, corrupt, another format, another key) is a miss, never an error, and the
 * next store replaces it.
 *
 * Every folder is checked against the trust rule (cachefile.h) before use, and every entry on its
 * open descriptor before it is read, without following symbolic links: an untrusted root is not
 * used (one warning; kernels stay in memory), an untrusted entry folder is passed over (one
 * warning for the cache), an untrusted entry is a miss that the next store replaces. */
#ifndef CUREDUCE_DISKCACHE_H
#define CUREDUCE_DISKCACHE_H

#include <pthread.h>
#include <stdbool.h>

#include "log.h"
#include "compiler.h"
#include "sha256.h"

#define CUREDUCE_DISKCACHE_FORMAT 1

typedef struct cureduce_diskcache {
  char root[4096];         /* "" when there is no disk cache */
  bool writable;           /* cleared, with one warning, when a store fails */
  bool warned_untrusted;   /* an untrusted entry folder has been reported */
  pthread_mutex_t lock;    /* guards writable and warned_untrusted */
  const cureduce_logger *logger;
} cureduce_diskcache;

/* The identity of one kernel: the hash of everything that decides the compiled code but
 * NVRTC's version. */
typedef struct cureduce_kernel_key {
  unsigned char digest[CUREDUCE_SHA256_BYTES];
  int arch;
} cureduce_kernel_key;

void cureduce_kernel_key_make(const char *source, int arch, cureduce_kernel_key *key);

/* root NULL: no disk cache. Never fails: a root that cannot be created gives one warning and
 * leaves the cache in memory only. */
void cureduce_diskcache_open(cureduce_diskcache *cache, const char *root, const cureduce_logger *logger);
void cureduce_diskcache_close(cureduce_diskcache *cache);

/* true on a hit; binary->data is malloc'd. */
bool cureduce_diskcache_load(cureduce_diskcache *cache, const cureduce_kernel_key *key, cureduce_binary *binary);
void cureduce_diskcache_store(cureduce_diskcache *cache, const cureduce_kernel_key *key, int nvrtc_version,
                              const cureduce_binary *binary);

/* Entry encoding, exposed for the tests and the fuzzer. decode is true when `data` is a valid
 * entry for `key`; it then points binary->data into `data` and sets *nvrtc_version. */
bool cureduce_diskcache_encode(const cureduce_kernel_key *key, int nvrtc_version, const cureduce_binary *binary,
                               void **data, size_t *size);
bool cureduce_diskcache_decode(const cureduce_kernel_key *key, const void *data, size_t size,
                               cureduce_binary *binary, int *nvrtc_version);

#endif
