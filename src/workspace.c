#include <stdlib.h>

#include "error.h"
#include "workspace.h"

#define FREE_SLOT UINTPTR_MAX
_Static_assert(CUREDUCE_RESULT_CELLS == 64, "cells_in_use has one bit per cell");

/* The key of a stream. NULL and CU_STREAM_LEGACY are one stream. CU_STREAM_PER_THREAD is a
 * different stream in every thread, so its key is an address unique to the calling thread. */
static uintptr_t stream_key(void *stream) {
  static _Thread_local char per_thread_stream;
  if (stream == (void *)CU_STREAM_PER_THREAD)
    return (uintptr_t)&per_thread_stream;
  if (stream == NULL)
    return (uintptr_t)CU_STREAM_LEGACY;
  return (uintptr_t)stream;
}

size_t cureduce_workspace_bytes(unsigned slot_count) {
  return (size_t)slot_count * CUREDUCE_SLOT_STRIDE + CUREDUCE_RESULT_CELLS * CUREDUCE_RESULT_CELL_BYTES;
}

cureduce_status cureduce_workspace_create(cureduce_workspace *workspace, const cureduce_driver *driver,
                                          unsigned slot_count) {
  workspace->driver = driver;
  workspace->slot_count = slot_count;
  workspace->base = 0;
  workspace->cells_in_use = 0;
  workspace->owners = malloc(slot_count * sizeof *workspace->owners);
  CUREDUCE_RETURN_ERROR_IF(!workspace->owners, OUT_OF_MEMORY, "no memory for %u slot owners", slot_count);
  for (unsigned i = 0; i < slot_count; i++)
    atomic_init(&workspace->owners[i], FREE_SLOT);
  pthread_mutex_init(&workspace->cells_lock, NULL);
  pthread_cond_init(&workspace->cell_freed, NULL);
  size_t bytes = cureduce_workspace_bytes(slot_count);
  cureduce_status status = cureduce_driver_check(driver->cuMemAlloc(&workspace->base, bytes), "cuMemAlloc",
                                                 __FILE__, __LINE__);
  if (status == CUREDUCE_STATUS_OK)
    status = cureduce_driver_check(driver->cuMemsetD8(workspace->base, 0, bytes), "cuMemsetD8", __FILE__, __LINE__);
  /* The memset runs on the legacy stream, which the callers' non-blocking streams do not wait
   * for, and a reduction must never see a ticket that is not yet zero. */
  if (status == CUREDUCE_STATUS_OK)
    status = cureduce_driver_check(driver->cuCtxSynchronize(), "cuCtxSynchronize", __FILE__, __LINE__);
  if (status != CUREDUCE_STATUS_OK)
    cureduce_workspace_destroy(workspace);
  return status;
}

void cureduce_workspace_destroy(cureduce_workspace *workspace) {
  if (workspace->base)
    workspace->driver->cuMemFree(workspace->base);
  if (workspace->owners) {
    pthread_mutex_destroy(&workspace->cells_lock);
    pthread_cond_destroy(&workspace->cell_freed);
  }
  free((void *)workspace->owners);
  workspace->base = 0;
  workspace->owners = NULL;
}

cureduce_status cureduce_workspace_slot(cureduce_workspace *workspace, void *stream, CUdeviceptr *slot) {
  uintptr_t key = stream_key(stream);
  for (unsigned i = 0; i < workspace->slot_count; i++)
    if (atomic_load_explicit(&workspace->owners[i], memory_order_acquire) == key) {
      *slot = workspace->base + (CUdeviceptr)i * CUREDUCE_SLOT_STRIDE;
      return CUREDUCE_STATUS_OK;
    }
  /* Two threads claiming for one stream at once may take two slots; both stay valid, since one
   * stream orders its own launches. */
  for (unsigned i = 0; i < workspace->slot_count; i++) {
    uintptr_t expected = FREE_SLOT;
    if (atomic_compare_exchange_strong(&workspace->owners[i], &expected, key)) {
      *slot = workspace->base + (CUdeviceptr)i * CUREDUCE_SLOT_STRIDE;
      return CUREDUCE_STATUS_OK;
    }
  }
  return CUREDUCE_FAIL(TOO_MANY_STREAMS,
                       "all %u workspace slots are held by other streams: release one with "
                       "cureduce_release_stream() or raise settings.max_streams",
                       workspace->slot_count);
}

void cureduce_workspace_release(cureduce_workspace *workspace, void *stream) {
  uintptr_t key = stream_key(stream);
  for (unsigned i = 0; i < workspace->slot_count; i++) {
    uintptr_t expected = key;
    atomic_compare_exchange_strong(&workspace->owners[i], &expected, FREE_SLOT);
  }
}

CUdeviceptr cureduce_workspace_claim_cell(cureduce_workspace *workspace, unsigned *cell) {
  pthread_mutex_lock(&workspace->cells_lock);
  while (workspace->cells_in_use == UINT64_MAX)
    pthread_cond_wait(&workspace->cell_freed, &workspace->cells_lock);
  unsigned free_cell = 0;
  while (workspace->cells_in_use >> free_cell & 1)
    free_cell++;
  workspace->cells_in_use |= (uint64_t)1 << free_cell;
  pthread_mutex_unlock(&workspace->cells_lock);
  *cell = free_cell;
  return workspace->base + (CUdeviceptr)workspace->slot_count * CUREDUCE_SLOT_STRIDE +
         (CUdeviceptr)free_cell * CUREDUCE_RESULT_CELL_BYTES;
}

void cureduce_workspace_return_cell(cureduce_workspace *workspace, unsigned cell) {
  pthread_mutex_lock(&workspace->cells_lock);
  workspace->cells_in_use &= ~((uint64_t)1 << cell);
  pthread_cond_signal(&workspace->cell_freed);
  pthread_mutex_unlock(&workspace->cells_lock);
}
