// Fake PyTorch (see torch/extension.h): the current stream is a recognisable non-null pointer.
#pragma once

#include <torch/extension.h>

namespace at::cuda {

struct CUDAStream {
  void* stream() const { return reinterpret_cast<void*>(0x5713ea); }
};
inline CUDAStream getCurrentCUDAStream() { return {}; }

}  // namespace at::cuda
