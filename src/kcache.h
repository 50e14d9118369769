/* Compiled kernels of one context, loaded and ready to launch: spec -> CUfunction.
 * A miss builds the kernel (build.h: source, disk cache, NVRTC) and loads the module.
 * Safe to call from several threads; compiles run outside the lock. */
#ifndef CUREDUCE_KCACHE_H
#define CUREDUCE_KCACHE_H

#include <pthread.h>

#include "diskcache.h"
#include "driver.h"
#include "spec.h"

typedef struct cureduce_kcache_entry cureduce_kcache_entry;

/* A loaded kernel: its entry point, and for the classic ladder the one for passes over partials. */
typedef struct cureduce_kernel {
  CUfunction first;
  CUfunction partials; /* NULL for single-pass strategies */
} cureduce_kernel;

typedef struct cureduce_kcache {
  const cureduce_driver *driver;
  int arch;
  const cureduce_logger *logger;
  cureduce_diskcache *disk;
  pthread_mutex_t lock;
  cureduce_kcache_entry *buckets[256];
} cureduce_kcache;

void cureduce_kcache_init(cureduce_kcache *cache, const cureduce_driver *driver, int arch,
                          const cureduce_logger *logger, cureduce_diskcache *disk);
/* Unloads every module; the context must be current. */
void cureduce_kcache_release(cureduce_kcache *cache);

/* The loaded kernel for spec's kernel part; the context must be current. The kernel stays valid
 * until the cache is released. */
cureduce_status cureduce_kcache_get(cureduce_kcache *cache, const cureduce_spec *spec, cureduce_kernel *kernel);

#endif
