#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "execute.h"
#include "expression.h"
#include "plan.h"
#include "pointers.h"
#include "shape.h"
#include "tune.h"

/* ---- choosing a configuration ------------------------------------------------------------------ */

/* The tuned spec of the key when the policy allows and the database has one, else the heuristic;
 * *generation as of that reading. */
static cureduce_spec choose_spec(cureduce_context *context, const cureduce_plancache_key *key,
                                 cureduce_plan_origin *origin, unsigned *generation) {
  cureduce_spec spec = cureduce_spec_heuristic(key->op, key->input, key->output, context->info.max_threads_per_sm);
  spec.transform = (uint8_t)key->transform;
  spec.expression = key->expression;
  *origin = CUREDUCE_PLAN_HEURISTIC;
  pthread_mutex_lock(&context->tuned_lock);
  *generation = atomic_load(&context->plans.generation);
  cureduce_tune_record wanted = cureduce_tunedb_contiguous_key(key->op, key->input, key->output, key->bucket);
  wanted.transform = (uint8_t)key->transform;
  wanted.expression = key->expression;
  const cureduce_tune_record *record =
      context->tuning == CUREDUCE_TUNING_OFF ? NULL : cureduce_tunedb_find(&context->tuned, &wanted);
  if (record) {
    spec = record->spec;
    *origin = CUREDUCE_PLAN_TUNED;
  }
  pthread_mutex_unlock(&context->tuned_lock);
  return spec;
}

cureduce_status cureduce_plan_make_choice(cureduce_context *context, const cureduce_plancache_key *key,
                                          cureduce_choice **made, unsigned *generation) {
  cureduce_choice *choice = calloc(1, sizeof *choice);
  CUREDUCE_RETURN_ERROR_IF(!choice, OUT_OF_MEMORY, "no memory for a plan");
  choice->spec = choose_spec(context, key, &choice->origin, generation);
  cureduce_kernel kernel;
  cureduce_status status = cureduce_kcache_get(&context->kernels, &choice->spec, &kernel);
  if (status == CUREDUCE_STATUS_OK && choice->origin == CUREDUCE_PLAN_HEURISTIC)
    status = cureduce_fit_resident(context->driver, kernel.first, &choice->spec);
  if (status != CUREDUCE_STATUS_OK) {
    free(choice);
    return status;
  }
  choice->kernel = kernel.first;
  *made = choice;
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_plan_choice(cureduce_context *context, const cureduce_plancache_key *key,
                                     const cureduce_choice **choice) {
  const cureduce_choice *found = cureduce_plancache_peek(&context->plans, key);
  if (found) {
    *choice = found;
    return CUREDUCE_STATUS_OK;
  }
  cureduce_choice *made;
  unsigned generation;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_plan_make_choice(context, key, &made, &generation));
  *choice = cureduce_plancache_publish(&context->plans, key, made, generation);
  return CUREDUCE_STATUS_OK;
}

bool cureduce_plan_is_tuned(cureduce_context *context, cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                            size_t n) {
  cureduce_tune_record wanted = cureduce_tunedb_contiguous_key(op, input, output, cureduce_size_bucket(n));
  return cureduce_plan_tuned_record(context, &wanted, NULL);
}

bool cureduce_plan_tuned_record(cureduce_context *context, const cureduce_tune_record *key,
                                cureduce_tune_record *record) {
  pthread_mutex_lock(&context->tuned_lock);
  const cureduce_tune_record *found = cureduce_tunedb_find(&context->tuned, key);
  if (found && record)
    *record = *found;
  pthread_mutex_unlock(&context->tuned_lock);
  return found != NULL;
}

/* ---- running ------------------------------------------------------------------------------------ */

/* A refused launch on a stream that belongs to another CUDA context gets a plain answer: the
 * library's kernels live in the device's primary context. Checked only after a failure, so a
 * good call pays nothing for it. */
static cureduce_status explain_launch_failure(const cureduce_context *context, CUstream stream,
                                              cureduce_status status) {
  CUcontext owner;
  if (status != CUREDUCE_STATUS_OK && stream && context->driver->cuStreamGetCtx(stream, &owner) == CUDA_SUCCESS &&
      owner != context->primary)
    return cureduce_fail(CUREDUCE_STATUS_INVALID_ARGUMENT, __FILE__, __LINE__, NULL,
                         "stream %p belongs to another CUDA context; cureduce runs in the device's primary context "
                         "(the CUDA runtime's), so pass a stream created there",
                         (void *)stream);
  return status;
}

cureduce_status cureduce_plan_refuse_capture(const cureduce_context *context, CUstream stream, const char *why) {
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  CUREDUCE_CU(context->driver->cuStreamIsCapturing(stream, &capture));
  CUREDUCE_RETURN_ERROR_IF(capture != CU_STREAM_CAPTURE_STATUS_NONE, INVALID_ARGUMENT,
                           "stream %p is being captured into a CUDA graph, and %s: a graph would keep the stream's "
                           "workspace slot and race with its later calls; capture cureduce_plan_execute() with a "
                           "workspace of your own (cureduce_plan_workspace_size())",
                           (void *)stream, why);
  return CUREDUCE_STATUS_OK;
}

/* A launch's workspace of `needed` bytes, armed on the stream: the caller's, whose bytes from
 * armed_offset on (a ticket, an exact sum's words, a shaped launch's tickets) are zeroed on the
 * stream first (any content will do), or the stream's slot, which every launch leaves armed. */
static cureduce_status claim_workspace(cureduce_context *context, CUdeviceptr given, size_t given_bytes,
                                       CUstream stream, size_t needed, size_t armed_offset, size_t armed_bytes,
                                       CUdeviceptr *workspace) {
  if (given) {
    CUREDUCE_RETURN_ERROR_IF(given_bytes < needed, INVALID_ARGUMENT,
                             "workspace of %zu bytes given, %zu needed (cureduce_plan_workspace_size)", given_bytes,
                             needed);
    CUREDUCE_RETURN_ERROR_IF(given % CUREDUCE_WORKSPACE_ALIGNMENT != 0, MISALIGNED_POINTER,
                             "workspace %p is not aligned to %d bytes", (void *)(uintptr_t)given,
                             CUREDUCE_WORKSPACE_ALIGNMENT);
    if (context->check_pointers)
      CUREDUCE_FORWARD_IF_ERROR(cureduce_check_device_pointer(context, (const void *)(uintptr_t)given, "workspace"));
    if (armed_bytes)
      CUREDUCE_CU(context->driver->cuMemsetD32Async(given + armed_offset, 0, armed_bytes / 4, stream));
    *workspace = given;
    return CUREDUCE_STATUS_OK;
  }
  CUREDUCE_RETURN_ERROR_IF(needed > CUREDUCE_SLOT_BYTES, INVALID_ARGUMENT,
                           "this plan needs %zu bytes of workspace, more than a stream's slot of %d: pass a "
                           "workspace (cureduce_plan_workspace_size)",
                           needed, CUREDUCE_SLOT_BYTES);
  CUREDUCE_FORWARD_IF_ERROR(cureduce_plan_refuse_capture(context, stream, "this reduction needs the library's workspace"));
  return cureduce_workspace_slot(&context->workspace, stream, workspace);
}

cureduce_status cureduce_plan_check_pointers(const cureduce_context *context, const cureduce_launch *launch) {
  if (!context->check_pointers)
    return CUREDUCE_STATUS_OK;
  if (launch->n > 0)
    CUREDUCE_FORWARD_IF_ERROR(cureduce_check_device_pointer(context, (const void *)(uintptr_t)launch->input, "input"));
  if (launch->n > 0 && launch->second)
    CUREDUCE_FORWARD_IF_ERROR(cureduce_check_device_pointer(context, (const void *)(uintptr_t)launch->second, "y"));
  if (!launch->output_is_result_cell)
    CUREDUCE_FORWARD_IF_ERROR(cureduce_check_device_pointer(context, (const void *)(uintptr_t)launch->output, "output"));
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_plan_run(cureduce_context *context, const cureduce_choice *choice,
                                  const cureduce_launch *launch) {
  CUREDUCE_FORWARD_IF_ERROR(cureduce_plan_check_pointers(context, launch));
  unsigned grid = cureduce_grid_for(&choice->spec, context->info.sm_count, launch->n, true);
  CUdeviceptr workspace = 0;
  if (grid > 1) {
    size_t needed = cureduce_single_pass_workspace_bytes(&choice->spec, grid);
    CUREDUCE_FORWARD_IF_ERROR(
        explain_launch_failure(context, launch->stream,
                               claim_workspace(context, launch->workspace, launch->workspace_bytes, launch->stream,
                                               needed, 0, cureduce_workspace_armed_bytes(&choice->spec), &workspace)));
  }
  return explain_launch_failure(context, launch->stream,
                                cureduce_launch_single_pass(context->driver, &choice->spec, choice->kernel, grid,
                                                            launch->input, launch->n, launch->output, workspace,
                                                            launch->second, launch->stream));
}

/* ---- the public plan calls ----------------------------------------------------------------------- */

/* A pinned configuration: parsed, production, for this problem's operation and types, and for
 * its layout (a shaped problem's: cureduce_shape_check_spec), before its kernel is compiled. */
static cureduce_status pin_choice(cureduce_context *context, const cureduce_problem *problem, const char *text,
                                  cureduce_choice *choice) {
  cureduce_spec spec;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_spec_parse(text, &spec));
  CUREDUCE_FORWARD_IF_ERROR(cureduce_spec_validate_production(&spec));
  CUREDUCE_RETURN_ERROR_IF(spec.op != problem->op || spec.input != problem->input_type ||
                               spec.output != problem->output_type || spec.transform != problem->transform ||
                               spec.expression != cureduce_problem_expression(problem),
                           INVALID_SPEC, "spec '%s' is not for %s of %s(%s) to %s", text,
                           cureduce_op_name(problem->op), cureduce_transform_name(problem->transform),
                           cureduce_dtype_name(problem->input_type), cureduce_dtype_name(problem->output_type));
  if (cureduce_problem_is_shaped(problem))
    CUREDUCE_FORWARD_IF_ERROR(cureduce_shape_check_spec(&spec, problem));
  else
    CUREDUCE_RETURN_ERROR_IF(cureduce_strategy_layout((cureduce_strategy)spec.strategy) != problem->layout,
                             INVALID_SPEC, "spec '%s' is not for this problem's layout", text);
  cureduce_kernel kernel;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_kcache_get(&context->kernels, &spec, &kernel));
  *choice = (cureduce_choice){spec, kernel.first, CUREDUCE_PLAN_PINNED, NULL};
  return CUREDUCE_STATUS_OK;
}

/* A shaped spec made ready for the problem: its splits fitted to `workspace_limit` bytes of
 * workspace, its kernel loaded. */
static cureduce_status load_shaped(cureduce_context *context, const cureduce_problem *problem, cureduce_spec spec,
                                   cureduce_plan_origin origin, size_t workspace_limit, cureduce_shaped_choice *made) {
  const cureduce_device_info *device = &context->info;
  spec = cureduce_shape_fit_workspace(spec, problem, device->sm_count, workspace_limit);
  cureduce_kernel kernel;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_kcache_get(&context->kernels, &spec, &kernel));
  if (origin == CUREDUCE_PLAN_HEURISTIC)
    CUREDUCE_FORWARD_IF_ERROR(cureduce_fit_resident(context->driver, kernel.first, &spec));
  made->choice = (cureduce_choice){spec, kernel.first, origin, NULL};
  made->launch = cureduce_shape_geometry(&spec, problem, device->sm_count);
  return CUREDUCE_STATUS_OK;
}

/* A shaped problem's choice: the pinned spec, which must fit the layout, else the tuned one for
 * the problem's key where the policy allows and the database has one, else the heuristic's for
 * the shape; and its launch. */
static cureduce_status fill_shaped_plan(cureduce_plan *plan, const char *spec) {
  cureduce_context *context = plan->context;
  const cureduce_problem *problem = &plan->problem;
  cureduce_shaped_choice made;
  if (spec) {
    CUREDUCE_FORWARD_IF_ERROR(pin_choice(context, problem, spec, &made.choice));
    made.launch = cureduce_shape_geometry(&made.choice.spec, problem, context->info.sm_count);
  } else {
    cureduce_tune_record key = cureduce_tunedb_key(problem), record;
    bool tuned = context->tuning != CUREDUCE_TUNING_OFF && cureduce_plan_tuned_record(context, &key, &record) &&
                 cureduce_shape_check_spec(&record.spec, problem) == CUREDUCE_STATUS_OK;
    cureduce_error_clear();
    CUREDUCE_FORWARD_IF_ERROR(load_shaped(
        context, problem,
        tuned ? record.spec
              : cureduce_shape_heuristic(problem, context->info.sm_count, context->info.max_threads_per_sm),
        tuned ? CUREDUCE_PLAN_TUNED : CUREDUCE_PLAN_HEURISTIC,
        cureduce_shape_workspace_limit(problem, context->info.sm_count, context->info.max_threads_per_sm), &made));
    atomic_init(&plan->tune_pending, !tuned && context->tuning == CUREDUCE_TUNING_ON_FIRST_USE);
  }
  plan->choice = made.choice;
  plan->shaped = made.launch;
  plan->grid = made.launch.grid_x;
  plan->workspace_bytes = made.launch.workspace_bytes;
  return CUREDUCE_STATUS_OK;
}

/* A contiguous problem's choice: the shortcut's shared one, or for a transformed problem (which
 * the shortcut never has) one made for it alone. */
static cureduce_status contiguous_choice(cureduce_context *context, const cureduce_problem *problem,
                                         cureduce_choice *choice) {
  cureduce_plancache_key key = {problem->op, problem->input_type, problem->output_type,
                                cureduce_size_bucket((size_t)problem->n), problem->transform,
                                cureduce_problem_expression(problem)};
  if (problem->transform == CUREDUCE_TRANSFORM_NONE) {
    const cureduce_choice *shared;
    CUREDUCE_FORWARD_IF_ERROR(cureduce_plan_choice(context, &key, &shared));
    *choice = *shared;
  } else {
    cureduce_choice *made;
    unsigned generation;
    CUREDUCE_FORWARD_IF_ERROR(cureduce_plan_make_choice(context, &key, &made, &generation));
    *choice = *made;
    free(made);
  }
  choice->next = NULL;
  return CUREDUCE_STATUS_OK;
}

static cureduce_status fill_plan(cureduce_plan *plan, const char *spec) {
  cureduce_context *context = plan->context;
  const cureduce_problem *problem = &plan->problem;
  if (cureduce_problem_is_shaped(problem))
    return fill_shaped_plan(plan, spec);
  if (spec)
    CUREDUCE_FORWARD_IF_ERROR(pin_choice(context, problem, spec, &plan->choice));
  else
    CUREDUCE_FORWARD_IF_ERROR(contiguous_choice(context, problem, &plan->choice));
  plan->grid = cureduce_grid_for(&plan->choice.spec, context->info.sm_count, (size_t)problem->n, true);
  plan->workspace_bytes = cureduce_single_pass_workspace_bytes(&plan->choice.spec, plan->grid);
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_plan_create(cureduce_plan **created, cureduce_context *context,
                                     const cureduce_problem *problem, const char *spec) {
  cureduce_error_clear();
  CUREDUCE_RETURN_ERROR_IF(!created, NULL_POINTER, "plan must not be NULL");
  CUREDUCE_FORWARD_IF_ERROR(cureduce_problem_check(problem));
  CUREDUCE_RETURN_ERROR_IF(!context, NULL_POINTER, "context must not be NULL");
  cureduce_plan *plan = calloc(1, sizeof *plan);
  CUREDUCE_RETURN_ERROR_IF(!plan, OUT_OF_MEMORY, "no memory for a plan");
  plan->context = context;
  plan->problem = cureduce_problem_canonical(problem);
  if (problem->expression) /* the process's copy (registered by the check), not the caller's */
    plan->problem.expression = cureduce_expression_find(cureduce_problem_expression(problem));
  bool pushed;
  cureduce_status status = cureduce_context_enter(context, &pushed);
  if (status == CUREDUCE_STATUS_OK) {
    status = fill_plan(plan, spec);
    cureduce_context_leave(context, pushed);
  }
  if (status != CUREDUCE_STATUS_OK) {
    free(plan);
    return status;
  }
  *created = plan;
  return CUREDUCE_STATUS_OK;
}

void cureduce_plan_destroy(cureduce_plan *plan) {
  if (plan)
    free(atomic_load(&plan->tuned));
  free(plan);
}

cureduce_status cureduce_plan_workspace_size(const cureduce_plan *plan, size_t *bytes, size_t *alignment) {
  cureduce_error_clear();
  CUREDUCE_RETURN_ERROR_IF(!plan || !bytes || !alignment, NULL_POINTER, "plan, bytes and alignment must not be NULL");
  *bytes = plan->workspace_bytes;
  *alignment = CUREDUCE_WORKSPACE_ALIGNMENT;
  return CUREDUCE_STATUS_OK;
}

/* The shaped choice an execution runs: the tuned one once tuning on first use published it. */
static cureduce_shaped_choice current_shaped(const cureduce_plan *plan) {
  cureduce_shaped_choice *tuned = atomic_load(&((cureduce_plan *)plan)->tuned);
  return tuned ? *tuned : (cureduce_shaped_choice){plan->choice, plan->shaped};
}

cureduce_status cureduce_plan_describe(const cureduce_plan *plan, cureduce_plan_info *info) {
  cureduce_error_clear();
  CUREDUCE_RETURN_ERROR_IF(!plan || !info, NULL_POINTER, "plan and info must not be NULL");
  memset(info, 0, sizeof *info);
  _Static_assert(sizeof info->spec >= CUREDUCE_SPEC_TEXT_MAX, "room for any spec text");
  bool shaped = cureduce_problem_is_shaped(&plan->problem);
  cureduce_shaped_choice now = shaped ? current_shaped(plan) : (cureduce_shaped_choice){plan->choice, plan->shaped};
  cureduce_spec_format(&now.choice.spec, info->spec);
  info->origin = now.choice.origin;
  info->grid = shaped ? now.launch.grid_x : plan->grid;
  info->block = now.choice.spec.block;
  info->workspace_bytes = plan->workspace_bytes;
  info->workspace_alignment = CUREDUCE_WORKSPACE_ALIGNMENT;
  info->grid_y = shaped ? now.launch.grid_y : 1;
  return CUREDUCE_STATUS_OK;
}

/* The area of a shaped launch's workspace whose bytes are already zero: a slot's (workspace.h),
 * or 0 in the caller's workspace, where the launch zeroes what it arms there first. */
static CUdeviceptr armed_area_of(CUdeviceptr given, CUdeviceptr claimed) {
  return given ? 0 : cureduce_slot_armed_area(claimed);
}

/* The workspace of a shaped launch, if it needs one: its tickets armed as claim_workspace says,
 * unless the launch arms them (arm_tickets); and its armed area (armed_area_of). */
static cureduce_status shaped_workspace(const cureduce_plan *plan, const cureduce_shape_launch *launch,
                                        CUdeviceptr given, size_t given_bytes, CUstream stream,
                                        CUdeviceptr *workspace, CUdeviceptr *armed_area) {
  *workspace = 0, *armed_area = 0;
  if (!launch->workspace_bytes)
    return CUREDUCE_STATUS_OK;
  CUREDUCE_FORWARD_IF_ERROR(claim_workspace(plan->context, given, given_bytes, stream, launch->workspace_bytes,
                                            launch->ticket_offset, launch->arm_tickets ? 0 : launch->ticket_bytes,
                                            workspace));
  *armed_area = armed_area_of(given, *workspace);
  return CUREDUCE_STATUS_OK;
}

/* CUREDUCE_TUNING_ON_FIRST_USE: the first execution of an untuned shaped plan outside a graph
 * capture tunes its key on the call's own memory (or takes what another plan tuned meanwhile) and
 * publishes the choice; a capture leaves the tuning to a later execution. The workspace is the
 * call's (the caller's or the stream's slot), within the plan's own size. */
static cureduce_status tune_shaped_on_first_use(const cureduce_plan *plan, cureduce_shape_memory *memory,
                                                CUstream stream) {
  cureduce_plan *mutable_plan = (cureduce_plan *)plan; /* its tuning state only (plan.h) */
  cureduce_context *context = plan->context;
  if (!atomic_load(&mutable_plan->tune_pending))
    return CUREDUCE_STATUS_OK;
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  CUREDUCE_CU(context->driver->cuStreamIsCapturing(stream, &capture));
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE || !atomic_exchange(&mutable_plan->tune_pending, false))
    return CUREDUCE_STATUS_OK;
  cureduce_tune_record key = cureduce_tunedb_key(&plan->problem), record;
  cureduce_status status = CUREDUCE_STATUS_OK;
  if (!cureduce_plan_tuned_record(context, &key, &record)) {
    if (plan->workspace_bytes) {
      CUdeviceptr given = memory->workspace;
      CUREDUCE_FORWARD_IF_ERROR(claim_workspace(context, given, memory->workspace_bytes, stream,
                                                plan->workspace_bytes, 0, 0, &memory->workspace));
      memory->armed_area = armed_area_of(given, memory->workspace);
    }
    memory->workspace_bytes = plan->workspace_bytes; /* what the candidates may use */
    status = cureduce_tune_shape_in_place(context, &plan->problem, memory, stream, &record);
  }
  cureduce_shaped_choice *tuned = malloc(sizeof *tuned);
  if (status == CUREDUCE_STATUS_OK && !tuned)
    status = cureduce_fail(CUREDUCE_STATUS_OUT_OF_MEMORY, __FILE__, __LINE__, NULL, "no memory for a plan");
  /* A record another shape of the class was tuned with may split more than this plan's workspace
   * holds: fitted to it. */
  if (status == CUREDUCE_STATUS_OK)
    status = load_shaped(context, &plan->problem, record.spec, CUREDUCE_PLAN_TUNED, plan->workspace_bytes, tuned);
  if (status != CUREDUCE_STATUS_OK) {
    free(tuned);
    atomic_store(&mutable_plan->tune_pending, true); /* a later execution tries again */
    return status;
  }
  atomic_store(&mutable_plan->tuned, tuned);
  return CUREDUCE_STATUS_OK;
}

/* What one execution reads: the input (x), y for a map of two inputs, a segments plan's offsets. */
typedef struct execution_inputs {
  const void *input, *second;
  const int64_t *begin, *end;
} execution_inputs;

/* Device checks of a shaped call's memory (settings.check_pointers): the inputs where the call
 * reads any, the output, and the offsets. */
static cureduce_status check_shaped_memory(const cureduce_plan *plan, const execution_inputs *in, const void *output) {
  const cureduce_problem *problem = &plan->problem;
  bool reads = problem->layout == CUREDUCE_LAYOUT_SEGMENTS || cureduce_problem_extent(problem) > 0;
  cureduce_launch memory = {.input = (CUdeviceptr)(uintptr_t)in->input, .n = reads,
                            .output = (CUdeviceptr)(uintptr_t)output, .second = (CUdeviceptr)(uintptr_t)in->second};
  CUREDUCE_FORWARD_IF_ERROR(cureduce_plan_check_pointers(plan->context, &memory));
  if (!plan->context->check_pointers || problem->layout != CUREDUCE_LAYOUT_SEGMENTS)
    return CUREDUCE_STATUS_OK;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_check_device_pointer(plan->context, in->begin, "begin_offsets"));
  return cureduce_check_device_pointer(plan->context, in->end, "end_offsets");
}

static cureduce_status run_shaped(const cureduce_plan *plan, const execution_inputs *in, void *output,
                                  void *workspace, size_t workspace_bytes, CUstream stream) {
  const cureduce_problem *problem = &plan->problem;
  if (cureduce_problem_results(problem) == 0)
    return CUREDUCE_STATUS_OK;
  cureduce_context *context = plan->context;
  CUREDUCE_FORWARD_IF_ERROR(check_shaped_memory(plan, in, output));
  cureduce_shape_memory memory = {(CUdeviceptr)(uintptr_t)in->input, (CUdeviceptr)(uintptr_t)output,
                                  (CUdeviceptr)(uintptr_t)in->begin, (CUdeviceptr)(uintptr_t)in->end,
                                  (CUdeviceptr)(uintptr_t)in->second, (CUdeviceptr)(uintptr_t)workspace,
                                  workspace_bytes, 0};
  CUREDUCE_FORWARD_IF_ERROR(explain_launch_failure(context, stream, tune_shaped_on_first_use(plan, &memory, stream)));
  cureduce_shaped_choice now = current_shaped(plan);
  CUdeviceptr claimed, armed_area;
  CUREDUCE_FORWARD_IF_ERROR(explain_launch_failure(context, stream,
                                                   shaped_workspace(plan, &now.launch, (CUdeviceptr)(uintptr_t)workspace,
                                                                    workspace_bytes, stream, &claimed, &armed_area)));
  cureduce_shape_argument shape = cureduce_shape_argument_of(&now.choice.spec, problem, memory.begin, memory.end);
  return explain_launch_failure(context, stream,
                                cureduce_launch_shaped(context->driver, &now.choice.spec, now.choice.kernel,
                                                       &now.launch, memory.input, memory.second, &shape,
                                                       memory.output, claimed, armed_area, stream));
}

/* Runs a plan with the context current. */
static cureduce_status execute_entered(const cureduce_plan *plan, const execution_inputs *in, void *output,
                                       void *workspace, size_t workspace_bytes, void *stream) {
  const cureduce_problem *problem = &plan->problem;
  if (cureduce_problem_is_shaped(problem))
    return run_shaped(plan, in, output, workspace, workspace_bytes, (CUstream)stream);
  cureduce_launch launch = {(CUdeviceptr)(uintptr_t)in->input, (size_t)problem->n, (CUdeviceptr)(uintptr_t)output,
                            false, (CUdeviceptr)(uintptr_t)workspace, workspace_bytes, (CUstream)stream,
                            (CUdeviceptr)(uintptr_t)in->second};
  return cureduce_plan_run(plan->context, &plan->choice, &launch);
}

static cureduce_status execute(const cureduce_plan *plan, const execution_inputs *in, void *output, void *workspace,
                               size_t workspace_bytes, void *stream) {
  bool pushed;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_context_enter(plan->context, &pushed));
  cureduce_status status = execute_entered(plan, in, output, workspace, workspace_bytes, stream);
  cureduce_context_leave(plan->context, pushed);
  return status;
}

/* The entry point each plan runs through: by its layout (segments take offsets) and its transform
 * (a map of two inputs takes y). */
typedef enum entry_point { ONE_INPUT, PAIR, SEGMENTS, PAIR_SEGMENTS } entry_point;
static const char *const entry_point_names[] = {"cureduce_plan_execute()", "cureduce_plan_execute_pair()",
                                                "cureduce_plan_execute_segments()",
                                                "cureduce_plan_execute_pair_segments()"};

static entry_point entry_point_of(const cureduce_problem *problem) {
  return (entry_point)((problem->layout == CUREDUCE_LAYOUT_SEGMENTS ? SEGMENTS : ONE_INPUT) +
                       (cureduce_transform_is_pair(problem->transform) ? PAIR : ONE_INPUT));
}

/* The checks of every execution, then the run: the plan, the entry point (`called`) its layout and
 * transform need, and the pointers of x, y, the offsets and the output, none of them touched when
 * one is refused. */
static cureduce_status checked_execute(const cureduce_plan *plan, entry_point called, const execution_inputs *in,
                                       void *output, void *workspace, size_t workspace_bytes, void *stream) {
  cureduce_error_clear();
  CUREDUCE_RETURN_ERROR_IF(!plan, NULL_POINTER, "plan must not be NULL");
  const cureduce_problem *problem = &plan->problem;
  entry_point wanted = entry_point_of(problem);
  CUREDUCE_RETURN_ERROR_IF(called != wanted, INVALID_ARGUMENT, "%s of %s runs through %s, not %s",
                           problem->layout == CUREDUCE_LAYOUT_SEGMENTS ? "a segments plan" : "a plan",
                           cureduce_transform_is_pair(problem->transform) ? cureduce_transform_name(problem->transform)
                                                                          : "one input",
                           entry_point_names[wanted], entry_point_names[called]);
  if (problem->layout == CUREDUCE_LAYOUT_SEGMENTS)
    CUREDUCE_FORWARD_IF_ERROR(cureduce_check_offsets(in->begin, in->end, problem->rows));
  if (cureduce_problem_is_shaped(problem))
    CUREDUCE_FORWARD_IF_ERROR(cureduce_check_shaped_pointers(problem, in->input, output));
  else
    CUREDUCE_FORWARD_IF_ERROR(cureduce_check_call_pointers(problem->op, problem->input_type, in->input,
                                                           (size_t)problem->n, problem->output_type, output));
  if (cureduce_transform_is_pair(problem->transform))
    CUREDUCE_FORWARD_IF_ERROR(cureduce_check_second_pointer(problem, in->second));
  return execute(plan, in, output, workspace, workspace_bytes, stream);
}

cureduce_status cureduce_plan_execute(const cureduce_plan *plan, const void *input, void *output, void *workspace,
                                      size_t workspace_bytes, void *stream) {
  execution_inputs in = {.input = input};
  return checked_execute(plan, ONE_INPUT, &in, output, workspace, workspace_bytes, stream);
}

cureduce_status cureduce_plan_execute_pair(const cureduce_plan *plan, const void *x, const void *y, void *output,
                                           void *workspace, size_t workspace_bytes, void *stream) {
  execution_inputs in = {.input = x, .second = y};
  return checked_execute(plan, PAIR, &in, output, workspace, workspace_bytes, stream);
}

cureduce_status cureduce_plan_execute_segments(const cureduce_plan *plan, const void *input, const int64_t *begin,
                                               const int64_t *end, void *output, void *workspace,
                                               size_t workspace_bytes, void *stream) {
  execution_inputs in = {.input = input, .begin = begin, .end = end};
  return checked_execute(plan, SEGMENTS, &in, output, workspace, workspace_bytes, stream);
}

cureduce_status cureduce_plan_execute_pair_segments(const cureduce_plan *plan, const void *x, const void *y,
                                                    const int64_t *begin, const int64_t *end, void *output,
                                                    void *workspace, size_t workspace_bytes, void *stream) {
  execution_inputs in = {.input = x, .second = y, .begin = begin, .end = end};
  return checked_execute(plan, PAIR_SEGMENTS, &in, output, workspace, workspace_bytes, stream);
}

cureduce_status cureduce_precompile(cureduce_context *context, const cureduce_problem *problems, size_t count) {
  cureduce_error_clear();
  CUREDUCE_RETURN_ERROR_IF(count > 0 && !problems, NULL_POINTER, "problems must not be NULL");
  for (size_t i = 0; i < count; i++)
    CUREDUCE_FORWARD_IF_ERROR(cureduce_problem_check(&problems[i]));
  CUREDUCE_RETURN_ERROR_IF(!context, NULL_POINTER, "context must not be NULL");
  bool pushed;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_context_enter(context, &pushed));
  cureduce_status status = CUREDUCE_STATUS_OK;
  for (size_t i = 0; i < count && status == CUREDUCE_STATUS_OK; i++) {
    if (cureduce_problem_is_shaped(&problems[i])) {
      cureduce_plan shaped = {.context = context, .problem = cureduce_problem_canonical(&problems[i])};
      status = fill_shaped_plan(&shaped, NULL);
      continue;
    }
    cureduce_choice choice;
    status = contiguous_choice(context, &problems[i], &choice);
  }
  cureduce_context_leave(context, pushed);
  return status;
}
