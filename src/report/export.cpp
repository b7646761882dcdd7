#include "report/export.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "engine/composition.h"
#include "engine/journal.h"
#include "judge/abi_header.h"
#include "judge/build_cache.h"
#include "judge/cpu_compiler.h"
#include "judge/dispatch_rule.h"
#include "report/kernel_launcher.h"
#include "report/parse_or_empty.h"
#include "report/torch_binding.h"
#include "task/task.h"

namespace kernelarc::report {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string utc_now() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

std::string format_time(double ns) { return ns >= 1e6 ? fmt::format("{:.3f} ms", ns / 1e6) : fmt::format("{:.3f} us", ns / 1e3); }

// What the judge measured. A promoted candidate was measured twice; like the controller, the slower measurement counts.
struct Measurement {
  std::vector<std::pair<std::string, double>> medians;  // visible workloads, in judging order
  std::size_t workloads = 0;
  std::size_t held_out = 0;
  std::size_t measurements = 0;
  double geometric_mean_ns = 0;
};

Measurement measure(const store::Store& store, const store::CandidateRecord& candidate, std::int64_t run_id) {
  const auto verdicts = store.verdicts(candidate.id);
  if (verdicts.empty()) throw ExportError(fmt::format("candidate {} of run {} was never judged (no verdicts)", candidate.id, run_id));
  // The rows of one measurement name each workload once; a name seen again starts the next measurement.
  std::vector<std::vector<const store::VerdictRecord*>> groups(1);
  std::set<std::string> seen;
  for (const auto& v : verdicts) {
    if (v.status != "PASSED")
      throw ExportError(fmt::format("candidate {} of run {} did not pass: {} on workload {}{}{}; only a correct kernel is exported", candidate.id,
                                    run_id, v.status, v.workload_uuid, v.reason.empty() ? "" : ": ", v.reason.substr(0, 200)));
    if (!seen.insert(v.workload_uuid).second) {
      groups.emplace_back();
      seen = {v.workload_uuid};
    }
    groups.back().push_back(&v);
  }
  Measurement slowest;
  for (const auto& group : groups) {
    Measurement m;
    double log_sum = 0;
    for (const auto* v : group) {
      ++m.workloads;
      if (v->held_out) {
        ++m.held_out;
      } else if (v->median_ns && *v->median_ns > 0) {
        m.medians.emplace_back(v->workload_uuid, *v->median_ns);
        log_sum += std::log(*v->median_ns);
      }
    }
    if (!m.medians.empty()) m.geometric_mean_ns = std::exp(log_sum / static_cast<double>(m.medians.size()));
    if (slowest.workloads == 0 || m.geometric_mean_ns > slowest.geometric_mean_ns) slowest = std::move(m);
  }
  slowest.measurements = groups.size();
  return slowest;
}

// Everything the generators need about one candidate.
struct Context {
  store::RunRecord run;
  store::CandidateRecord candidate;
  task::Task task;
  const task::Template* tmpl = nullptr;  // the template the candidate came from, when known
  std::map<std::string, std::int64_t> knobs;        // #defined above the source (none for a composed candidate: its source defines its parts')
  std::vector<judge::DispatchPart> parts;           // a composed candidate's (engine/composition.h)
  std::string dispatch_axis;                        // the var axis its parts are told apart by; empty: the product
  bool on_cuda = false;
  bool kernel_form = false;
  Measurement measured;
  std::string exported_at;
};

// The template the run searched; else one of the device whose source is the candidate's (an eval of a template).
const task::Template* template_of(const task::Task& task, const store::RunRecord& run, const store::CandidateRecord& candidate,
                                  const std::string& device_kind) {
  const std::string searched = parse_or_empty(run.config_json).value("template", "");
  for (const auto& t : task.definition.templates)
    if (t.device == device_kind && !searched.empty() && t.name == searched) return &t;
  for (const auto& t : task.definition.templates) {
    if (t.device != device_kind) continue;
    try {
      if (judge::read_text_file(t.source) == candidate.source) return &t;
    } catch (const std::exception&) {
    }
  }
  return nullptr;
}

bool has_entry_point(const std::string& source) {
  return source.find("KERNELARC_CANDIDATE") != std::string::npos || source.find("kernelarc_run") != std::string::npos;
}

Context load_context(const store::Store& store, const ExportRequest& request) {
  Context c;
  c.exported_at = request.exported_at.empty() ? utc_now() : request.exported_at;
  const auto run = store.run(request.run_id);
  if (!run) throw ExportError(fmt::format("the store has no run {} (kernelarc board lists the runs' conclusions)", request.run_id));
  c.run = *run;
  const auto candidates = store.candidates(run->id);
  std::optional<std::int64_t> wanted = request.candidate_id;
  if (!wanted) {
    wanted = best_candidate_of(store, *run);
    if (!wanted)
      throw ExportError(fmt::format("run {} ({}) has no passing best candidate{}", run->id, run->status,
                                    candidates.empty() ? ": it judged no candidate" : ": its starting candidate failed"));
  }
  const auto found = std::find_if(candidates.begin(), candidates.end(), [&](const auto& k) { return k.id == *wanted; });
  if (found == candidates.end())
    throw ExportError(candidates.empty() ? fmt::format("candidate {} is not in run {}, which has no candidates", *wanted, run->id)
                                         : fmt::format("candidate {} is not in run {} (its candidates are {} to {})", *wanted, run->id,
                                                       candidates.front().id, candidates.back().id));
  c.candidate = *found;
  c.measured = measure(store, c.candidate, run->id);

  const auto task_record = store.task(run->task_id);
  if (!task_record) throw ExportError(fmt::format("run {} names task {}, which the store lacks", run->id, run->task_id));
  const fs::path directory = request.task_directory.empty() ? fs::path(task_record->path) : request.task_directory;
  try {
    c.task = task::load_task(directory);
  } catch (const std::exception& error) {
    throw ExportError(fmt::format("task {} cannot be loaded from {}: {} (give its directory with --task)", task_record->name,
                                  directory.string(), error.what()));
  }
  if (c.task.definition.name != task_record->name)
    throw ExportError(fmt::format("{} holds task {}, but run {} was on task {}", directory.string(), c.task.definition.name, run->id,
                                  task_record->name));

  try {
    c.knobs = json::parse(c.candidate.knobs_json).get<std::map<std::string, std::int64_t>>();
  } catch (const json::exception& error) {
    throw ExportError(fmt::format("candidate {} has unreadable knobs {}: {}", c.candidate.id, c.candidate.knobs_json, error.what()));
  }
  c.on_cuda = run->device.rfind("cuda", 0) == 0;
  c.tmpl = template_of(c.task, *run, c.candidate, c.on_cuda ? "cuda" : "cpu");
  c.kernel_form = c.on_cuda && c.tmpl && c.tmpl->form == task::TemplateForm::kernel && c.tmpl->launch;
  try {
    if (auto parts = engine::composed_parts(c.knobs)) {
      c.parts = std::move(*parts);
      c.dispatch_axis = engine::composed_axis(c.knobs);
      judge::check_dispatch_axis(c.task.definition, c.dispatch_axis);
      c.knobs.clear();
      // A kernel-only part's launch: the template's, with the kernel the composed module renamed for it.
      if (c.kernel_form) c.parts = engine::composed_source(c.task, *c.tmpl, c.parts, c.dispatch_axis).dispatch;
    }
  } catch (const std::exception& error) {
    throw ExportError(fmt::format("candidate {} is composed, but its parts cannot be read: {}", c.candidate.id, error.what()));
  }
  if (c.on_cuda && !c.kernel_form && !has_entry_point(c.candidate.source))
    throw ExportError(fmt::format("candidate {} is CUDA device code without a host entry point, and no template of task {} says how "
                                  "to launch it", c.candidate.id, c.task.definition.name));
  return c;
}

std::string comment_block(const Context& c, const std::vector<std::string>& extra) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("KernelArc export of task {}, run {} ({} on {}), candidate {}: {}", c.task.definition.name, c.run.id, c.run.kind,
                              c.run.device, c.candidate.id, c.candidate.name));
  std::string origin = c.tmpl ? fmt::format("Template {} ({} form)", c.tmpl->name, c.kernel_form ? "kernel-only" : "full") : "Own source (no template)";
  if (!c.candidate.proposer.empty()) origin += fmt::format("; proposed by {}", c.candidate.proposer);
  if (!c.candidate.hypothesis.empty()) origin += fmt::format(": {}", c.candidate.hypothesis);
  lines.push_back(origin + ".");
  lines.push_back(fmt::format("Judged {}; exported {}.", c.candidate.created_at, c.exported_at));
  if (!c.measured.medians.empty())
    lines.push_back(fmt::format("Measured: {}, the geometric mean of the median times of {} visible workloads{}; all {} workloads judged "
                                "PASSED{}.",
                                format_time(c.measured.geometric_mean_ns), c.measured.medians.size(),
                                c.measured.measurements > 1 ? fmt::format(" (the slower of {} measurements)", c.measured.measurements) : "",
                                c.measured.workloads, c.measured.held_out ? fmt::format(" ({} held out)", c.measured.held_out) : ""));
  else
    lines.push_back(fmt::format("Correct on all {} workloads judged; not timed.", c.measured.workloads));
  for (const auto& [uuid, ns] : c.measured.medians) lines.push_back(fmt::format("  {:<32} {:>12}", uuid, format_time(ns)));
  std::vector<std::string> knob_text;
  for (const auto& [name, value] : c.knobs) knob_text.push_back(fmt::format("{}={}", name, value));
  if (!knob_text.empty()) lines.push_back(fmt::format("Knobs: {} (the #defines below).", fmt::join(knob_text, " ")));
  for (std::size_t i = 0; i < c.parts.size(); ++i) {
    std::vector<std::string> part_knobs;
    for (const auto& [name, value] : c.parts[i].knobs) part_knobs.push_back(fmt::format("{}={}", name, value));
    lines.push_back(fmt::format("Part {} of {}: {}; calls whose size ({}) is {}.", i, c.parts.size(), fmt::join(part_knobs, " "),
                                c.dispatch_axis.empty() ? std::string("the product of the var axes") : "var axis " + c.dispatch_axis,
                                c.parts[i].up_to && i + 1 < c.parts.size() ? fmt::format("at most {}", *c.parts[i].up_to) : "above the other parts'"));
  }
  lines.insert(lines.end(), extra.begin(), extra.end());
  std::string out;
  for (auto line : lines) {
    std::replace(line.begin(), line.end(), '\n', ' ');
    out += "// " + line + "\n";
  }
  return out;
}

std::string knob_defines(const Context& c) {
  std::string out;
  for (const auto& [name, value] : c.knobs) out += fmt::format("#define {} {}\n", name, value);
  return out;
}

// An #include line of header `path` (<path> or "path"), the line's leading newline in group 1.
std::regex include_line(std::string_view path) {
  std::string escaped;
  for (const char ch : path) escaped += ch == '.' ? std::string("\\.") : std::string(1, ch);
  return std::regex(R"((^|\n)[ \t]*#[ \t]*include[ \t]*[<"])" + escaped + R"([>"][^\n]*)");
}

// The candidate's translation unit: the knob #defines, the source, and for a kernel-only candidate the launcher. With
// `inline_abi` the ABI header's text replaces its #include (and device.cuh's its), so the file needs nothing but
// dlpack/dlpack.h.
std::string translation_unit(const Context& c, bool inline_abi) {
  static const std::regex abi_include = include_line("kernelarc/candidate_abi.h");
  const std::string abi_text = fmt::format("/* ---- include/kernelarc/candidate_abi.h (inlined by kernelarc export) ---- */\n{}"
                                           "/* ---- end of include/kernelarc/candidate_abi.h ---- */",
                                           judge::candidate_abi_header());
  std::string source = c.candidate.source;
  // The shared device headers (include/kernelarc/device.cuh, gemm_sm90.cuh): each inlined whenever it is included, at
  // its first #include.
  for (const auto& [path, text] : judge::shared_device_headers()) {
    const std::regex device_include = include_line(path);
    std::smatch device_match;
    if (inline_abi && std::regex_search(source, device_match, device_include))
      source.replace(static_cast<std::size_t>(device_match.position(0)) + device_match[1].length(),
                     static_cast<std::size_t>(device_match.length(0) - device_match[1].length()),
                     fmt::format("/* ---- include/{} (inlined by kernelarc export) ---- */\n{}/* ---- end of include/{} ---- */", path, text,
                                 path));
  }
  std::smatch match;
  const bool includes_abi = std::regex_search(source, match, abi_include);
  if (inline_abi && includes_abi) source.replace(static_cast<std::size_t>(match.position(0)) + match[1].length(),
                                                 static_cast<std::size_t>(match.length(0) - match[1].length()), abi_text);
  if (!source.empty() && source.back() != '\n') source += '\n';
  std::string out = knob_defines(c);
  if (!out.empty()) out += "\n";
  out += source;
  if (c.kernel_form) {
    std::vector<std::string> knob_names;
    for (const auto& [name, _] : c.knobs) knob_names.push_back(name);
    std::string launcher;
    try {
      std::vector<std::string> kernels;
      for (std::size_t i = 0; i < c.parts.size(); ++i)
        kernels.push_back(engine::part_namespace(engine::part_source_index(c.parts, i)) + "::" + c.parts[i].launch->kernel);
      launcher = !c.parts.empty() ? kernel_launcher_cpp(c.task.definition, c.parts, kernels, c.dispatch_axis)
                                  : kernel_launcher_cpp(c.task.definition, *c.tmpl->launch, launched_kernel_name(c.candidate.source, *c.tmpl->launch), knob_names);
    } catch (const std::exception& error) {
      throw ExportError(fmt::format("no host launcher can be generated for candidate {}: {}", c.candidate.id, error.what()));
    }
    out += "\n";
    if (!includes_abi) out += inline_abi ? abi_text + "\n" : "#include <kernelarc/candidate_abi.h>\n";
    out += launcher;
  }
  return out;
}

std::string tensor_list(const std::vector<task::TensorSpec>& tensors) {
  std::vector<std::string> names;
  for (const auto& t : tensors) names.push_back(t.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string export_source(const Context& c) {
  std::vector<std::string> build;
  if (c.on_cuda) {
    build.push_back("Build: nvcc -std=c++17 -O3 -shared -Xcompiler -fPIC -arch=sm_90a FILE.cu -o candidate.so (the judge's flags; needs "
                    "dlpack/dlpack.h).");
  } else {
    const judge::CompilerOptions judge_compiler;
    std::vector<std::string> flags = judge_compiler.base_flags;
    flags.insert(flags.end(), c.task.definition.cflags.begin(), c.task.definition.cflags.end());
    build.push_back(fmt::format("Build: c++ {} FILE.cpp -o candidate.so (the judge's flags; needs dlpack/dlpack.h).", fmt::join(flags, " ")));
  }
  build.push_back(fmt::format("Entry point kernelarc_run (candidate ABI, inlined below): inputs {}; outputs {}; {}.",
                              tensor_list(c.task.definition.inputs), tensor_list(c.task.definition.outputs),
                              c.on_cuda ? "the CUDA stream to launch on" : "stream null"));
  if (c.kernel_form)
    build.push_back(fmt::format("Kernel-only candidate: the host launcher at the end was generated from template {}'s launch geometry.",
                                c.tmpl->name));
  return comment_block(c, build) + "\n" + translation_unit(c, true);
}

std::string solution_name(const Context& c) {
  std::string name = "kernelarc_" + c.candidate.name;
  for (auto& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
  return name;
}

// nvcc as the judge ran it: -O3 without fast math, so the maths is the one that was checked; PyTorch's extension build
// defines away the half and bfloat16 operators and conversions, which the judge's nvcc allowed, so they come back.
json judged_cuda_flags() {
  return {"-O3", "-std=c++17", "-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__", "-U__CUDA_NO_HALF2_OPERATORS__",
          "-U__CUDA_NO_BFLOAT16_CONVERSIONS__"};
}

// The architecture the judge built the candidate for ("sm_90a"), read from its recorded build command (NVRTC's
// --gpu-architecture or nvcc's -gencode); empty when the build recorded none.
std::string judged_architecture(const store::CandidateRecord& candidate) {
  const json build = parse_or_empty(candidate.build_json);
  const auto command = build.find("command");
  if (command == build.end() || !command->is_array()) return {};
  for (const auto& part : *command) {
    if (!part.is_string()) continue;
    const auto text = part.get<std::string>();
    for (const std::string_view marker : {"--gpu-architecture=", "code="})
      if (const auto at = text.rfind(marker); at != std::string::npos && text.compare(at + marker.size(), 3, "sm_") == 0)
        return text.substr(at + marker.size());
  }
  return {};
}

// -gencode flags for the targets: LOCAL is the architecture the candidate was judged on, B200 is sm_100a. Named
// explicitly, because the benchmark otherwise builds for its GPU's plain architecture (sm_90, without the wgmma
// and setmaxnreg that sm_90a has). None when LOCAL's architecture was not recorded: the benchmark then picks.
std::vector<std::string> architecture_flags(const Context& c, const std::vector<std::string>& target_hardware) {
  std::vector<std::string> architectures;
  for (const auto& target : target_hardware) {
    const std::string architecture = target == "B200" ? "sm_100a" : judged_architecture(c.candidate);
    if (architecture.empty()) return {};
    if (std::find(architectures.begin(), architectures.end(), architecture) == architectures.end()) architectures.push_back(architecture);
  }
  std::vector<std::string> flags;
  for (const auto& architecture : architectures)
    flags.push_back(fmt::format("-gencode=arch=compute_{0},code=sm_{0}", architecture.substr(3)));
  return flags;
}

std::string export_solution(const Context& c, const std::vector<std::string>& target_hardware) {
  if (!c.on_cuda)
    throw ExportError(fmt::format("run {} was judged on the CPU: SOL-ExecBench wants a CUDA kernel; export its source with --format source",
                                  c.run.id));
  for (const auto& target : target_hardware)
    if (target != "LOCAL" && target != "B200") throw ExportError(fmt::format("unknown target hardware \"{}\" (expected LOCAL or B200)", target));
  if (target_hardware.empty()) throw ExportError("a solution needs at least one target hardware (LOCAL or B200)");
  const std::string kernel_file = "kernel.cu", binding_file = "binding.cpp";
  std::string binding;
  try {
    binding = torch_binding_cpp(c.task.definition,
                                fmt::format("// The torch binding of KernelArc candidate {} (run {}, task {}), generated by kernelarc export.\n"
                                            "// run() describes each tensor as the judge does and calls the candidate's entry point in {}.\n",
                                            c.candidate.id, c.run.id, c.task.definition.name, kernel_file));
  } catch (const std::invalid_argument& error) {
    throw ExportError(fmt::format("task {} cannot be bound to torch: {}", c.task.definition.name, error.what()));
  }
  const std::string kernel = comment_block(c, {fmt::format("Entry point kernelarc_run; {} binds it to torch as run().", binding_file)}) + "\n" +
                             translation_unit(c, false);
  std::vector<std::string> knob_text;
  for (const auto& [name, value] : c.knobs) knob_text.push_back(fmt::format("{}={}", name, value));
  std::string description = fmt::format("KernelArc run {} ({} on {}), candidate {} ({})", c.run.id, c.run.kind, c.run.device, c.candidate.id,
                                        c.candidate.name);
  if (c.measured.geometric_mean_ns > 0)
    description += fmt::format(": {} geometric mean of the median times over {} visible workloads", format_time(c.measured.geometric_mean_ns),
                               c.measured.medians.size());
  description += fmt::format("; correct on all {} workloads judged", c.measured.workloads);
  if (!knob_text.empty()) description += fmt::format("; knobs {}", fmt::join(knob_text, " "));
  if (!c.parts.empty())
    description += fmt::format("; composed of {} configurations over {} classes of workload sizes, picked at launch", engine::configuration_count(c.parts),
                               c.parts.size());
  if (c.kernel_form) description += "; kernel-only, with a generated host launcher";
  description += ".";
  json cuda_flags = architecture_flags(c, target_hardware);
  for (const auto& flag : judged_cuda_flags()) cuda_flags.push_back(flag);
  json solution = {
      {"name", solution_name(c)},
      {"definition", c.task.definition.name},
      {"author", "kernelarc"},
      {"description", description},
      {"spec",
       {{"languages", {"cuda_cpp"}},
        {"target_hardware", target_hardware},
        {"entry_point", binding_file + "::run"},
        {"destination_passing_style", true},
        {"binding", "torch"},
        {"dependencies", json::array()},
        {"compile_options", {{"cflags", {"-O3", "-std=c++17"}}, {"cuda_cflags", cuda_flags}, {"ld_flags", {"-lcuda"}}}}}},
      {"sources", json::array({{{"path", kernel_file}, {"content", kernel}},
                               {{"path", binding_file}, {"content", binding}},
                               {{"path", "kernelarc/candidate_abi.h"}, {"content", std::string(judge::candidate_abi_header())}},
                               {{"path", "dlpack/dlpack.h"}, {"content", std::string(judge::dlpack_header())}}})}};
  // The shared device headers the kernel includes, directly or through another, and no others.
  std::set<std::string_view> shipped;
  std::string included = kernel;
  for (bool more = true; more;) {
    more = false;
    for (const auto& [path, text] : judge::shared_device_headers())
      if (!shipped.count(path) && std::regex_search(included, include_line(path))) shipped.insert(path), included += text, more = true;
  }
  for (const auto& [path, text] : judge::shared_device_headers())
    if (shipped.count(path)) solution["sources"].push_back({{"path", std::string(path)}, {"content", std::string(text)}});
  return solution.dump(2) + "\n";
}

}  // namespace

std::optional<std::int64_t> best_candidate_of(const store::Store& store, const store::RunRecord& run) {
  if (run.kind == "eval") {
    const auto candidates = store.candidates(run.id);
    if (candidates.empty()) return std::nullopt;
    return candidates.back().id;
  }
  const json summary = parse_or_empty(run.summary_json);
  if (const auto best = summary.find("best_candidate"); best != summary.end() && best->is_number_integer()) return best->get<std::int64_t>();
  // A run that was stopped: the last candidate its controller took as the incumbent.
  std::optional<std::int64_t> best;
  for (const auto& entry : engine::journal::read(store, run.id))
    if (const auto* judged = std::get_if<engine::journal::Judged>(&entry))
      if (judged->decision == engine::Decision::first || judged->decision == engine::Decision::promoted) best = judged->candidate;
  return best;
}

ExportedCandidate export_candidate(const store::Store& store, const ExportRequest& request) {
  const Context c = load_context(store, request);
  ExportedCandidate out;
  out.run_id = c.run.id;
  out.candidate_id = c.candidate.id;
  out.task = c.task.definition.name;
  out.candidate_name = c.candidate.name;
  out.device = c.run.device;
  out.kernel_form = c.kernel_form;
  out.time_ns = c.measured.geometric_mean_ns;
  if (const auto record = store.task(c.run.task_id); record && record->definition_hash != c.task.content_hash)
    out.notes.push_back(fmt::format("task {} in {} has changed since run {}: its tensor list and any launch geometry are taken from today's definition", out.task,
                                    c.task.directory.string(), c.run.id));
  if (request.format == ExportFormat::source) {
    out.extension = c.on_cuda ? ".cu" : ".cpp";
    out.text = export_source(c);
  } else {
    out.extension = ".json";
    out.text = export_solution(c, request.target_hardware);
    if (std::find(request.target_hardware.begin(), request.target_hardware.end(), "B200") != request.target_hardware.end())
      out.notes.push_back(fmt::format("the kernel was judged on {}, not on a B200", c.run.device));
    if (std::find(request.target_hardware.begin(), request.target_hardware.end(), "LOCAL") != request.target_hardware.end() &&
        judged_architecture(c.candidate).empty())
      out.notes.push_back(fmt::format("candidate {}'s build recorded no GPU architecture: the benchmark builds it for its own GPU's", c.candidate.id));
  }
  return out;
}

}  // namespace kernelarc::report
