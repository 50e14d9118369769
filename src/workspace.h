/* The context's device workspace: one allocation at context creation, cut into slots. A slot
 * holds a multi-block reduction's per-block partials, its ticket (the counter that finds the
 * last block, which re-arms it to 0) and a result cell for cureduce_reduce_to_host. Each stream
 * owns one slot, so reductions on different streams never share a ticket. */
#ifndef CUREDUCE_WORKSPACE_H
#define CUREDUCE_WORKSPACE_H

#include <stdatomic.h>
#include <stdint.h>

#include "driver.h"

enum {
  CUREDUCE_SLOT_TICKET = 0,     /* unsigned, 0 between launches */
  CUREDUCE_SLOT_RESULT = 16,    /* 16 bytes: a cureduce_value */
  CUREDUCE_SLOT_PARTIALS = 256, /* CUREDUCE_MAX_GRID partials of at most 16 bytes */
  CUREDUCE_MAX_GRID = 8192,
  CUREDUCE_SLOT_BYTES = CUREDUCE_SLOT_PARTIALS + CUREDUCE_MAX_GRID * 16
};

typedef struct cureduce_workspace {
  const cureduce_driver *driver;
  CUdeviceptr base;
  unsigned slot_count;
  _Atomic uintptr_t *owners; /* stream key per slot, or a free mark */
} cureduce_workspace;

/* Allocates and zeroes the slots; the context must be current. */
cureduce_status cureduce_workspace_create(cureduce_workspace *workspace, const cureduce_driver *driver,
                                          unsigned slot_count);
void cureduce_workspace_destroy(cureduce_workspace *workspace);

/* The stream's slot, claimed on first use. Lock-free. */
cureduce_status cureduce_workspace_slot(cureduce_workspace *workspace, void *stream, CUdeviceptr *slot);
void cureduce_workspace_release(cureduce_workspace *workspace, void *stream);

#endif
