// Fake PyTorch (see torch/extension.h).
#pragma once

#include <torch/extension.h>

namespace c10::cuda {

struct CUDAGuard {
  explicit CUDAGuard(c10::Device) {}
};

}  // namespace c10::cuda
