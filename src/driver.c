#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "error.h"

static cureduce_driver driver_table;
static cureduce_status load_status;
static char load_failure[512];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

typedef CUresult (*get_proc_address_fn)(const char *, void **, int, cuuint64_t,
                                         CUdriverProcAddressQueryResult *);

/* The ABI version whose entry points we ask for: the one this file's calls are written against. */
#define CUREDUCE_DRIVER_ABI 12000

static void load_driver(void) {
  const char *library = getenv("CUREDUCE_DRIVER_LIB");
  if (!library)
    library = "libcuda.so.1";
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    load_status = CUREDUCE_STATUS_NO_DRIVER;
    snprintf(load_failure, sizeof load_failure, "dlopen(%s) failed: %s", library, dlerror());
    return;
  }
  get_proc_address_fn get_proc_address;
  void *symbol = dlsym(handle, "cuGetProcAddress_v2"); /* POSIX's way to take a function */
  memcpy(&get_proc_address, &symbol, sizeof symbol);
  if (!get_proc_address) {
    load_status = CUREDUCE_STATUS_NO_DRIVER;
    snprintf(load_failure, sizeof load_failure,
             "%s has no cuGetProcAddress_v2: the driver is older than CUDA 12", library);
    return;
  }
#define CUREDUCE_DRIVER_RESOLVE(name)                                                              \
  {                                                                                                \
    CUdriverProcAddressQueryResult found;                                                          \
    if (get_proc_address(#name, (void **)&driver_table.name, CUREDUCE_DRIVER_ABI,                 \
                         CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS ||                  \
        found != CU_GET_PROC_ADDRESS_SUCCESS) {                                                    \
      load_status = CUREDUCE_STATUS_NO_DRIVER;                                                     \
      snprintf(load_failure, sizeof load_failure, "the driver does not provide %s", #name);       \
      return;                                                                                      \
    }                                                                                              \
  }
  CUREDUCE_DRIVER_ENTRIES(CUREDUCE_DRIVER_RESOLVE)
#undef CUREDUCE_DRIVER_RESOLVE
  CUresult init = driver_table.cuInit(0);
  if (init != CUDA_SUCCESS) {
    const char *name = "?";
    driver_table.cuGetErrorName(init, &name);
    load_status = init == CUDA_ERROR_NO_DEVICE ? CUREDUCE_STATUS_NO_DEVICE : CUREDUCE_STATUS_NO_DRIVER;
    snprintf(load_failure, sizeof load_failure, "cuInit failed: %s", name);
  }
}

cureduce_status cureduce_driver_get(const cureduce_driver **driver) {
  pthread_once(&load_once, load_driver);
  if (load_status != CUREDUCE_STATUS_OK)
    return cureduce_fail(load_status, __FILE__, __LINE__, NULL, "%s", load_failure);
  *driver = &driver_table;
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_driver_check(CUresult result, const char *call, const char *file, int line) {
  if (result == CUDA_SUCCESS)
    return CUREDUCE_STATUS_OK;
  const char *name = "unknown error", *message = "";
  if (driver_table.cuGetErrorName) {
    driver_table.cuGetErrorName(result, &name);
    driver_table.cuGetErrorString(result, &message);
  }
  cureduce_status status = result == CUDA_ERROR_OUT_OF_MEMORY ? CUREDUCE_STATUS_OUT_OF_MEMORY
                                                             : CUREDUCE_STATUS_CUDA_ERROR;
  return cureduce_fail(status, file, line, NULL, "%s returned %s (%d): %s", call, name, (int)result,
                       message);
}
