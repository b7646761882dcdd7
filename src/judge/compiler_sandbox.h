// The walls around a compiler that builds a candidate. The source is untrusted and a compiler reads whatever file it
// names (`#include "/etc/passwd"`, `asm(".incbin ...")`, `.include`), into its diagnostics or into the built library.
// So the compiler runs with an environment of PATH and TMPDIR only (never the judge's secrets), holds no capability,
// reads only the system's compiler, library and include folders and the folders the build names, writes only its
// build folder, opens no socket (and has its own network namespace where it may), and writes no file past a size.
// It may still fork and exec: a compiler driver runs cc1plus, as and ld.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/subprocess.h"
#include "judge/sandbox_walls.h"

namespace kernelarc::judge {

// The folders a system compiler needs (its programs, libraries, headers and the dynamic loader's cache).
std::vector<std::string> compiler_system_paths();

// The folders that hold each named program as PATH finds it, and its real file's folder where it is a link: a build
// tool installed beside an interpreter (pip's ninja in a virtual environment's bin/) is outside the system's folders.
std::vector<std::string> program_folders(const std::vector<std::string>& programs);

class CompilerSandbox {
 public:
  // Prepared in the parent: `read_only` beyond the system's folders (the ABI headers, a toolkit), `build_folder` the
  // only place it writes, and where its temporary files go.
  CompilerSandbox(const std::vector<std::string>& read_only, const std::filesystem::path& build_folder);

  // Raised in the child between fork and exec, with system calls only: null, or the wall that failed (errno set).
  const char* enter() const noexcept;
  // {"active": [...], "unavailable": [...]}
  const nlohmann::json& report() const { return report_; }
  // The command run inside these walls, with their environment.
  common::CommandResult run(const std::vector<std::string>& command, std::chrono::milliseconds timeout) const;

 private:
  LandlockRuleset filesystem_;
  SystemCallFilter system_calls_;
  bool own_network_ = false;
  std::vector<std::string> environment_;
  nlohmann::json report_;
};

}  // namespace kernelarc::judge
