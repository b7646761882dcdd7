// A shared library opened at run time by the first of several names, with its symbols resolved into typed
// slots: the binary starts where the library is missing and says why instead of failing to load.
#pragma once

#include <dlfcn.h>

#include <initializer_list>
#include <string>
#include <type_traits>

namespace kernelarc::common {

class RuntimeLibrary {
 public:
  // `what` names the library in messages ("CUPTI"); the names are tried in order. Never closed: the libraries
  // loaded this way keep threads and callbacks for the life of the process.
  RuntimeLibrary(std::string what, std::initializer_list<const char*> names);

  // Points `slot` at the symbol; a missing one makes ok() false and why() name it (the first one missing).
  template <typename Slot>
  void resolve(Slot& slot, const char* name) {
    slot = handle_ ? reinterpret_cast<std::remove_reference_t<Slot>>(dlsym(handle_, name)) : nullptr;
    if (!slot && handle_ && why_.empty()) why_ = "the " + what_ + " library lacks " + name;
  }

  bool ok() const { return handle_ && why_.empty(); }
  const std::string& why() const { return why_; }

 private:
  std::string what_;
  void* handle_ = nullptr;
  std::string why_;
};

}  // namespace kernelarc::common
