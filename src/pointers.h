/* Whether a pointer is memory this context's kernels may read or write. A pointer they cannot
 * reach would fault the kernel and poison the whole CUDA context, so it is refused first. */
#ifndef CUREDUCE_POINTERS_H
#define CUREDUCE_POINTERS_H

#include "context.h"

/* OK for device memory of this context's device and CUDA context (or of none, as the virtual
 * memory API's is), managed memory, and page-locked host memory; NOT_DEVICE_POINTER for memory
 * the driver does not know (malloc), device memory of another device, or device memory of another
 * CUDA context on this device. `what` names the pointer in the message. */
cureduce_status cureduce_check_device_pointer(const cureduce_context *context, const void *pointer, const char *what);

#endif
