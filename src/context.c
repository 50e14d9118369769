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
}

static cureduce_status check_settings(const cureduce_settings *settings) {
  CUREDUCE_RETURN_ERROR_IF(settings->device < 0, NO_DEVICE, "device ordinal %d is negative", settings->device);
  CUREDUCE_RETURN_ERROR_IF(settings->max_streams < 1 || settings->max_streams > 4096, INVALID_ARGUMENT,
                           "max_streams %u is not from 1 to 4096", settings->max_streams);
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
  cureduce_status status = read_device(context, settings->device);
  if (status == CUREDUCE_STATUS_OK)
    status = cureduce_driver_check(driver->cuDevicePrimaryCtxRetain(&context->primary, context->device),
                                   "cuDevicePrimaryCtxRetain", __FILE__, __LINE__);
  if (status != CUREDUCE_STATUS_OK) {
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
    free(context);
    return status;
  }
  cureduce_log(&context->logger, CUREDUCE_LOG_INFO, "context on device %d: %s, sm_%d, %d SMs", settings->device,
               context->info.name, context->info.arch, context->info.sm_count);
  *created = context;
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
  cureduce_plan_table_free(&context->plans);
  cureduce_diskcache_close(&context->disk);
  context->driver->cuDevicePrimaryCtxRelease(context->device);
  free(context);
}
