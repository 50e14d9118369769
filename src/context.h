/* What a context holds: the device and its primary context, the caches, the workspace, the
 * tuning it knows and the shortcut's plans. */
#ifndef CUREDUCE_CONTEXT_H
#define CUREDUCE_CONTEXT_H

#include <stdbool.h>

#include "kcache.h"
#include "plancache.h"
#include "tunedb.h"
#include "workspace.h"

typedef struct cureduce_device_info {
  char name[256];
  int arch; /* compute capability, major * 10 + minor */
  int sm_count;
  int max_threads_per_sm;
} cureduce_device_info;

struct cureduce_context {
  const cureduce_driver *driver;
  CUdevice device;
  int ordinal; /* the device's ordinal, as pointer attributes give it */
  CUcontext primary;
  cureduce_device_info info;
  cureduce_logger logger;
  bool check_pointers;
  cureduce_diskcache disk;
  cureduce_kcache kernels;
  cureduce_workspace workspace;
  cureduce_plancache plans;
  cureduce_tuning tuning;
  char gpu_key[CUREDUCE_TUNEDB_KEY_MAX]; /* names this GPU exactly in the tuning database */
  char tunedb_path[4300];                /* "" without a disk cache */
  pthread_mutex_t tuned_lock;            /* guards tuned */
  cureduce_tunedb tuned;
};

/* The oldest architecture the library supports: CUDA 13's NVRTC compiles for nothing older. */
#define CUREDUCE_MIN_ARCH 75

/* Stores tuned choices in the context (and the file, when there is one); the next call for each
 * takes its new plan. */
cureduce_status cureduce_context_adopt_tuning(cureduce_context *context, const cureduce_tunedb *records);

/* Makes the context's primary context current for the calling thread if it is not already;
 * *pushed says whether cureduce_context_leave must pop it. */
cureduce_status cureduce_context_enter(const cureduce_context *context, bool *pushed);
void cureduce_context_leave(const cureduce_context *context, bool pushed);

#endif
