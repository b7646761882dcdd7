// The CUDA backend of a build without the CUDA toolkit: none. CMakeLists.txt compiles this file instead of
// cuda_backend.cpp, so the registry (judge/backend.cpp) learns what this build has from the link, not an #ifdef.
#include "judge/backend.h"

namespace kernelarc::judge {

const Backend* cuda_backend() { return nullptr; }

}  // namespace kernelarc::judge
