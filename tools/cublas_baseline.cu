// cuBLAS for cureduce-bench (cublas_baseline.h): one handle, device pointer mode so that a call
// only enqueues, the 64-bit-index API so that any n goes.
#include <cublas_v2.h>

#include "cublas_baseline.h"

static cublasHandle_t handle() {
  static cublasHandle_t made = nullptr;
  if (!made && cublasCreate(&made) == CUBLAS_STATUS_SUCCESS)
    cublasSetPointerMode(made, CUBLAS_POINTER_MODE_DEVICE);
  return made;
}

extern "C" const char *cureduce_cublas_name(cureduce_op op, cureduce_transform transform, cureduce_dtype type) {
  if (type != CUREDUCE_F32 && type != CUREDUCE_F64)
    return nullptr;
  if (op == CUREDUCE_OP_NORM2 && transform == CUREDUCE_TRANSFORM_NONE)
    return type == CUREDUCE_F32 ? "Snrm2" : "Dnrm2";
  if (op == CUREDUCE_OP_SUM && transform == CUREDUCE_TRANSFORM_PRODUCT)
    return type == CUREDUCE_F32 ? "Sdot" : "Ddot";
  if (transform != CUREDUCE_TRANSFORM_ABS)
    return nullptr;
  if (op == CUREDUCE_OP_SUM)
    return type == CUREDUCE_F32 ? "Sasum" : "Dasum";
  if (op == CUREDUCE_OP_ARGMAX)
    return type == CUREDUCE_F32 ? "Isamax" : "Idamax";
  return nullptr;
}

extern "C" int cureduce_cublas_run(cureduce_op op, cureduce_transform transform, cureduce_dtype type, const void *input,
                                   const void *second, size_t n, void *output, void *stream) {
  cublasHandle_t h = handle();
  if (!h || !cureduce_cublas_name(op, transform, type) || cublasSetStream(h, static_cast<cudaStream_t>(stream)))
    return -1;
  const int64_t count = static_cast<int64_t>(n);
  cublasStatus_t status;
  if (transform == CUREDUCE_TRANSFORM_PRODUCT)
    status = type == CUREDUCE_F32 ? cublasSdot_64(h, count, static_cast<const float *>(input), 1,
                                                  static_cast<const float *>(second), 1, static_cast<float *>(output))
                                  : cublasDdot_64(h, count, static_cast<const double *>(input), 1,
                                                  static_cast<const double *>(second), 1, static_cast<double *>(output));
  else if (op == CUREDUCE_OP_NORM2)
    status = type == CUREDUCE_F32 ? cublasSnrm2_64(h, count, static_cast<const float *>(input), 1,
                                                   static_cast<float *>(output))
                                  : cublasDnrm2_64(h, count, static_cast<const double *>(input), 1,
                                                   static_cast<double *>(output));
  else if (op == CUREDUCE_OP_SUM)
    status = type == CUREDUCE_F32 ? cublasSasum_64(h, count, static_cast<const float *>(input), 1,
                                                   static_cast<float *>(output))
                                  : cublasDasum_64(h, count, static_cast<const double *>(input), 1,
                                                   static_cast<double *>(output));
  else
    status = type == CUREDUCE_F32 ? cublasIsamax_64(h, count, static_cast<const float *>(input), 1,
                                                    static_cast<int64_t *>(output))
                                  : cublasIdamax_64(h, count, static_cast<const double *>(input), 1,
                                                    static_cast<int64_t *>(output));
  return status == CUBLAS_STATUS_SUCCESS ? 0 : -1;
}
