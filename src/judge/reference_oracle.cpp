#include "judge/reference_oracle.h"

#include <unistd.h>

#include <cstdlib>

#include "judge/judge.h"

namespace kernelarc::judge {

namespace fs = std::filesystem;

OracleCommand find_reference_oracle() {
  OracleCommand command;
  const char* python = std::getenv("KERNELARC_PYTHON");
  command.python = python && *python ? fs::path(python) : fs::path("/usr/bin/python3");
  if (const char* script = std::getenv("KERNELARC_ORACLE"); script && *script) {
    command.script = script;
  } else {
    const fs::path binary_folder = current_executable().parent_path();
    for (const fs::path& candidate : {binary_folder / "python" / "kernelarc_oracle.py", binary_folder.parent_path() / "python" / "kernelarc_oracle.py",
                                      fs::path(KERNELARC_SOURCE_DIR) / "python" / "kernelarc_oracle.py"})
      if (fs::exists(candidate)) {
        command.script = candidate;
        break;
      }
  }
  if (access(command.python.c_str(), X_OK) != 0)
    command.problems.push_back(command.python.string() + " cannot be run (KERNELARC_PYTHON names another interpreter)");
  if (command.script.empty() || !fs::exists(command.script))
    command.problems.push_back("python/kernelarc_oracle.py is not found (KERNELARC_ORACLE names it)");
  return command;
}

}  // namespace kernelarc::judge
