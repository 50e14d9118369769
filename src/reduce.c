/* The public entry points: validate, plan, launch. Nothing here allocates or synchronizes once
 * a plan exists, except cureduce_reduce_to_host's wait for its result (and, before a bucket's
 * plan exists, tuning on first use). */
#include <stdint.h>

#include "context.h"
#include "dtype.h"
#include "error.h"
#include "execute.h"
#include "reduce.h"
#include "tune.h"

/* Checks that need no device, so they answer the same with or without a GPU. */
static cureduce_status validate_call(const cureduce_context *context, cureduce_op op, cureduce_dtype input_type,
                                     const void *input, size_t n, cureduce_dtype output_type, const void *output) {
  CUREDUCE_FORWARD_IF_ERROR(cureduce_check_types(op, input_type, output_type));
  size_t element = cureduce_dtype_size(input_type);
  CUREDUCE_RETURN_ERROR_IF(n > 0 && !input, NULL_POINTER, "input is NULL with n = %zu", n);
  CUREDUCE_RETURN_ERROR_IF(!output, NULL_POINTER, "output must not be NULL");
  CUREDUCE_RETURN_ERROR_IF((uintptr_t)input % element != 0, MISALIGNED_POINTER,
                           "input %p is not aligned to its %zu-byte elements", input, element);
  size_t alignment = cureduce_result_alignment(op, output_type);
  CUREDUCE_RETURN_ERROR_IF((uintptr_t)output % alignment != 0, MISALIGNED_POINTER,
                           "output %p is not aligned to %zu bytes", output, alignment);
  CUREDUCE_RETURN_ERROR_IF(n > (UINTPTR_MAX - (uintptr_t)input) / element, INVALID_ARGUMENT,
                           "%zu elements of %zu bytes from %p run past the end of the address space", n, element,
                           input);
  CUREDUCE_RETURN_ERROR_IF(n == 0 && op != CUREDUCE_OP_SUM && op != CUREDUCE_OP_PROD, EMPTY_INPUT,
                           "%s of zero elements", cureduce_op_name(op));
  CUREDUCE_RETURN_ERROR_IF(!context, NULL_POINTER, "context must not be NULL");
  return CUREDUCE_STATUS_OK;
}

/* A host pointer would fault the kernel and poison the whole CUDA context, so ask the driver
 * first: device, managed and registered host memory are fine, anything else is refused. */
static cureduce_status check_pointer(const cureduce_context *context, const void *pointer, const char *what) {
  unsigned memory_type = 0;
  CUresult result = context->driver->cuPointerGetAttribute(&memory_type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                                           (CUdeviceptr)(uintptr_t)pointer);
  CUREDUCE_RETURN_ERROR_IF(result != CUDA_SUCCESS, NOT_DEVICE_POINTER,
                           "%s %p is not memory the driver knows (host memory from malloc?)", what, pointer);
  return CUREDUCE_STATUS_OK;
}

/* Both pointers, unless the output is the caller's own workspace slot. */
static cureduce_status check_pointers(const cureduce_context *context, const void *input, size_t n, const void *output,
                                      CUdeviceptr slot) {
  if (!context->check_pointers)
    return CUREDUCE_STATUS_OK;
  if (n > 0)
    CUREDUCE_FORWARD_IF_ERROR(check_pointer(context, input, "input"));
  if (!slot)
    CUREDUCE_FORWARD_IF_ERROR(check_pointer(context, output, "output"));
  return CUREDUCE_STATUS_OK;
}

/* A refused launch on a stream that belongs to another CUDA context gets a plain answer: the
 * library's kernels live in the device's primary context. Checked only after a failure, so a
 * good call pays nothing for it. */
static cureduce_status explain_launch_failure(const cureduce_context *context, void *stream, cureduce_status status) {
  CUcontext owner;
  if (status != CUREDUCE_STATUS_OK && stream &&
      context->driver->cuStreamGetCtx((CUstream)stream, &owner) == CUDA_SUCCESS && owner != context->primary)
    return cureduce_fail(CUREDUCE_STATUS_INVALID_ARGUMENT, __FILE__, __LINE__, NULL,
                         "stream %p belongs to another CUDA context; cureduce runs in the device's primary context "
                         "(the CUDA runtime's), so pass a stream created there",
                         stream);
  return status;
}

/* Launches spec's kernel with the context current, after the pointer checks; claims the
 * stream's workspace slot when a multi-block single pass needs one and the caller holds none. */
static cureduce_status launch(cureduce_context *context, const cureduce_spec *spec, const cureduce_kernel *kernel,
                              const void *input, size_t n, void *output, void *stream, CUdeviceptr slot,
                              void *scratch) {
  CUREDUCE_FORWARD_IF_ERROR(check_pointers(context, input, n, output, slot));
  if (!slot && cureduce_strategy_passes(spec->strategy) == CUREDUCE_PASSES_SINGLE &&
      cureduce_grid_for(spec, context->info.sm_count, n, true) > 1)
    CUREDUCE_FORWARD_IF_ERROR(cureduce_workspace_slot(&context->workspace, stream, &slot));
  cureduce_run run = {(CUdeviceptr)(uintptr_t)input, n,    (CUdeviceptr)(uintptr_t)output,
                      (CUstream)stream,             slot, (CUdeviceptr)(uintptr_t)scratch};
  return explain_launch_failure(context, stream, cureduce_execute(context->driver, spec, kernel,
                                                                   context->info.sm_count, &run));
}

/* Plans and launches with the context current; `slot` is the workspace slot when the caller
 * already holds one (0 otherwise). */
static cureduce_status plan_and_launch(cureduce_context *context, cureduce_op op, cureduce_dtype input_type,
                                       const void *input, size_t n, cureduce_dtype output_type, void *output,
                                       void *stream, CUdeviceptr slot) {
  if (context->tuning == CUREDUCE_TUNING_ON_FIRST_USE && n > 0 &&
      !cureduce_plan_peek(context, op, input_type, output_type, n) &&
      !cureduce_plan_is_tuned(context, op, input_type, output_type, n)) {
    CUREDUCE_FORWARD_IF_ERROR(check_pointers(context, input, n, output, slot));
    cureduce_tune_job job = {op, input_type, output_type};
    CUREDUCE_FORWARD_IF_ERROR(cureduce_tune_in_place(context, &job, (CUdeviceptr)(uintptr_t)input, n,
                                                     (CUdeviceptr)(uintptr_t)output, (CUstream)stream));
  }
  const cureduce_plan *plan;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_plan_get(context, op, input_type, output_type, n, &plan));
  return launch(context, &plan->spec, &plan->kernel, input, n, output, stream, slot, NULL);
}

cureduce_status cureduce_reduce(cureduce_context *context, cureduce_op op, cureduce_dtype input_type,
                                const void *input, size_t n, cureduce_dtype output_type, void *output,
                                void *stream) {
  cureduce_error_clear();
  CUREDUCE_FORWARD_IF_ERROR(validate_call(context, op, input_type, input, n, output_type, output));
  bool pushed;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_context_enter(context, &pushed));
  cureduce_status status = plan_and_launch(context, op, input_type, input, n, output_type, output, stream, 0);
  cureduce_context_leave(context, pushed);
  return status;
}

static cureduce_status reduce_through_slot(cureduce_context *context, cureduce_op op, cureduce_dtype input_type,
                                           const void *input, size_t n, cureduce_dtype output_type,
                                           cureduce_value *result, void *stream) {
  CUdeviceptr slot;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_workspace_slot(&context->workspace, stream, &slot));
  CUdeviceptr cell = slot + CUREDUCE_SLOT_RESULT;
  CUREDUCE_FORWARD_IF_ERROR(plan_and_launch(context, op, input_type, input, n, output_type,
                                            (void *)(uintptr_t)cell, stream, slot));
  cureduce_value value = {.index = -1};
  CUREDUCE_CU(context->driver->cuMemcpyDtoHAsync(&value, cell, cureduce_result_size(op, output_type),
                                                 (CUstream)stream));
  CUREDUCE_CU(context->driver->cuStreamSynchronize((CUstream)stream));
  *result = value;
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_reduce_to_host(cureduce_context *context, cureduce_op op, cureduce_dtype input_type,
                                        const void *input, size_t n, cureduce_dtype output_type,
                                        cureduce_value *result, void *stream) {
  cureduce_error_clear();
  /* The result cell stands in for the output pointer in the checks: any aligned non-NULL value. */
  CUREDUCE_RETURN_ERROR_IF(!result, NULL_POINTER, "result must not be NULL");
  CUREDUCE_FORWARD_IF_ERROR(validate_call(context, op, input_type, input, n, output_type, result));
  bool pushed;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_context_enter(context, &pushed));
  cureduce_status status = reduce_through_slot(context, op, input_type, input, n, output_type, result, stream);
  cureduce_context_leave(context, pushed);
  return status;
}

cureduce_status cureduce_release_stream(cureduce_context *context, void *stream) {
  cureduce_error_clear();
  CUREDUCE_RETURN_ERROR_IF(!context, NULL_POINTER, "context must not be NULL");
  cureduce_workspace_release(&context->workspace, stream);
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_reduce_spec(cureduce_context *context, const cureduce_spec *spec, const void *input, size_t n,
                                     void *output, void *stream, void *scratch) {
  cureduce_error_clear();
  CUREDUCE_RETURN_ERROR_IF(!spec, NULL_POINTER, "spec must not be NULL");
  CUREDUCE_FORWARD_IF_ERROR(cureduce_spec_validate(spec));
  CUREDUCE_FORWARD_IF_ERROR(validate_call(context, (cureduce_op)spec->op, (cureduce_dtype)spec->input, input, n,
                                          (cureduce_dtype)spec->output, output));
  bool pushed;
  CUREDUCE_FORWARD_IF_ERROR(cureduce_context_enter(context, &pushed));
  cureduce_kernel kernel;
  cureduce_status status = cureduce_kcache_get(&context->kernels, spec, &kernel);
  if (status == CUREDUCE_STATUS_OK)
    status = launch(context, spec, &kernel, input, n, output, stream, 0, scratch);
  cureduce_context_leave(context, pushed);
  return status;
}
