// Applies a unified diff (as `diff -u` or `git diff` write it, one file) to a text. Hunks must match their context
// exactly, or at an offset of a few lines; a hunk that matches nowhere is an error that says which hunk and why.
#pragma once

#include <stdexcept>
#include <string>

namespace kernelarc::llm {

class DiffError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether `text` looks like a unified diff (has "@@ -a,b +c,d @@" hunk headers).
bool looks_like_unified_diff(const std::string& text);

// `original` with `diff` applied; throws DiffError.
std::string apply_unified_diff(const std::string& original, const std::string& diff);

}  // namespace kernelarc::llm
