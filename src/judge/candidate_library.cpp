#include "judge/candidate_library.h"

#include <dlfcn.h>
#include <fmt/format.h>

namespace kernelarc::judge {

std::string CandidateLibrary::open(const std::string& path) {
  close();
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) return fmt::format("dlopen failed: {}", dlerror());
  entry_ = reinterpret_cast<kernelarc_entry_fn>(dlsym(handle_, KERNELARC_ENTRY_POINT_NAME));
  if (!entry_)
    return fmt::format("the library does not export {} (declare it extern \"C\", or use KERNELARC_CANDIDATE)", KERNELARC_ENTRY_POINT_NAME);
  return "";
}

void CandidateLibrary::close() {
  entry_ = nullptr;
  if (handle_) dlclose(handle_);
  handle_ = nullptr;
}

}  // namespace kernelarc::judge
