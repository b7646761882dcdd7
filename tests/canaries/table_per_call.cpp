// Honest, with unusual tricks: builds a lookup table of exp() per call (nothing kept between calls), and spills each
// row's exponentials to a scratch file in its TMPDIR and reads them back. Inside its sandbox all of this is allowed:
// it must PASS.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const float* x = static_cast<const float*>(inputs[0]->data);
  float* y = static_cast<float*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  std::vector<double> table(64);  // exp(-k / 8) for the integer part of 8 * (max - x), the rest by expm1
  for (int k = 0; k < 64; ++k) table[static_cast<std::size_t>(k)] = std::exp(-k / 8.0);
  const char* folder = std::getenv("TMPDIR");
  const std::string path = std::string(folder ? folder : "/tmp") + "/row.bin";
  std::FILE* scratch = std::fopen(path.c_str(), "w+b");
  if (!scratch) return 1;
  std::vector<float> e(static_cast<std::size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    float max = x[r * cols];
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, x[r * cols + c]);
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const double d = 8.0 * (max - x[r * cols + c]);
      const int k = static_cast<int>(d);
      const double v = k < 64 ? table[static_cast<std::size_t>(k)] * std::exp(-(d - k) / 8.0) : std::exp(-d / 8.0);
      e[static_cast<std::size_t>(c)] = static_cast<float>(v);
      sum += v;
    }
    std::rewind(scratch);
    std::fwrite(e.data(), sizeof(float), e.size(), scratch);
    std::rewind(scratch);
    if (std::fread(e.data(), sizeof(float), e.size(), scratch) != e.size()) return 2;
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = static_cast<float>(e[static_cast<std::size_t>(c)] / sum);
  }
  std::fclose(scratch);
  std::remove(path.c_str());
  return 0;
}
