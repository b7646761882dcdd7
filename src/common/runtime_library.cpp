#include "common/runtime_library.h"

namespace kernelarc::common {

RuntimeLibrary::RuntimeLibrary(std::string what, std::initializer_list<const char*> names) : what_(std::move(what)) {
  std::string first_error;
  for (const char* name : names) {
    if ((handle_ = dlopen(name, RTLD_NOW | RTLD_LOCAL))) return;
    if (first_error.empty()) first_error = dlerror();
  }
  why_ = what_ + " is not installed (" + (names.size() ? *names.begin() : "") + " not found: " + first_error + ")";
}

}  // namespace kernelarc::common
