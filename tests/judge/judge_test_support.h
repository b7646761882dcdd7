// What the CPU and the GPU judge tests share: reading a candidate file, and a verdict described for a failing assertion.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "judge/verdict.h"

namespace kernelarc::judge {

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << file;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Everything a failing assertion needs to show: each workload's status and reason, and its timing when there is one.
inline std::string describe(const CandidateVerdict& verdict) {
  std::ostringstream out;
  out << verdict.name << " (build " << (verdict.build.ok ? "ok" : "FAILED: " + verdict.build.diagnostics) << ", "
      << verdict.workloads.size() << " workloads, " << verdict.worker_restarts << " worker restarts)\n";
  for (const auto& row : verdict.workloads) {
    out << "  " << row.uuid << (row.held_out ? "*" : "") << ": " << status_name(row.status) << " " << row.reason;
    if (row.timing) {
      out << " median " << row.timing->median_ns / 1e3 << " us";
      if (!row.timing->timer.empty()) out << " (" << row.timing->timer << ")";
      if (row.timing->event_median_ns > 0) out << ", events " << row.timing->event_median_ns / 1e3 << " us";
      if (row.timing->between_calls_ns) out << ", other threads between calls " << *row.timing->between_calls_ns / 1e3 << " us in all";
      out << ", flush " << row.timing->flush_ns / 1e3 << " us, samples";
      for (double sample : row.timing->samples_ns) out << " " << sample / 1e3;
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace kernelarc::judge
