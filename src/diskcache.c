#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachefile.h"
#include "diskcache.h"

static const unsigned char entry_magic[8] = {'C', 'U', 'R', 'D', 'K', 'R', 'N', 0};
enum { header_size = 96, max_entry_size = 64 << 20 };

void cureduce_kernel_key_make(const char *source, int arch, cureduce_kernel_key *key) {
  char prefix[160];
  int length = snprintf(prefix, sizeof prefix, "cureduce-kernel format=%d arch=%d options=%s\n",
                        CUREDUCE_DISKCACHE_FORMAT, arch, cureduce_nvrtc_options_text());
  cureduce_sha256_state hash;
  cureduce_sha256_init(&hash);
  cureduce_sha256_update(&hash, prefix, (size_t)length);
  cureduce_sha256_update(&hash, source, strlen(source));
  cureduce_sha256_final(&hash, key->digest);
  key->arch = arch;
}

/* The hash an entry carries: the key bound to the NVRTC version that compiled it. */
static void entry_digest(const cureduce_kernel_key *key, int nvrtc_version, unsigned char digest[32]) {
  unsigned char material[CUREDUCE_SHA256_BYTES + 4];
  memcpy(material, key->digest, CUREDUCE_SHA256_BYTES);
  for (int i = 0; i < 4; i++)
    material[CUREDUCE_SHA256_BYTES + i] = (unsigned char)((uint32_t)nvrtc_version >> (8 * i));
  cureduce_sha256(material, sizeof material, digest);
}

static void put_u32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}
static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get_u32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get_u64(const unsigned char *p) { return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32; }

bool cureduce_diskcache_encode(const cureduce_kernel_key *key, int nvrtc_version, const cureduce_binary *binary,
                               void **data, size_t *size) {
  unsigned char *entry = malloc(header_size + binary->size);
  if (!entry)
    return false;
  memcpy(entry, entry_magic, 8);
  put_u32(entry + 8, CUREDUCE_DISKCACHE_FORMAT);
  put_u32(entry + 12, (uint32_t)nvrtc_version);
  put_u32(entry + 16, (uint32_t)key->arch);
  put_u32(entry + 20, binary->is_cubin ? 1 : 0);
  put_u64(entry + 24, binary->size);
  entry_digest(key, nvrtc_version, entry + 32);
  cureduce_sha256(binary->data, binary->size, entry + 64);
  memcpy(entry + header_size, binary->data, binary->size);
  *data = entry;
  *size = header_size + binary->size;
  return true;
}

bool cureduce_diskcache_decode(const cureduce_kernel_key *key, const void *data, size_t size,
                               cureduce_binary *binary, int *nvrtc_version) {
  const unsigned char *entry = data;
  if (size < header_size || memcmp(entry, entry_magic, 8) != 0 || get_u32(entry + 8) != CUREDUCE_DISKCACHE_FORMAT)
    return false;
  uint32_t version = get_u32(entry + 12), kind = get_u32(entry + 20);
  uint64_t payload = get_u64(entry + 24);
  if (get_u32(entry + 16) != (uint32_t)key->arch || kind > 1 || payload == 0 || payload != size - header_size)
    return false;
  unsigned char digest[CUREDUCE_SHA256_BYTES];
  entry_digest(key, (int)version, digest);
  if (memcmp(digest, entry + 32, sizeof digest) != 0)
    return false;
  cureduce_sha256(entry + header_size, (size_t)payload, digest);
  if (memcmp(digest, entry + 64, sizeof digest) != 0)
    return false;
  if (kind == 0 && entry[size - 1] != '\0') /* PTX is loaded as a C string */
    return false;
  *binary = (cureduce_binary){(void *)(entry + header_size), (size_t)payload, kind == 1};
  *nvrtc_version = (int)version;
  return true;
}

void cureduce_diskcache_open(cureduce_diskcache *cache, const char *root, const cureduce_logger *logger) {
  cache->root[0] = '\0';
  cache->writable = false;
  cache->warned_untrusted = false;
  cache->logger = logger;
  pthread_mutex_init(&cache->lock, NULL);
  if (!root)
    return;
  char kernels[4200], why[4600];
  snprintf(kernels, sizeof kernels, "%s/kernels", root);
  if (strlen(root) >= sizeof cache->root || !cureduce_make_directories(kernels)) {
    cureduce_log(logger, CUREDUCE_LOG_WARN, "kernel cache %s %s (%s): compiled kernels stay in memory", root,
                 cureduce_folder_failure(root), strerror(errno));
    return;
  }
  if (!cureduce_folder_is_trusted(root, why, sizeof why) || !cureduce_folder_is_trusted(kernels, why, sizeof why)) {
    cureduce_log(logger, CUREDUCE_LOG_WARN, "kernel cache folder %s: compiled kernels stay in memory", why);
    return;
  }
  snprintf(cache->root, sizeof cache->root, "%s", root);
  cache->writable = true;
  cureduce_log(logger, CUREDUCE_LOG_DEBUG, "kernel cache at %s", kernels);
}

void cureduce_diskcache_close(cureduce_diskcache *cache) { pthread_mutex_destroy(&cache->lock); }

static void entry_folder(const cureduce_diskcache *cache, const cureduce_kernel_key *key, char *path, size_t size) {
  int length = snprintf(path, size, "%s/kernels/", cache->root);
  for (int i = 0; i < 16; i++)
    length += snprintf(path + length, size - (size_t)length, "%02x", key->digest[i]);
}

/* Whether an entry folder passes the trust rule; the first one that fails is reported. */
static bool folder_trusted(cureduce_diskcache *cache, const char *folder) {
  char why[4600];
  if (cureduce_folder_is_trusted(folder, why, sizeof why))
    return true;
  pthread_mutex_lock(&cache->lock);
  bool first = !cache->warned_untrusted;
  cache->warned_untrusted = true;
  pthread_mutex_unlock(&cache->lock);
  cureduce_log(cache->logger, first ? CUREDUCE_LOG_WARN : CUREDUCE_LOG_INFO,
               "kernel cache folder %s: its entries are neither loaded nor written", why);
  return false;
}

/* Entry file names are "<NVRTC version>.bin"; collects the versions, newest first. */
static int list_versions(const char *folder, int *versions, int max) {
  DIR *dir = opendir(folder);
  if (!dir)
    return 0;
  int count = 0;
  for (struct dirent *item; (item = readdir(dir)) && count < max;) {
    char *end;
    long version = strtol(item->d_name, &end, 10);
    if (end != item->d_name && strcmp(end, ".bin") == 0 && version > 0 && version < 1000000)
      versions[count++] = (int)version;
  }
  closedir(dir);
  for (int i = 1; i < count; i++)
    for (int j = i; j > 0 && versions[j] > versions[j - 1]; j--) {
      int swap = versions[j];
      versions[j] = versions[j - 1];
      versions[j - 1] = swap;
    }
  return count;
}

bool cureduce_diskcache_load(cureduce_diskcache *cache, const cureduce_kernel_key *key, cureduce_binary *binary) {
  if (!cache->root[0])
    return false;
  char folder[4300], path[4400];
  entry_folder(cache, key, folder, sizeof folder);
  int versions[32];
  int count = list_versions(folder, versions, 32);
  if (count == 0 || !folder_trusted(cache, folder))
    return false;
  for (int i = 0; i < count; i++) {
    snprintf(path, sizeof path, "%s/%d.bin", folder, versions[i]);
    void *data;
    size_t size;
    if (!cureduce_read_trusted_file(path, max_entry_size, &data, &size)) {
      if (errno == EPERM || errno == ELOOP)
        cureduce_log(cache->logger, CUREDUCE_LOG_INFO,
                     "kernel cache entry %s is a symbolic link or not trusted: not loaded, to be replaced", path);
      continue;
    }
    cureduce_binary view;
    int version;
    if (cureduce_diskcache_decode(key, data, size, &view, &version) && version == versions[i]) {
      memmove(data, view.data, view.size);
      *binary = (cureduce_binary){data, view.size, view.is_cubin};
      cureduce_log(cache->logger, CUREDUCE_LOG_DEBUG, "kernel cache hit %s", path);
      return true;
    }
    free(data);
    cureduce_log(cache->logger, CUREDUCE_LOG_INFO, "kernel cache entry %s is not valid: ignored, to be replaced", path);
  }
  return false;
}

void cureduce_diskcache_store(cureduce_diskcache *cache, const cureduce_kernel_key *key, int nvrtc_version,
                              const cureduce_binary *binary) {
  pthread_mutex_lock(&cache->lock);
  bool writable = cache->writable;
  pthread_mutex_unlock(&cache->lock);
  if (!writable)
    return;
  char folder[4300], path[4400];
  entry_folder(cache, key, folder, sizeof folder);
  snprintf(path, sizeof path, "%s/%d.bin", folder, nvrtc_version);
  void *data;
  size_t size;
  if (!cureduce_diskcache_encode(key, nvrtc_version, binary, &data, &size))
    return;
  bool made = cureduce_make_directories(folder);
  if (made && !folder_trusted(cache, folder)) {
    free(data);
    return;
  }
  bool stored = made && cureduce_write_file_atomic(path, data, size);
  int error = errno;
  free(data);
  if (stored) {
    cureduce_log(cache->logger, CUREDUCE_LOG_DEBUG, "kernel cache stored %s", path);
    return;
  }
  pthread_mutex_lock(&cache->lock);
  bool first_failure = cache->writable;
  cache->writable = false;
  pthread_mutex_unlock(&cache->lock);
  if (first_failure)
    cureduce_log(cache->logger, CUREDUCE_LOG_WARN,
                 "kernel cache %s cannot be written (%s): compiled kernels stay in memory", cache->root, strerror(error));
}
