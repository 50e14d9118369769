/* Plans: a problem made ready to run on one context (its kernel loaded, its configuration chosen:
 * tuned, heuristic or pinned, its grid and workspace known), and the one launch path that plans
 * and the cureduce_reduce() shortcut share: pointer checks, workspace, launch. */
#ifndef CUREDUCE_PLAN_H
#define CUREDUCE_PLAN_H

#include <stdbool.h>

#include "context.h"
#include "problem.h"
#include "shape.h"

/* A shaped plan's configuration and its launch on the plan's shape. */
typedef struct cureduce_shaped_choice {
  cureduce_choice choice;
  cureduce_shape_launch launch;
} cureduce_shaped_choice;

struct cureduce_plan {
  cureduce_context *context;
  cureduce_problem problem;
  cureduce_choice choice;
  unsigned grid;
  size_t workspace_bytes;
  cureduce_shape_launch shaped; /* shaped problems: the launch (grid and workspace are its) */
  /* CUREDUCE_TUNING_ON_FIRST_USE, a shaped plan made with the heuristic's choice: the first
   * execution outside a graph capture claims the tuning (tune_pending) and publishes the tuned
   * choice (tuned), which every later execution runs. It needs no more workspace than the plan
   * said. Executions take the plan as const: these two are its only mutable state. */
  atomic_bool tune_pending;
  _Atomic(cureduce_shaped_choice *) tuned;
};


/* The shortcut's choice for the key: the published one, else made (tuned or heuristic, its kernel
 * loaded) and published. The context must be current. */
cureduce_status cureduce_plan_choice(cureduce_context *context, const cureduce_plancache_key *key,
                                     const cureduce_choice **choice);
/* The two halves of that, for the test of a tune that lands between them: makes a choice as of
 * the returned generation, unpublished (cureduce_plancache_publish takes it). */
cureduce_status cureduce_plan_make_choice(cureduce_context *context, const cureduce_plancache_key *key,
                                          cureduce_choice **made, unsigned *generation);

/* Whether the tuning database has a choice for the key (takes a lock: not for every call). */
bool cureduce_plan_is_tuned(cureduce_context *context, cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                            size_t n);

/* Whether the context's tuning holds a record for the key (cureduce_tunedb_key), copied to
 * *record when record is not NULL. Takes a lock: not for every call. */
bool cureduce_plan_tuned_record(cureduce_context *context, const cureduce_tune_record *key,
                                cureduce_tune_record *record);

/* One execution of a choice. */
typedef struct cureduce_launch {
  CUdeviceptr input;
  size_t n;
  CUdeviceptr output;
  bool output_is_result_cell; /* the library's own memory: not checked */
  CUdeviceptr workspace;      /* 0: the stream's slot */
  size_t workspace_bytes;
  CUstream stream;
  CUdeviceptr second;         /* y of a map of two inputs (cureduce_plan_execute_pair); else 0 */
} cureduce_launch;

/* The device checks of a launch's input and output (settings.check_pointers). */
cureduce_status cureduce_plan_check_pointers(const cureduce_context *context, const cureduce_launch *launch);

/* Checks the pointers against the device, arms the workspace, launches. The context must be
 * current. */
cureduce_status cureduce_plan_run(cureduce_context *context, const cureduce_choice *choice,
                                  const cureduce_launch *launch);

/* Refuses a call that needs the library's own workspace while the stream is captured. */
cureduce_status cureduce_plan_refuse_capture(const cureduce_context *context, CUstream stream, const char *why);

#endif
