// Native C++ reference for qk-norm: each head vector of q and of k normalised on its own, the mean of squares in double,
// x * rsqrt(mean + eps) * weight in double, rounded to bfloat16 once as the PyTorch reference rounds.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>

static void rms_norm_heads(const uint16_t* x, const uint16_t* weight, float eps, uint16_t* out, int64_t vectors, int64_t head_dim) {
  for (int64_t h = 0; h < vectors; ++h) {
    const uint16_t* in = x + h * head_dim;
    double squares = 0;
    for (int64_t d = 0; d < head_dim; ++d) {
      const double v = kernelarc_bf16_to_float(in[d]);
      squares += v * v;
    }
    const double rstd = 1.0 / std::sqrt(squares / static_cast<double>(head_dim) + static_cast<double>(eps));
    for (int64_t d = 0; d < head_dim; ++d)
      out[h * head_dim + d] = kernelarc_float_to_bf16(
          static_cast<float>(kernelarc_bf16_to_float(in[d]) * rstd * kernelarc_bf16_to_float(weight[d])));
  }
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const float eps = *static_cast<const float*>(inputs[4]->data);
  const int64_t tokens = inputs[0]->shape[0], head_dim = inputs[0]->shape[2];
  rms_norm_heads(static_cast<const uint16_t*>(inputs[0]->data), static_cast<const uint16_t*>(inputs[2]->data), eps,
                 static_cast<uint16_t*>(outputs[0]->data), tokens * inputs[0]->shape[1], head_dim);
  rms_norm_heads(static_cast<const uint16_t*>(inputs[1]->data), static_cast<const uint16_t*>(inputs[3]->data), eps,
                 static_cast<uint16_t*>(outputs[1]->data), tokens * inputs[1]->shape[1], head_dim);
  return 0;
}
