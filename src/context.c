#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachefile.h"
#include "context.h"
#include "error.h"

void cureduce_default_settings(cureduce_settings *settings) {
  if (!settings)
    return;
  memset(settings, 0, sizeof *settings);
  settings->device = 0;
  settings->cache_dir = NULL;
  settings->disk_cache = 1;
  settings->log_level = cureduce_log_level_from_env(CUREDUCE_LOG_WARN);
  settings->max_streams = 16;
  settings->check_pointers = 1;
  settings->tuning = CUREDUCE_TUNING_CACHED;
}

static cureduce_status check_settings(const cureduce_settings *settings) {
  CUREDUCE_RETURN_ERROR_IF(settings->device < 0, NO_DEVICE, "device ordinal %d is negative", settings->device);
  CUREDUCE_RETURN_ERROR_IF(settings->max_streams < 1 || settings->max_streams > 4096, INVALID_ARGUMENT,
                           "max_streams %u is not from 1 to 4096", settings->max_streams);
  CUREDUCE_RETURN_ERROR_IF(settings->tuning < CUREDUCE_TUNING_CACHED || settings->tuning > CUREDUCE_TUNING_ON_FIRST_USE,
                           INVALID_ARGUMENT, "tuning %d is not a cureduce_tuning", (int)settings->tuning);
  CUREDUCE_RETURN_ERROR_IF(settings->log_level < CUREDUCE_LOG_OFF || settings->log_level > CUREDUCE_LOG_DEBUG,
                           INVALID_ARGUMENT, "log_level %d is not a cureduce_log_level", (int)settings->log_level);
  for (size_t i = 0; i < sizeof settings->reserved; i++)
    CUREDUCE_RETURN_ERROR_IF(settings->reserved[i] != 0, INVALID_ARGUMENT,
                             "reserved byte %zu is not zero: start from cureduce_default_settings()", i);
  return CUREDUCE_STATUS_OK;
}

static cureduce_status read_device(cureduce_context *context, int ordinal) {
  const cureduce_driver *cu = context->driver;
  int count = 0;
  CUREDUCE_CU(cu->cuDeviceGetCount(&count));
  CUREDUCE_RETURN_ERROR_IF(ordinal >= count, NO_DEVICE, "device %d asked for, %d present", ordinal, count);
  CUREDUCE_CU(cu->cuDeviceGet(&context->device, ordinal));
  cureduce_device_info *info = &context->info;
  int major, minor;
  CUREDUCE_CU(cu->cuDeviceGetName(info->name, sizeof info->name, context->device));
  CUREDUCE_CU(cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, context->device));
  CUREDUCE_CU(cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, context->device));
  CUREDUCE_CU(cu->cuDeviceGetAttribute(&info->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, context->device));
  CUREDUCE_CU(cu->cuDeviceGetAttribute(&info->max_threads_per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
                                       context->device));
  info->arch = major * 10 + minor;
  CUREDUCE_RETURN_ERROR_IF(info->arch < CUREDUCE_MIN_ARCH, UNSUPPORTED,
                           "%s is sm_%d; cureduce needs sm_%d (Turing) or newer, the oldest CUDA 13's NVRTC compiles for",
                           info->name, info->arch, CUREDUCE_MIN_ARCH);
  context->ordinal = ordinal;
  int bus_bits, memory_khz, driver;
  CUREDUCE_CU(cu->cuDeviceGetAttribute(&bus_bits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, context->device));
  CUREDUCE_CU(cu->cuDeviceGetAttribute(&memory_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, context->device));
  CUREDUCE_CU(cu->cuDriverGetVersion(&driver));
  snprintf(context->gpu_key, sizeof context->gpu_key,
           "device=%s;cc=%d.%d;sms=%d;bus_bits=%d;memory_khz=%d;driver=%d;cureduce=%s;tuning_space=%d", info->name,
           major, minor, info->sm_count, bus_bits, memory_khz, driver, cureduce_version_string(),
           CUREDUCE_TUNING_SPACE_VERSION);
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_context_enter(const cureduce_context *context, bool *pushed) {
  CUcontext current = NULL;
  CUREDUCE_CU(context->driver->cuCtxGetCurrent(&current));
  *pushed = current != context->primary;
  if (*pushed)
    CUREDUCE_CU(context->driver->cuCtxPushCurrent(context->primary));
  return CUREDUCE_STATUS_OK;
}

void cureduce_context_leave(const cureduce_context *context, bool pushed) {
  CUcontext popped;
  if (pushed)
    context->driver->cuCtxPopCurrent(&popped);
}

/* The parts made once the primary context is current: caches and workspace. */
static cureduce_status open_resources(cureduce_context *context, const cureduce_settings *settings) {
  char location[4096];
  const char *root = NULL;
  if (settings->disk_cache) {
    if (cureduce_cache_location(settings->cache_dir, location, sizeof location))
      root = location;
    else
      cureduce_log(&context->logger, CUREDUCE_LOG_WARN,
                   "no cache location (set CUREDUCE_CACHE_DIR or HOME): compiled kernels stay in memory");
  }
  cureduce_diskcache_open(&context->disk, root, &context->logger);
  if (context->disk.root[0]) { /* a root that is created and trusted: the tuning lives there too */
    cureduce_tunedb_path(root, context->gpu_key, context->tunedb_path, sizeof context->tunedb_path);
    if (settings->tuning != CUREDUCE_TUNING_OFF)
      cureduce_tunedb_read(context->tunedb_path, context->gpu_key, &context->tuned, &context->logger);
  }
  cureduce_kcache_init(&context->kernels, context->driver, context->info.arch, &context->logger, &context->disk);
  return cureduce_workspace_create(&context->workspace, context->driver, settings->max_streams);
}

cureduce_status cureduce_context_create(cureduce_context **created, const cureduce_settings *settings) {
  cureduce_error_clear();
  CUREDUCE_RETURN_ERROR_IF(!created, NULL_POINTER, "context must not be NULL");
  cureduce_settings defaults;
  cureduce_default_settings(&defaults);
  if (!settings)
    settings = &defaults;
  CUREDUCE_FORWARD_IF_ERROR(check_settings(settings));
  const cureduce_driver *driver;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_driver_get(&driver));

  cureduce_context *context = calloc(1, sizeof *context);
  CUREDUCE_RETURN_ERROR_IF(!context, OUT_OF_MEMORY, "no memory for a context");
  context->driver = driver;
  context->logger = (cureduce_logger){settings->log_level, settings->log_callback, settings->log_user_data};
  context->check_pointers = settings->check_pointers != 0;
  context->tuning = settings->tuning;
  pthread_mutex_init(&context->tuned_lock, NULL);
  cureduce_status status = read_device(context, settings->device);
  if (status == CUREDUCE_STATUS_OK)
    status = cureduce_driver_check(driver->cuDevicePrimaryCtxRetain(&context->primary, context->device),
                                   "cuDevicePrimaryCtxRetain", __FILE__, __LINE__);
  if (status != CUREDUCE_STATUS_OK) {
    pthread_mutex_destroy(&context->tuned_lock);
    free(context);
    return status;
  }
  bool pushed;
  status = cureduce_context_enter(context, &pushed);
  if (status == CUREDUCE_STATUS_OK) {
    status = open_resources(context, settings);
    if (status != CUREDUCE_STATUS_OK) {
      cureduce_kcache_release(&context->kernels);
      cureduce_diskcache_close(&context->disk);
    }
    cureduce_context_leave(context, pushed);
  }
  if (status != CUREDUCE_STATUS_OK) {
    driver->cuDevicePrimaryCtxRelease(context->device);
    cureduce_tunedb_free(&context->tuned);
    pthread_mutex_destroy(&context->tuned_lock);
    free(context);
    return status;
  }
  cureduce_log(&context->logger, CUREDUCE_LOG_INFO, "context on device %d: %s, sm_%d, %d SMs", settings->device,
               context->info.name, context->info.arch, context->info.sm_count);
  *created = context;
  cureduce_error_clear(); /* a warning on the way (an unwritable cache) is no failure of this call */
  return CUREDUCE_STATUS_OK;
}

void cureduce_context_destroy(cureduce_context *context) {
  if (!context)
    return;
  bool pushed = false;
  cureduce_status entered = cureduce_context_enter(context, &pushed);
  cureduce_kcache_release(&context->kernels);
  cureduce_workspace_destroy(&context->workspace);
  if (entered == CUREDUCE_STATUS_OK)
    cureduce_context_leave(context, pushed);
  cureduce_plancache_free(&context->plans);
  cureduce_diskcache_close(&context->disk);
  cureduce_tunedb_free(&context->tuned);
  pthread_mutex_destroy(&context->tuned_lock);
  context->driver->cuDevicePrimaryCtxRelease(context->device);
  free(context);
}

cureduce_status cureduce_context_adopt_tuning(cureduce_context *context, const cureduce_tunedb *records) {
  pthread_mutex_lock(&context->tuned_lock);
  bool stored = true;
  for (size_t i = 0; i < records->count; i++)
    stored = stored && cureduce_tunedb_put(&context->tuned, &records->records[i]);
  pthread_mutex_unlock(&context->tuned_lock);
  CUREDUCE_RETURN_ERROR_IF(!stored, OUT_OF_MEMORY, "no memory for the tuning records");
  for (size_t i = 0; i < records->count; i++) {
    const cureduce_tune_record *r = &records->records[i];
    if (r->layout != CUREDUCE_LAYOUT_CONTIGUOUS || r->transform != CUREDUCE_TRANSFORM_NONE)
      continue; /* shaped and transformed plans look their tuning up when they are made */
    cureduce_plancache_key key = {.op = (cureduce_op)r->op, .input = (cureduce_dtype)r->input,
                                  .output = (cureduce_dtype)r->output, .bucket = r->bucket};
    cureduce_plancache_forget(&context->plans, &key);
  }
  if (!context->tunedb_path[0])
    return CUREDUCE_STATUS_OK;
  cureduce_status status = cureduce_tunedb_merge(context->tunedb_path, context->gpu_key, records, &context->logger);
  if (status != CUREDUCE_STATUS_OK)
    cureduce_log(&context->logger, CUREDUCE_LOG_WARN, "%s: the tuning stays in this process's memory",
                 cureduce_last_error_detail());
  cureduce_error_clear(); /* warned: the tuning itself succeeded */
  return CUREDUCE_STATUS_OK;
}
