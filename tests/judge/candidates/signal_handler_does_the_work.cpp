// Harmful: arms a SIGALRM timer whose handler touches the inputs every 200 microseconds, on whichever thread it
// interrupts: the worker's main thread too, while the judge flushes the caches before a timed call, so the timed call
// finds its inputs cached. It computes correctly, and returns an error when it cannot arm its timer, as a candidate
// whose speed depends on it would. The CPU worker refuses signal handlers and signal timers (EPERM): RUNTIME_ERROR.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <csignal>
#include <cstdint>
#include <sys/time.h>

namespace {

void softmax_rows(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    float max = x[r * cols];
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, x[r * cols + c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - max);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - max) / sum;
  }
}

}  // namespace

namespace {

const float* volatile last_input = nullptr;
volatile std::int64_t last_elements = 0;
volatile float sink = 0;

void warm_the_inputs(int) {
  const float* x = last_input;
  float sum = 0;
  for (std::int64_t i = 0; x && i < last_elements; i += 16) sum += x[i];
  sink = sum;
}

}  // namespace

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  static bool armed = false;
  if (!armed) {
    struct sigaction action {};
    action.sa_handler = warm_the_inputs;
    action.sa_flags = SA_RESTART;
    if (sigaction(SIGALRM, &action, nullptr) != 0) return 1;
    const itimerval every{{0, 200}, {0, 200}};
    if (setitimer(ITIMER_REAL, &every, nullptr) != 0) return 2;
    armed = true;
  }
  last_input = static_cast<const float*>(inputs[0]->data);
  last_elements = inputs[0]->shape[0] * inputs[0]->shape[1];
  softmax_rows(static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), inputs[0]->shape[0], inputs[0]->shape[1]);
  return 0;
}
