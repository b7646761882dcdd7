// libkernelarc_sandbox.so: the worker's sandbox (sandbox.h) for a process that is not a `kernelarc worker`. The oracle
// in its candidate role (python/kernelarc_oracle.py) loads it with ctypes and raises the same walls, from the same
// code, before it loads a solution: one allow-list to keep, not a second one in Python.
#include <cstdlib>
#include <cstring>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>

#include "judge/sandbox.h"

extern "C" {

// The policy as sandbox_policy_json writes it; returns the report ({"active": [...], "unavailable": [...]}) as JSON text,
// to be given back to kernelarc_free_report. Call it on the process's only thread.
__attribute__((visibility("default"))) char* kernelarc_enter_sandbox(const char* policy_json) {
  std::string text;
  try {
    text = kernelarc::judge::enter_sandbox(kernelarc::judge::sandbox_policy_from(nlohmann::json::parse(policy_json))).dump();
  } catch (const std::exception& error) {
    text = nlohmann::json{{"active", nlohmann::json::array()}, {"unavailable", {std::string("sandbox: ") + error.what()}}}.dump();
  }
  char* copy = static_cast<char*>(std::malloc(text.size() + 1));
  if (copy) std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

// After a build inside the walls: child processes are killed again (sandbox.h). 0 or an errno.
__attribute__((visibility("default"))) int kernelarc_forbid_child_processes() { return kernelarc::judge::forbid_child_processes(); }

__attribute__((visibility("default"))) void kernelarc_free_report(char* report) { std::free(report); }
}
