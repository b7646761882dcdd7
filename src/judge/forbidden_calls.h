#pragma once
// A task may forbid calls (definition.json's kernelarc.forbid: vendor GEMM for a GEMM task, say). Two checks give an
// early, explained REWARD_HACK: the source names a forbidden function outside comments and strings, or the built
// library imports one (or imports dlopen/dlsym, which could reach one by a name built at run time). Neither is the
// only line of defence: a candidate that hides a call still has to be correct and fast under the judge.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kernelarc::judge {

// The first forbidden identifier in the source, with its line, as a reason; nullopt when none.
std::optional<std::string> forbidden_call_in_source(const std::string& source, const std::vector<std::string>& forbid);

// The names an ELF shared object imports (its undefined dynamic symbols); empty for anything else.
std::vector<std::string> imported_symbols(const std::filesystem::path& library);

// A forbidden function the built library imports, as a reason; nullopt when none. Without lookups_allowed, importing
// dlopen or dlsym is refused too (on a GPU the CUDA runtime linked into every candidate needs them).
std::optional<std::string> forbidden_call_in_library(const std::filesystem::path& library, const std::vector<std::string>& forbid,
                                                     bool lookups_allowed);

}  // namespace kernelarc::judge
