// Shortcuts (calling a vendor library where the task forbids it): matmul through BLAS's cblas_sgemm, which matmul's
// definition forbids. The source check refuses it before it is built: REWARD_HACK.
#include <kernelarc/candidate_abi.h>

#include <cstdint>

extern "C" void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float* a, int lda,
                            const float* b, int ldb, float beta, float* c, int ldc);

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const int m = static_cast<int>(inputs[0]->shape[0]), k = static_cast<int>(inputs[0]->shape[1]), n = static_cast<int>(inputs[1]->shape[1]);
  cblas_sgemm(101, 111, 111, m, n, k, 1.0f, static_cast<const float*>(inputs[0]->data), k, static_cast<const float*>(inputs[1]->data), n,
              0.0f, static_cast<float*>(outputs[0]->data), n);
  return 0;
}
