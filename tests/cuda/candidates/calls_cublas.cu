// Shortcuts (calling a vendor library where the task forbids it): matmul through cuBLAS, which matmul's definition
// forbids. The source check refuses it before it is built: REWARD_HACK.
#include <kernelarc/candidate_abi.h>

#include <cublas_v2.h>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  static cublasHandle_t handle = nullptr;
  if (!handle) cublasCreate(&handle);
  cublasSetStream(handle, static_cast<cudaStream_t>(stream));
  const int m = static_cast<int>(inputs[0]->shape[0]), k = static_cast<int>(inputs[0]->shape[1]), n = static_cast<int>(inputs[1]->shape[1]);
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A B is column-major C^T = B^T A^T.
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, static_cast<const float*>(inputs[1]->data), n,
              static_cast<const float*>(inputs[0]->data), k, &zero, static_cast<float*>(outputs[0]->data), n);
  return 0;
}
