/* The context's device workspace: one allocation at context creation, holding
 *  - one slot per stream that runs multi-block reductions without a workspace of its own: a
 *    single pass's workspace (execute.h), then an armed area (below), claimed on first use and
 *    kept until released, so reductions on different streams never share a ticket;
 *  - result cells for cureduce_reduce_to_host, one per call in flight: threads that share a
 *    stream never share a cell. */
#ifndef CUREDUCE_WORKSPACE_H
#define CUREDUCE_WORKSPACE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "driver.h"
#include "execute.h"

enum {
  CUREDUCE_SLOT_BYTES = CUREDUCE_WORKSPACE_MAX_BYTES, /* the most workspace a slot serves */
  /* After those, the slot's armed area: where a shaped launch in the slot keeps the bytes that
   * must be zero before it (shape.h: tickets past the slot's own, split words), which every
   * launch leaves zero. So such a launch needs no memset first: on an H200 a memset of 8 KiB
   * ahead of a small kernel added 3.2 us, a single call or back to back. A launch arms no more
   * than its workspace past CUREDUCE_WORKSPACE_PARTIALS. */
  CUREDUCE_SLOT_ARMED_BYTES = CUREDUCE_SLOT_BYTES - CUREDUCE_WORKSPACE_PARTIALS,
  CUREDUCE_SLOT_STRIDE = CUREDUCE_SLOT_BYTES + CUREDUCE_SLOT_ARMED_BYTES,
  CUREDUCE_RESULT_CELLS = 64,
  CUREDUCE_RESULT_CELL_BYTES = sizeof(cureduce_value) /* the largest result: a variance's, 24 bytes */
};

typedef struct cureduce_workspace {
  const cureduce_driver *driver;
  CUdeviceptr base;
  unsigned slot_count;
  _Atomic uintptr_t *owners; /* stream key per slot, or a free mark */
  pthread_mutex_t cells_lock;
  pthread_cond_t cell_freed;
  uint64_t cells_in_use; /* bit i: cell i belongs to a call in flight */
} cureduce_workspace;

/* Device bytes for slot_count slots and the result cells. */
size_t cureduce_workspace_bytes(unsigned slot_count);

/* Allocates and zeroes the slots; the context must be current. */
cureduce_status cureduce_workspace_create(cureduce_workspace *workspace, const cureduce_driver *driver,
                                          unsigned slot_count);
void cureduce_workspace_destroy(cureduce_workspace *workspace);

/* A slot's armed area (CUREDUCE_SLOT_ARMED_BYTES, zero between launches). */
static inline CUdeviceptr cureduce_slot_armed_area(CUdeviceptr slot) { return slot + CUREDUCE_SLOT_BYTES; }

/* The stream's slot, claimed on first use. Lock-free. */
cureduce_status cureduce_workspace_slot(cureduce_workspace *workspace, void *stream, CUdeviceptr *slot);
void cureduce_workspace_release(cureduce_workspace *workspace, void *stream);

/* A result cell of the caller's own until it gives it back; waits while all are in use. */
CUdeviceptr cureduce_workspace_claim_cell(cureduce_workspace *workspace, unsigned *cell);
void cureduce_workspace_return_cell(cureduce_workspace *workspace, unsigned cell);

#endif
