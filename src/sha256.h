/* SHA-256 (FIPS 180-4): the cache's content addresses and checksums. */
#ifndef CUREDUCE_SHA256_H
#define CUREDUCE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define CUREDUCE_SHA256_BYTES 32

typedef struct cureduce_sha256_state {
  uint32_t state[8];
  uint64_t total_bytes;
  unsigned char pending[64];
  size_t pending_bytes;
} cureduce_sha256_state;

void cureduce_sha256_init(cureduce_sha256_state *hash);
void cureduce_sha256_update(cureduce_sha256_state *hash, const void *data, size_t size);
void cureduce_sha256_final(cureduce_sha256_state *hash, unsigned char digest[CUREDUCE_SHA256_BYTES]);
/* One-shot form. */
void cureduce_sha256(const void *data, size_t size, unsigned char digest[CUREDUCE_SHA256_BYTES]);

#endif
