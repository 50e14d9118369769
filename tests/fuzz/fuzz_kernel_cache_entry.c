/* libFuzzer: kernel cache entries as read from disk. Whatever the bytes, decoding must not
 * crash, and an entry it accepts must encode back to the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "diskcache.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  static cureduce_kernel_key key;
  if (!key.arch)
    cureduce_kernel_key_make("fuzzed kernel source", 90, &key);
  cureduce_binary binary;
  int version;
  if (!cureduce_diskcache_decode(&key, data, size, &binary, &version))
    return 0;
  void *again;
  size_t again_size;
  if (!cureduce_diskcache_encode(&key, version, &binary, &again, &again_size))
    abort();
  if (again_size != size || memcmp(again, data, size) != 0)
    abort();
  free(again);
  return 0;
}
