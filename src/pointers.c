#include <stdint.h>
#include <string.h>

#include "error.h"
#include "pointers.h"

cureduce_status cureduce_check_device_pointer(const cureduce_context *context, const void *pointer,
                                              const char *what) {
  /* Each answer into zeroed 8 bytes: the driver writes 4 (memory type, ordinal), 8 (context) or
   * a boolean (managed), and leaves them zero for memory it does not know. */
  uint64_t memory_type = 0, owner = 0, managed = 0, ordinal_bits = 0;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_CONTEXT,
                                      CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  void *answers[] = {&memory_type, &owner, &managed, &ordinal_bits};
  CUresult result = context->driver->cuPointerGetAttributes(4, attributes, answers, (CUdeviceptr)(uintptr_t)pointer);
  CUREDUCE_RETURN_ERROR_IF(result != CUDA_SUCCESS || memory_type == 0, NOT_DEVICE_POINTER,
                           "%s %p is not memory the driver knows (host memory from malloc?)", what, pointer);
  if (managed || (uint32_t)memory_type == CU_MEMORYTYPE_HOST)
    return CUREDUCE_STATUS_OK; /* reachable from every device of the process (unified addressing) */
  int32_t ordinal;
  memcpy(&ordinal, &ordinal_bits, sizeof ordinal);
  CUREDUCE_RETURN_ERROR_IF(ordinal != context->ordinal, NOT_DEVICE_POINTER,
                           "%s %p is memory of device %d; this context reduces on device %d", what, pointer,
                           (int)ordinal, context->ordinal);
  CUcontext owning = NULL;
  memcpy(&owning, &owner, sizeof owning);
  CUREDUCE_RETURN_ERROR_IF(owning && owning != context->primary, NOT_DEVICE_POINTER,
                           "%s %p belongs to another CUDA context of device %d; cureduce runs in the device's primary "
                           "context (the CUDA runtime's), whose kernels cannot reach it",
                           what, pointer, context->ordinal);
  return CUREDUCE_STATUS_OK;
}
