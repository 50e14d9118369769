#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "error.h"
#include "kcache.h"
#include "source.h"

struct cureduce_kcache_entry {
  cureduce_spec spec;
  CUmodule module;
  cureduce_kernel kernel;
  cureduce_kcache_entry *next;
};

void cureduce_kcache_init(cureduce_kcache *cache, const cureduce_driver *driver, int arch,
                          const cureduce_logger *logger, cureduce_diskcache *disk) {
  memset(cache, 0, sizeof *cache);
  cache->driver = driver;
  cache->arch = arch;
  cache->logger = logger;
  cache->disk = disk;
  pthread_mutex_init(&cache->lock, NULL);
}

void cureduce_kcache_release(cureduce_kcache *cache) {
  for (size_t b = 0; b < sizeof cache->buckets / sizeof cache->buckets[0]; b++)
    for (cureduce_kcache_entry *entry = cache->buckets[b], *next; entry; entry = next) {
      next = entry->next;
      cache->driver->cuModuleUnload(entry->module);
      free(entry);
    }
  pthread_mutex_destroy(&cache->lock);
}

static size_t bucket_of(const cureduce_spec *spec) {
  const unsigned char *bytes = (const unsigned char *)spec;
  uint32_t hash = 2166136261u; /* FNV-1a */
  for (size_t i = 0; i < sizeof *spec; i++)
    hash = (hash ^ bytes[i]) * 16777619u;
  return hash % 256;
}

static cureduce_kcache_entry *find(cureduce_kcache *cache, const cureduce_spec *kernel) {
  for (cureduce_kcache_entry *entry = cache->buckets[bucket_of(kernel)]; entry; entry = entry->next)
    if (cureduce_spec_equal(&entry->spec, kernel))
      return entry;
  return NULL;
}

static cureduce_status load(cureduce_kcache *cache, const cureduce_spec *kernel, cureduce_kcache_entry **loaded) {
  cureduce_binary binary;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_build_kernel(kernel, cache->arch, cache->disk, cache->logger, &binary));
  cureduce_kcache_entry *entry = calloc(1, sizeof *entry);
  if (!entry) {
    free(binary.data);
    return CUREDUCE_FAIL(OUT_OF_MEMORY, "no memory for a kernel cache entry");
  }
  const cureduce_driver *cu = cache->driver;
  cureduce_status status = cureduce_driver_check(cu->cuModuleLoadData(&entry->module, binary.data),
                                                 "cuModuleLoadData", __FILE__, __LINE__);
  free(binary.data);
  if (status == CUREDUCE_STATUS_OK) {
    status = cureduce_driver_check(cu->cuModuleGetFunction(&entry->kernel.first, entry->module, CUREDUCE_KERNEL_NAME),
                                   "cuModuleGetFunction", __FILE__, __LINE__);
    if (status == CUREDUCE_STATUS_OK && cureduce_strategy_passes(kernel->strategy) == CUREDUCE_PASSES_CLASSIC)
      status = cureduce_driver_check(
          cu->cuModuleGetFunction(&entry->kernel.partials, entry->module, CUREDUCE_PARTIALS_KERNEL_NAME),
          "cuModuleGetFunction", __FILE__, __LINE__);
    if (status != CUREDUCE_STATUS_OK)
      cu->cuModuleUnload(entry->module);
  }
  if (status != CUREDUCE_STATUS_OK) {
    free(entry);
    return status;
  }
  entry->spec = *kernel;
  *loaded = entry;
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_kcache_get(cureduce_kcache *cache, const cureduce_spec *spec, cureduce_kernel *kernel) {
  cureduce_spec key = cureduce_spec_kernel_part(spec);
  pthread_mutex_lock(&cache->lock);
  cureduce_kcache_entry *entry = find(cache, &key);
  pthread_mutex_unlock(&cache->lock);
  if (entry) {
    *kernel = entry->kernel;
    return CUREDUCE_STATUS_OK;
  }
  cureduce_kcache_entry *loaded = NULL;
  CUREDUCE_FORWARD_IF_ERROR(load(cache, &key, &loaded));
  pthread_mutex_lock(&cache->lock);
  entry = find(cache, &key); /* another thread may have loaded it meanwhile */
  if (!entry) {
    size_t bucket = bucket_of(&key);
    loaded->next = cache->buckets[bucket];
    cache->buckets[bucket] = entry = loaded;
    loaded = NULL;
  }
  pthread_mutex_unlock(&cache->lock);
  if (loaded) {
    cache->driver->cuModuleUnload(loaded->module);
    free(loaded);
  }
  *kernel = entry->kernel;
  return CUREDUCE_STATUS_OK;
}
