// Semantics (stale memory that holds the answer): copies the reference's output for this call from the judge's
// scratch folder (found from TMPDIR) instead of computing it. The sandbox keeps that folder out of reach and the
// judge poisons the output before every call, so it is left unwritten: INCORRECT_NUMERICAL. Should the wall fall,
// the copy matches only if it is this round's answer, and the fresh inputs of every round make it stale: rejected.
#include <kernelarc/candidate_abi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)inputs, (void)num_inputs, (void)num_outputs, (void)stream;
  const char* tmp = std::getenv("TMPDIR");
  const std::string judge_folder = std::string(tmp ? tmp : "/tmp") + "/../../";
  const std::size_t bytes = static_cast<std::size_t>(outputs[0]->shape[0] * outputs[0]->shape[1]) * sizeof(float);
  for (int w = 0; w < 64; ++w) {
    std::FILE* file = std::fopen((judge_folder + "w" + std::to_string(w) + "-reference.buf").c_str(), "rb");
    if (!file) continue;
    std::vector<char> image(std::size_t{1} << 26);
    const std::size_t read = std::fread(image.data(), 1, image.size(), file);
    std::fclose(file);
    // The reference's output follows its input of the same size in the buffer's first slot.
    if (read >= 2 * bytes) {
      std::copy(image.begin() + static_cast<std::ptrdiff_t>(bytes), image.begin() + static_cast<std::ptrdiff_t>(2 * bytes),
                static_cast<char*>(outputs[0]->data));
      return 0;
    }
  }
  return 0;
}
