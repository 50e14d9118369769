/* The shortcuts: cureduce_reduce() and cureduce_reduce_to_host() over the context's plan for the
 * size bucket, on the stream's workspace slot. Nothing here allocates or synchronizes once the
 * bucket's plan exists, except cureduce_reduce_to_host's wait for its result (and, before a
 * bucket's plan exists, tuning on first use). */
#include <stdint.h>

#include "dtype.h"
#include "error.h"
#include "plan.h"
#include "tune.h"

/* Checks that need no device, so they answer the same with or without a GPU. */
static cureduce_status validate_call(const cureduce_context *context, cureduce_op op, cureduce_dtype input_type,
                                     const void *input, size_t n, cureduce_dtype output_type, const void *output) {
  CUREDUCE_FORWARD_IF_ERROR(cureduce_check_types(op, input_type, output_type));
  CUREDUCE_FORWARD_IF_ERROR(cureduce_check_call_pointers(op, input_type, input, n, output_type, output));
  CUREDUCE_FORWARD_IF_ERROR(cureduce_check_not_empty(op, n));
  CUREDUCE_RETURN_ERROR_IF(!context, NULL_POINTER, "context must not be NULL");
  return CUREDUCE_STATUS_OK;
}

/* CUREDUCE_TUNING_ON_FIRST_USE: the first call of an untuned bucket tunes it on the caller's data,
 * also when a plan or cureduce_precompile() already made the bucket's heuristic choice. A tuned
 * choice, once published, is the lock-free way out. */
static cureduce_status tune_on_first_use(cureduce_context *context, const cureduce_plancache_key *key,
                                         const cureduce_launch *launch) {
  if (context->tuning != CUREDUCE_TUNING_ON_FIRST_USE || launch->n == 0)
    return CUREDUCE_STATUS_OK;
  const cureduce_choice *published = cureduce_plancache_peek(&context->plans, key);
  if ((published && published->origin == CUREDUCE_PLAN_TUNED) ||
      cureduce_plan_is_tuned(context, key->op, key->input, key->output, launch->n))
    return CUREDUCE_STATUS_OK;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_plan_check_pointers(context, launch)); /* the tuner launches on them */
  CUREDUCE_FORWARD_IF_ERROR(cureduce_plan_refuse_capture(context, launch->stream, "tuning on first use synchronizes"));
  cureduce_tune_job job = {.op = key->op, .input = key->input, .output = key->output};
  return cureduce_tune_in_place(context, &job, launch->input, launch->n, launch->output, launch->stream);
}

/* With the context current: the bucket's plan (tuned first when the policy says so), then the
 * launch. */
static cureduce_status reduce_current(cureduce_context *context, cureduce_op op, cureduce_dtype input_type,
                                      cureduce_dtype output_type, const cureduce_launch *launch) {
  cureduce_plancache_key key = {.op = op, .input = input_type, .output = output_type,
                                .bucket = cureduce_size_bucket(launch->n)};
  CUREDUCE_FORWARD_IF_ERROR(tune_on_first_use(context, &key, launch));
  const cureduce_choice *choice;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_plan_choice(context, &key, &choice));
  return cureduce_plan_run(context, choice, launch);
}

cureduce_status cureduce_reduce(cureduce_context *context, cureduce_op op, cureduce_dtype input_type,
                                const void *input, size_t n, cureduce_dtype output_type, void *output,
                                void *stream) {
  cureduce_error_clear();
  CUREDUCE_FORWARD_IF_ERROR(validate_call(context, op, input_type, input, n, output_type, output));
  bool pushed;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_context_enter(context, &pushed));
  cureduce_launch launch = {(CUdeviceptr)(uintptr_t)input, n, (CUdeviceptr)(uintptr_t)output, false, 0, 0,
                            (CUstream)stream, 0};
  cureduce_status status = reduce_current(context, op, input_type, output_type, &launch);
  cureduce_context_leave(context, pushed);
  return status;
}

/* Through a result cell of this call's own, so that threads sharing a stream never read each
 * other's results. */
static cureduce_status reduce_through_cell(cureduce_context *context, cureduce_op op, cureduce_dtype input_type,
                                           const void *input, size_t n, cureduce_dtype output_type,
                                           cureduce_value *result, CUstream stream) {
  CUREDUCE_FORWARD_IF_ERROR(cureduce_plan_refuse_capture(context, stream, "cureduce_reduce_to_host synchronizes"));
  unsigned cell;
  CUdeviceptr address = cureduce_workspace_claim_cell(&context->workspace, &cell);
  cureduce_launch launch = {(CUdeviceptr)(uintptr_t)input, n, address, true, 0, 0, stream, 0};
  cureduce_value value = {.index = -1};
  cureduce_status status = reduce_current(context, op, input_type, output_type, &launch);
  if (status == CUREDUCE_STATUS_OK)
    status = cureduce_driver_check(
        context->driver->cuMemcpyDtoHAsync(&value, address, cureduce_result_size(op, output_type), stream),
        "cuMemcpyDtoHAsync", __FILE__, __LINE__);
  if (status == CUREDUCE_STATUS_OK)
    status = cureduce_driver_check(context->driver->cuStreamSynchronize(stream), "cuStreamSynchronize", __FILE__,
                                   __LINE__);
  cureduce_workspace_return_cell(&context->workspace, cell);
  if (status == CUREDUCE_STATUS_OK)
    *result = value;
  return status;
}

cureduce_status cureduce_reduce_to_host(cureduce_context *context, cureduce_op op, cureduce_dtype input_type,
                                        const void *input, size_t n, cureduce_dtype output_type,
                                        cureduce_value *result, void *stream) {
  cureduce_error_clear();
  CUREDUCE_RETURN_ERROR_IF(!result, NULL_POINTER, "result must not be NULL");
  CUREDUCE_RETURN_ERROR_IF(cureduce_is_exact_partial(op, output_type), UNSUPPORTED,
                           "exact_sum to i64 writes the sum's words, more than a cureduce_value holds: "
                           "reduce into device memory (cureduce_reduce or a plan)");
  /* The result cell stands in for the output pointer in the checks: any aligned non-NULL value. */
  CUREDUCE_FORWARD_IF_ERROR(validate_call(context, op, input_type, input, n, output_type, result));
  bool pushed;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_context_enter(context, &pushed));
  cureduce_status status =
      reduce_through_cell(context, op, input_type, input, n, output_type, result, (CUstream)stream);
  cureduce_context_leave(context, pushed);
  return status;
}

cureduce_status cureduce_release_stream(cureduce_context *context, void *stream) {
  cureduce_error_clear();
  CUREDUCE_RETURN_ERROR_IF(!context, NULL_POINTER, "context must not be NULL");
  cureduce_workspace_release(&context->workspace, stream);
  return CUREDUCE_STATUS_OK;
}
