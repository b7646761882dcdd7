// Where the reference oracle (python/kernelarc_oracle.py) is and what runs it. The oracle runs a task's PyTorch
// reference behind the worker protocol, so the judge drives it like any worker.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kernelarc::judge {

struct OracleCommand {
  std::filesystem::path python;   // $KERNELARC_PYTHON, else /usr/bin/python3 (Debian's python3-torch is for it)
  std::filesystem::path script;   // $KERNELARC_ORACLE, else python/kernelarc_oracle.py beside or above the binary,
                                  // else in the source tree the binary was built from
  std::vector<std::string> problems;  // why it cannot run, when it cannot: empty when both exist
  bool usable() const { return problems.empty(); }
};

OracleCommand find_reference_oracle();

}  // namespace kernelarc::judge
