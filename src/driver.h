/* libcuda.so.1, opened at run time: the library and its CPU tests load on machines without a
 * driver. Entry points come through cuGetProcAddress at the CUDA 12.0 ABI. */
#ifndef CUREDUCE_DRIVER_H
#define CUREDUCE_DRIVER_H

#include <cuda.h>

#include "cureduce/cureduce.h"

/* The driver calls the library makes, then the ones its tools and tests make through the same
 * table (events, graphs, copies), so that none of them links against libcuda either. */
#define CUREDUCE_DRIVER_ENTRIES(X)                                                                      \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString)                                 \
  X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetAttribute) X(cuDeviceGetName)                         \
  X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)                                              \
  X(cuCtxGetCurrent) X(cuCtxPushCurrent) X(cuCtxPopCurrent) X(cuCtxSynchronize)                         \
  X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) X(cuLaunchKernel)                        \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                        \
  X(cuMemAlloc) X(cuMemFree) X(cuMemsetD8) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD)              \
  X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) X(cuMemsetD32Async) X(cuMemsetD8Async)                    \
  X(cuPointerGetAttributes) X(cuStreamIsCapturing)                                                     \
  X(cuStreamGetCtx) X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize)                       \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime)       \
  X(cuStreamBeginCapture) X(cuStreamEndCapture) X(cuGraphInstantiateWithFlags) X(cuGraphLaunch)         \
  X(cuGraphExecDestroy) X(cuGraphDestroy)

typedef struct cureduce_driver {
#define CUREDUCE_DRIVER_MEMBER(name) __typeof__(&name) name;
  CUREDUCE_DRIVER_ENTRIES(CUREDUCE_DRIVER_MEMBER)
#undef CUREDUCE_DRIVER_MEMBER
} cureduce_driver;

/* Opens the driver and calls cuInit once per process; later calls return the same answer.
 * $CUREDUCE_DRIVER_LIB names another library to open (tests use it to hide the driver). */
cureduce_status cureduce_driver_get(const cureduce_driver **driver);

/* Turns a driver result into a status with the call's name and the driver's message. */
cureduce_status cureduce_driver_check(CUresult result, const char *call, const char *file, int line);

#define CUREDUCE_CU(call)                                                                   \
  CUREDUCE_FORWARD_IF_ERROR(cureduce_driver_check((call), #call, __FILE__, __LINE__))

#endif
