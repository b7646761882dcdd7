// What every subcommand shares: where things are found and the CPU's peak rates.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "judge/backend.h"
#include "judge/cpu_compiler.h"
#include "store/store.h"
#include "task/roofline.h"
#include "task/task.h"

namespace kernelarc::cli {

// $KERNELARC_TASKS_DIR, else the tasks/ folder of the source tree this binary was built from.
std::filesystem::path builtin_tasks_directory();

// The help of --extensions, for the commands that load a task with it.
inline constexpr const char* kExtensionsHelp =
    "A JSON file read as the task definition's \"kernelarc\" section (templates, roofline, native references, held-out workloads): "
    "KernelArc's additions to a problem that is not to be edited (docs/SOL_EXECBENCH.md)";

// A path to a task directory, or the name of a built-in task.
task::Task load_task_argument(const std::string& argument, const std::string& extensions = "");
// --workload: the task keeps only these workloads, in the order given; throws std::runtime_error naming one it lacks.
void keep_only_workloads(task::Task& task, const std::vector<std::string>& uuids);

// $KERNELARC_STORE, else $XDG_DATA_HOME/kernelarc/runs.db, else ~/.local/share/kernelarc/runs.db.
std::filesystem::path default_store_path();

// The store a command writes, checked before any work: the path given (else the default, whose folders are made),
// opened and written to once. Throws std::runtime_error saying why it cannot be used: a folder that does not exist
// (a typo is likelier than a wish for new folders), a file that cannot be written.
store::Store open_store_for_writing(const std::string& given);

using CpuPeakOverrides = judge::PeakOverrides;  // --cpu-bandwidth and --cpu-gflops

// Device names ("cpu", "cuda", "cuda:N") are the backends' (judge/backend.h).
using judge::DeviceName;
using judge::parse_device;

// The peaks of `device` ("cpu" or "cuda:N") as its backend finds them (the CPU's: both overrides given, else the cached
// calibration, else a fresh one, said on stderr; a GPU's from the datasheet table). Throws std::runtime_error.
task::DevicePeaks device_peaks(const std::string& device, const judge::CompilerOptions& options, const CpuPeakOverrides& overrides);

// The default of a protocol setting of a run's search (or another use) on every device this build has: "2 on the CPU, 5 on a GPU".
std::string search_protocol_defaults(int judge::JudgeProtocol::*setting, judge::ProtocolUse use = judge::ProtocolUse::search);

// A baseline file: a JSON object, workload uuid -> T_b in milliseconds. Returns nanoseconds by uuid; throws
// std::runtime_error naming the file and the entry that is not a positive number.
std::map<std::string, double> load_baseline_file(const std::filesystem::path& path);

// Exit codes of every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // a candidate failed a check
inline constexpr int kExitUsage = 2;   // bad input: unknown task, malformed file, unsupported device
inline constexpr int kExitStore = 3;   // the run store could not be written (a full disk): the run stopped, resumable
inline constexpr int kExitInterrupted = 130;  // Ctrl-C or SIGTERM: the run stopped cleanly, resumable

}  // namespace kernelarc::cli
