#include "judge/workload_judgement.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "common/hash.h"
#include "common/parallel.h"
#include "judge/background_activity.h"
#include "judge/baseline_cache.h"
#include "judge/call_reply.h"
#include "judge/comparison.h"
#include "judge/launch_request.h"
#include "judge/output_check.h"
#include "judge/round_cache.h"
#include "judge/timing_protocol.h"
#include "judge/tolerance_sanity.h"
#include "judge/torch_baseline.h"

namespace kernelarc::judge {

using nlohmann::json;

namespace {

constexpr int kOverheadProbes = 15;  // at most: never more than the timed calls, never fewer than 5
constexpr int kVariantsKept = 3;  // input variants the timed calls cycle through

// A call request: each input in the slot, the outputs; on a GPU the poison the worker writes there before the call.
message::Call call_message(const Layout& layout, int slot, std::optional<std::byte> device_poison) {
  message::Call call;
  for (auto offset : layout.input_offsets) call.inputs.push_back(static_cast<std::size_t>(slot) * layout.slot_bytes + offset);
  for (auto offset : layout.output_offsets) call.outputs.push_back(layout.output_base() + offset);
  if (device_poison) call.poison = static_cast<std::uint8_t>(*device_poison);
  return call;
}

std::string line(const message::Call& call) { return json(call).dump(); }

}  // namespace

WorkloadJudgement::WorkloadJudgement(Judge& judge, const CandidateSource& candidate, const task::Workload& workload, bool first,
                                     WorkerSession& candidate_session, WorkerSession& reference_session, CandidateVerdict& verdict,
                                     PhaseClock& phases, ProgressCallback say, const std::string& buffer_side, bool paired)
    : judge_(judge), options_(judge.options_), definition_(judge.task_.definition), candidate_(candidate), workload_(workload),
      first_(first), candidate_session_(candidate_session), reference_session_(reference_session), verdict_(verdict), phases_(phases),
      say_(std::move(say)), buffer_side_(buffer_side) {
  row_.uuid = workload.uuid;
  row_.held_out = workload.held_out;
  resolved_ = task::resolve_workload(judge.task_, workload);
  row_.roofline = task::estimate_roofline(judge.task_, resolved_, judge.peaks_);
  if (auto baseline = judge.baselines_.find(workload.uuid); baseline != judge.baselines_.end()) {
    row_.baseline_ns = baseline->second;
    if (auto source = judge.baseline_sources_.find(workload.uuid); source != judge.baseline_sources_.end()) row_.baseline_source = source->second;
  }
  workload_seed_ = common::mix64(options_.seed ^ common::fnv1a64(workload.uuid));
  const int total_calls = options_.warmup_calls() + options_.iterations;
  const bool timed = options_.time_candidates || paired;
  const bool timed_on_gpu = timed && judge.backend_.device_memory();
  layout_ = make_layout(judge.task_, resolved_, timed ? total_calls : 1, options_.input_pool_bytes,
                        timed_on_gpu ? std::min(options_.rounds, kVariantsKept) : 0);
  reference_layout_ = make_layout(judge.task_, resolved_, 1, options_.input_pool_bytes);
  guard_ = guard_pattern(workload_seed_);
  generation_ = ++judge.buffer_generation_;
  workload_index_ = static_cast<std::size_t>(&workload - judge.task_.workloads.data());
  gpu_ = candidate_session.on_gpu;
  at(JudgePhase::correctness, -1, -1);
}

WorkloadVerdict WorkloadJudgement::run() {
  std::optional<Failure> failure = set_up();
  if (!failure) failure = correctness(options_.rounds, options_.stricter_rounds);
  if (!failure && options_.time_candidates) failure = timing();
  if (const auto warnings = judge_.tolerance_warnings_.find(workload_.uuid); warnings != judge_.tolerance_warnings_.end())
    row_.warnings = warnings->second;
  if (failure) {
    row_.status = failure->status;
    row_.reason = failure->reason;
    row_.failed_at = place_;
  } else if (row_.timing && row_.baseline_ns) {
    row_.score = task::sol_score(row_.timing->median_ns * 1e-9, row_.roofline->seconds, *row_.baseline_ns * 1e-9);
  }
  say_(fmt::format("  {} {}", status_name(row_.status), row_.reason));
  return std::move(row_);
}

std::optional<Failure> WorkloadJudgement::set_up() {
  try {
    const auto allocating = phases_.measure("buffers");
    buffer_ = &judge_.workload_buffer(fmt::format("w{}-{}", workload_index_, buffer_side_), layout_.total_bytes(), uncached_buffer_);
    // Host code shares this memory with the judge: whatever an earlier candidate left anywhere in it is wiped first.
    if (candidate_.form != task::TemplateForm::kernel && buffer_ != &uncached_buffer_) std::memset(buffer_->data(), 0, buffer_->size());
  } catch (const std::exception& error) {
    return Failure{Status::runtime_error, fmt::format("judge could not allocate the workload's memory: {}", error.what())};
  }
  const auto& def = definition_;
  binding_ = {};
  for (std::size_t i = 0; i < def.inputs.size(); ++i)
    binding_.inputs.push_back({std::string(task::dtype_name(def.inputs[i].dtype)), resolved_.input_shapes[i], def.inputs[i].is_scalar(), std::nullopt});
  for (std::size_t i = 0; i < def.outputs.size(); ++i)
    binding_.outputs.push_back({std::string(task::dtype_name(def.outputs[i].dtype)), resolved_.output_shapes[i], false, std::nullopt});
  candidate_binding_ = binding_;
  if (candidate_.runs_in_oracle())  // a solution may return its outputs as a dict by name
    for (std::size_t i = 0; i < def.outputs.size(); ++i) candidate_binding_.outputs[i].name = def.outputs[i].name;
  if (candidate_.form == task::TemplateForm::kernel) {
    try {
      candidate_binding_.launch = launch_request(judge_.task_, resolved_, candidate_, judge_.peaks_.multiprocessors);
    } catch (const std::exception& error) {
      at(JudgePhase::build, -1, -1);
      return Failure{Status::compile_error, fmt::format("the launch geometry does not evaluate: {}", error.what())};
    }
  }
  for (int slot = 0; slot < layout_.slots; ++slot) {
    candidate_calls_.push_back(line(call_message(layout_, slot, std::nullopt)));
    timed_calls_.push_back(line(call_message(layout_, slot, gpu_ ? std::optional<std::byte>(kPoisonFirst) : std::nullopt)));
  }
  reference_call_ = call_message(reference_layout_, 0, std::nullopt);
  if (gpu_ && !options_.checks_each_call && options_.screen_on_device && candidate_.form == task::TemplateForm::kernel &&
      device_checks_apply(definition_)) {
    const std::string& cubin = [&]() -> const std::string& {
      const auto building = phases_.measure("build");
      return judge_.comparison_cubin_hex();
    }();
    if (!cubin.empty())
      device_checks_.emplace(candidate_session_, *buffer_, layout_, guard_, definition_, resolved_, workload_.tolerance,
                             fmt::format("{}/{:x}/{}/{}", workload_.uuid, workload_seed_, layout_.slot_bytes, layout_.output_region_bytes),
                             cubin, options_.call_timeout, phases_);
  }
  return std::nullopt;
}

// Fresh inputs each round; the reference first on its own copy. The rounds make inputs as the benchmark does; then one
// extra round per stricter regime that changes an input of this workload (logits shifted far from zero, scaled,
// long-tailed, near the dtype's limits; KernelArc's realism profiles): never instead, always besides.
std::optional<Failure> WorkloadJudgement::correctness(int rounds, bool stricter) {
  const int variants_kept = std::min(rounds, kVariantsKept);
  const std::vector<InputRegime> extra_regimes = stricter ? stricter_regimes(definition_, workload_) : std::vector<InputRegime>{};
  const int all_rounds = rounds + static_cast<int>(extra_regimes.size());
  for (int round = 0; round < all_rounds; ++round) {
    const InputRegime regime = round < rounds ? InputRegime::benchmark : extra_regimes[static_cast<std::size_t>(round - rounds)];
    std::shared_ptr<const ReferenceRound> known = judge_.round_cache_->find(RoundCache::Kind::correctness, workload_.uuid, round);
    if (known) ++verdict_.reused_rounds;
    if (!known) {
      at(JudgePhase::reference, round, -1);
      if (auto failure = make_round(common::mix64(workload_seed_ + static_cast<std::uint64_t>(round)), known, regime)) return failure;
      // Kept in order from round 0 while the budget lasts: the same seed gives the next candidate the same round.
      judge_.round_cache_->offer(RoundCache::Kind::correctness, workload_.uuid, round, known);
    }
    if (!known->skipped.empty()) {
      say_(fmt::format("  the extra round of {} inputs is left out: {}", regime_name(regime), known->skipped));
      continue;
    }
    if (auto failure = correctness_round(round, regime, *known)) return failure;
    ++(round < rounds ? row_.rounds_passed : row_.extra_rounds_passed);
    if (static_cast<int>(variants_.size()) < variants_kept) variants_.push_back(known);
  }
  return std::nullopt;
}

std::optional<Failure> WorkloadJudgement::correctness_round(int round, InputRegime regime, const ReferenceRound& given) {
  at(JudgePhase::correctness, round, 0);
  // A wrong answer found on the device is found again on the host before it counts: the kept inputs and reference share
  // the candidates' context, and a kernel may have written over them. When the host finds it right, they are dropped.
  bool confirm_on_host = false;
  if (auto failure = [&]() -> std::optional<Failure> {
        if (device_checks_ && round == 0) {
          bool placed = false;
          if (auto failure = prepare(candidate_session_)) return failure;  // the buffer mapped, the kernel loaded
          if (auto failure = device_checks_->place(given, placed)) return failure;
          if (placed) {
            CallPlan plan;
            plan.inputs_in = plan.everything_out = plan.inputs_out = false;
            plan.device_poison = kPoisonFirst;
            if (auto failure = call(candidate_session_, 0, nullptr, nullptr, nullptr, plan)) return failure;
            auto failure = device_checks_->check(kPoisonFirst);
            if (!failure || (failure->status != Status::incorrect_numerical && failure->status != Status::incorrect_shape)) return failure;
            confirm_on_host = true;
            candidate_session_.outputs_placed = false;  // the guards go up from the host's copy too
          } else {
            device_checks_.reset();  // no room on the device: the host's way
          }
        }
        {
          const auto staging = phases_.measure("staging");
          write_slot(*buffer_, layout_, 0, given.slot_image);
        }
        // On a GPU the worker poisons the outputs on the device: writing and uploading them would cost more.
        CallPlan plan;
        plan.inputs_out = options_.checks_each_call;
        if (gpu_) plan.device_poison = kPoisonFirst;
        else prepare_outputs(*buffer_, layout_, guard_, kPoisonFirst);
        if (auto failure = call(candidate_session_, 0, nullptr, nullptr, nullptr, plan)) return failure;
        if (auto failure = check_output_guards(*buffer_, layout_)) return failure;
        if (options_.checks_each_call)
          if (auto failure = check_inputs(*buffer_, layout_, 0, given.slot_image)) return failure;
        auto failure = compare(given.reference, kPoisonFirst);
        if (confirm_on_host) {
          if (!failure)
            if (auto dropped = device_checks_->forget()) return dropped;
          device_checks_.reset();  // this workload goes on the host's way
        }
        return failure;
      }()) {
    if (regime != InputRegime::benchmark)
      failure->reason = fmt::format("on the extra round of {} inputs (stricter than the benchmark's; the reference takes them): {}",
                                    regime_name(regime), failure->reason);
    return failure;
  }
  // A look at the worker's threads costs 50 ms. On a GPU the worker reports kernels launched between calls on every call,
  // so the threads are looked at on the first workload only. A kernel-only candidate has no threads to look at.
  if ((round == 0 || round == options_.rounds - 1) && (!gpu_ || first_) && candidate_.form != task::TemplateForm::kernel) {
    const auto looking = phases_.measure("background check");
    if (auto activity = find_background_activity(candidate_session_.worker.pid())) return Failure{Status::reward_hack, *activity};
  }
  if (round != 0 || !options_.checks_each_call) return std::nullopt;
  // Same inputs again with another poison: a race or an unwritten element shows here.
  at(JudgePhase::correctness, round, 1);
  const auto first = [&] {
    const auto staging = phases_.measure("staging");
    return outputs_of(*buffer_, layout_);
  }();
  CallPlan again;
  if (gpu_) {
    again.device_poison = kPoisonSecond;
    again.inputs_in = false;  // still on the device, and just seen unchanged
  } else {
    prepare_outputs(*buffer_, layout_, guard_, kPoisonSecond);
  }
  if (auto failure = call(candidate_session_, 0, nullptr, nullptr, nullptr, again)) return failure;
  if (auto failure = check_output_guards(*buffer_, layout_)) return failure;
  const auto checking = phases_.measure("checks");
  return check_second_call(first, *buffer_, layout_, definition_, resolved_, given.reference, workload_.tolerance);
}

std::optional<Failure> WorkloadJudgement::timing() {
  at(JudgePhase::timing, -1, -1);
  bool placed = false;
  if (device_checks_ && variants_.size() == 1 && device_checks_->keeps(variants_.front()->reference))
    if (auto failure = device_checks_->place_variant(0, placed)) return failure;
  if (gpu_ && !placed)
    if (auto failure = upload_input_variants(candidate_session_, *buffer_, layout_, variants_, options_.call_timeout, phases_)) return failure;
  if (!verdict_.conditions_before) verdict_.conditions_before = read_machine_conditions(options_.device);
  return run_timing_protocol(timing_settings(), timing_hooks(), candidate_session_, *buffer_, layout_, guard_, variants_, *row_.roofline,
                             row_.timing, phases_, say_);
}

std::optional<Failure> WorkloadJudgement::check_for_timing() {
  if (auto failure = set_up()) return failure;
  return correctness(std::min(options_.rounds, kVariantsKept), false);
}

std::optional<Failure> WorkloadJudgement::start_timed_calls(std::unique_ptr<TimedCalls>& calls) {
  at(JudgePhase::timing, -1, -1);
  if (gpu_)
    if (auto failure = upload_input_variants(candidate_session_, *buffer_, layout_, variants_, options_.call_timeout, phases_)) return failure;
  double call_overhead_ns = 0;
  if (auto failure = call_overhead(call_overhead_ns)) return failure;
  calls = std::make_unique<TimedCalls>(timing_settings(), timing_hooks(), candidate_session_, *buffer_, layout_, guard_, variants_,
                                       call_overhead_ns, phases_);
  return std::nullopt;
}

TimingSettings WorkloadJudgement::timing_settings() const {
  return TimingSettings{options_.warmup_calls(),  options_.iterations,  options_.rechecks,     options_.unseen_calls,
                        options_.roofline_margin, options_.flush_bytes, options_.call_timeout, workload_seed_,
                        judge_.peaks_.name};
}

TimingHooks WorkloadJudgement::timing_hooks() {
  TimingHooks hooks;
  hooks.call_overhead = [this](double& call_overhead_ns) { return call_overhead(call_overhead_ns); };
  hooks.unseen_round = [this](int k, std::shared_ptr<const ReferenceRound>& round) -> std::optional<Failure> {
    if ((round = judge_.round_cache_->find(RoundCache::Kind::unseen, workload_.uuid, k))) return std::nullopt;
    if (auto failure = make_round(common::mix64(workload_seed_ ^ (0x756e7365656eULL + static_cast<std::uint64_t>(k))), round))
      return failure;
    judge_.round_cache_->offer(RoundCache::Kind::unseen, workload_.uuid, k, round);
    return std::nullopt;
  };
  hooks.call = [this](int slot, double* round_trip_ns, double* in_process_ns, double* event_ns, CallPlan plan) {
    return call(candidate_session_, slot, round_trip_ns, in_process_ns, event_ns, plan);
  };
  // With the screening's device checks a re-check brings back only the guards, checks them and compares on the device;
  // the inputs are left to the full judge, as checks_each_call leaves them.
  hooks.transfer = [this](message::Direction direction, int slot, bool inputs, bool outputs) -> std::optional<Failure> {
    if (device_checks_ && direction == message::Direction::download) return std::nullopt;
    return transfer(candidate_session_, direction, layout_, slot, inputs, outputs);
  };
  hooks.check_buffers = [this](int slot, const std::vector<std::byte>& image) -> std::optional<Failure> {
    if (device_checks_) return std::nullopt;
    if (auto failure = check_output_guards(*buffer_, layout_)) return failure;
    return check_inputs(*buffer_, layout_, slot, image);
  };
  hooks.compare = [this](const std::vector<std::vector<std::byte>>& reference) -> std::optional<Failure> {
    if (device_checks_ && device_checks_->keeps(reference)) return device_checks_->check(kPoisonFirst);
    if (device_checks_) {  // not the kept round's: the outputs come back, with their guards
      if (auto failure = transfer(candidate_session_, message::Direction::download, layout_, 0, false, true)) return failure;
      if (auto failure = check_output_guards(*buffer_, layout_)) return failure;
    }
    return compare(reference, kPoisonFirst);
  };
  hooks.entering = [this](JudgePhase phase, int round, int call_index) { at(phase, round, call_index); };
  return hooks;
}

std::optional<Failure> WorkloadJudgement::call_overhead(double& call_overhead_ns) {
  const auto deadline = options_.call_timeout;
  std::vector<double> overhead{0.0};
  // On a GPU the sample is the device's own time, so the round trip's overhead is not subtracted. On the CPU the empty
  // call runs in a worker of the judge's with no candidate loaded, so its floor is kept for the workload's next
  // candidates, which probe only twice.
  const auto known_floor = judge_.overhead_floor_ns_.find(workload_.uuid);
  const int probes = gpu_ ? 0 : known_floor != judge_.overhead_floor_ns_.end() ? 2 : std::clamp(options_.iterations, 5, kOverheadProbes);
  if (probes > 0 && !judge_.probe_session_) {
    judge_.probe_session_ = std::make_unique<WorkerSession>(
        WorkerOptions{options_.worker_executable, options_.device, (judge_.scratch_ / "probe-worker.log").string(),
                      {{"KERNELARC_WORKER_SPIN_MS", "0"}}},  // as the candidate's worker
        WorkerRole::candidate);
    judge_.probe_session_->load.reset();  // nothing but the empty entry point
  }
  for (int i = 0; i < probes; ++i) {
    message::Call null_call = call_message(layout_, 0, std::nullopt);
    null_call.null_entry = true;
    auto& probe = *judge_.probe_session_;
    if (auto failure = probe.prepare(*buffer_, generation_, binding_, deadline, Status::runtime_error)) {
      failure->reason = "the judge's probe worker failed: " + failure->reason;
      return failure;
    }
    const auto flushed = probe.worker.request(message::Flush{options_.flush_bytes}, flush_timeout(deadline));
    const auto reply = flushed.ok() ? probe.worker.request(null_call, deadline) : flushed;
    if (!reply.ok()) {
      probe.ready = false;
      return Failure{Status::runtime_error, fmt::format("the judge's probe worker failed before timing: {}", reply.description)};
    }
    if (i == 0) overhead.clear();
    overhead.push_back(static_cast<double>(reply.round_trip.count()));
  }
  // The fastest probe, not the median: the empty call's cost is a floor plus noise, and the same noise lands on the timed
  // calls. Taking off the median leaves about half the samples of a kernel shorter than that noise at 0, so an honest
  // 2x2 softmax "beat" its 3 ns speed of light in 3 runs of 8; and probes slowed by a burst of load left every sample of
  // a 2 ms kernel at 0. Taking off the floor errs on the slow side, never the impossible.
  call_overhead_ns = *std::min_element(overhead.begin(), overhead.end());
  if (!gpu_) {
    if (known_floor != judge_.overhead_floor_ns_.end()) call_overhead_ns = std::min(call_overhead_ns, known_floor->second);
    judge_.overhead_floor_ns_[workload_.uuid] = call_overhead_ns;
  }
  return std::nullopt;
}

std::optional<Failure> WorkloadJudgement::make_round(std::uint64_t round_seed, std::shared_ptr<const ReferenceRound>& made,
                                                     InputRegime regime) {
  const auto& def = definition_;
  auto fresh = std::make_shared<ReferenceRound>();
  std::vector<std::size_t> custom_inputs;  // made by the definition's custom_inputs_entrypoint, in the oracle
  json axes_and_scalars = json::object();  // what that function is given
  for (const auto& [name, value] : resolved_.axes) axes_and_scalars[name] = static_cast<std::int64_t>(value);
  try {
    const auto generating = phases_.measure("inputs");
    fresh->slot_image.resize(layout_.slot_bytes);
    // Guard bytes between and after the inputs (the inputs themselves are written below).
    write_input_guards(fresh->slot_image, layout_, guard_);
    for (std::size_t i = 0; i < def.inputs.size(); ++i) {
      const auto source_it = workload_.inputs.find(def.inputs[i].name);
      const task::InputSource source = source_it == workload_.inputs.end() ? task::InputSource{} : source_it->second;
      if (source.kind == task::InputKind::scalar) axes_and_scalars[def.inputs[i].name] = source.value;
      if (source.kind == task::InputKind::custom) {
        custom_inputs.push_back(i);
        continue;
      }
      generate_input_into(def.inputs[i], resolved_.input_shapes[i], source, common::mix64(round_seed + i),
                          fresh->slot_image.data() + layout_.input_offsets[i], regime, def.op_type);
    }
  } catch (const std::exception& error) {
    return Failure{Status::invalid_reference, fmt::format("inputs cannot be generated: {}", error.what())};
  }
  // The reference.
  if (!reference_buffer_) {
    try {
      const auto allocating = phases_.measure("buffers");
      reference_buffer_ = &judge_.workload_buffer(fmt::format("w{}-reference", workload_index_), reference_layout_.total_bytes(),
                                                  uncached_reference_buffer_);
    } catch (const std::exception& error) {
      return Failure{Status::runtime_error, fmt::format("judge could not allocate the reference's memory: {}", error.what())};
    }
  }
  write_slot(*reference_buffer_, reference_layout_, 0, fresh->slot_image);
  if (!custom_inputs.empty())
    if (auto failure = make_custom_inputs(custom_inputs, axes_and_scalars, round_seed)) return failure;
  for (const std::size_t i : custom_inputs)  // the candidate gets what the oracle wrote
    common::copy_bytes(fresh->slot_image.data() + layout_.input_offsets[i],
                       reference_buffer_->data() + reference_layout_.input_offsets[i], layout_.input_bytes[i]);
  prepare_outputs(*reference_buffer_, reference_layout_, guard_, kPoisonFirst);
  if (auto failure = call(reference_session_, 0, nullptr, nullptr)) return failure;
  if (check_output_guards(*reference_buffer_, reference_layout_))
    return Failure{Status::invalid_reference, "the reference wrote outside its outputs"};
  fresh->reference = outputs_of(*reference_buffer_, reference_layout_);
  for (std::size_t i = 0; i < def.outputs.size(); ++i)
    if (auto problem = reference_output_problem(def.outputs[i].name, def.outputs[i].dtype, resolved_.output_shapes[i],
                                                fresh->reference[i].data(), workload_.tolerance)) {
      if (regime == InputRegime::benchmark) return Failure{Status::invalid_reference, *problem};
      fresh->skipped = fmt::format("the reference cannot take them ({})", *problem);
      made = fresh;
      return std::nullopt;
    }
  bool near_zero = regime != InputRegime::benchmark;
  for (std::size_t i = 0; near_zero && i < def.outputs.size(); ++i)
    near_zero = every_value_near_zero(def.outputs[i].dtype, resolved_.output_shapes[i], fresh->reference[i].data(), workload_.tolerance.max_atol);
  if (near_zero)
    fresh->skipped = fmt::format("the reference's answer is within atol {:g} of zero everywhere, so zeros would match it too",
                                 workload_.tolerance.max_atol);
  made = fresh;
  if (regime != InputRegime::benchmark) return std::nullopt;  // the checks below are of the workload's own inputs
  if (auto failure = check_tolerance(*fresh)) return failure;
  measure_baseline();
  return std::nullopt;
}

// SOL-ExecBench's custom inputs: the reference's custom_inputs_entrypoint(axes_and_scalars, device), seeded, run by the
// oracle, which writes each tensor into the reference's slot after checking its dtype and shape.
std::optional<Failure> WorkloadJudgement::make_custom_inputs(const std::vector<std::size_t>& which, const json& axes_and_scalars,
                                                             std::uint64_t round_seed) {
  const auto& def = definition_;
  if (!judge_.oracle_ || !def.custom_inputs_entrypoint)
    return Failure{Status::invalid_reference, "custom inputs are made by the definition's custom_inputs_entrypoint in the PyTorch "
                                              "reference: judge with --reference python"};
  const auto generating = phases_.measure("inputs");
  auto& session = reference_session_;
  if (auto failure = session.prepare(*reference_buffer_, generation_, binding_, options_.call_timeout, Status::invalid_reference)) {
    failure->status = Status::invalid_reference;
    return failure;
  }
  message::CustomInputs request{*def.custom_inputs_entrypoint, axes_and_scalars, round_seed & 0x7fffffffffffffffULL, {}};
  for (const std::size_t i : which) request.tensors.push_back({def.inputs[i].name, i, reference_layout_.input_offsets[i]});
  const auto reply = session.worker.request(request, options_.call_timeout * 4);
  if (reply.ok()) return std::nullopt;
  if (reply.outcome != ReplyOutcome::refused) session.ready = false;
  return Failure{Status::invalid_reference, fmt::format("custom inputs: {}{}", reply.description, session.tail())};
}

std::optional<Failure> WorkloadJudgement::check_tolerance(const ReferenceRound& made) {
  const auto& def = definition_;
  auto& warnings_by_workload = judge_.tolerance_warnings_;
  if (!warnings_by_workload.contains(workload_.uuid)) {
    const auto checking = phases_.measure("checks");
    auto& warnings = warnings_by_workload[workload_.uuid];
    for (std::size_t i = 0; i < def.outputs.size(); ++i)
      for (const auto& accepted : degenerate_answers_accepted(def.outputs[i].name, def.outputs[i].dtype, resolved_.output_shapes[i],
                                                              made.reference[i].data(), workload_.tolerance)) {
        warnings.push_back(tolerance_warning(workload_.uuid, accepted));
        say_("  warning: " + warnings.back());
      }
  }
  if (options_.strict_tolerance && !warnings_by_workload[workload_.uuid].empty())
    return Failure{Status::invalid_reference, "strict tolerance: " + warnings_by_workload[workload_.uuid].front()};
  return std::nullopt;
}

// T_b, once per workload, on the inputs the oracle has just been given: it times its own calls (eager, then torch.compile
// where it exists), each after a flush of the judge's size; on the CPU the cost of calling an empty Python function is
// taken off, as the judge takes its per-call cost off a candidate; on a GPU each call is its kernel span. Kept in the
// cache folder, read back by later judges. A failure leaves the score unknown; it is not tried again on every later
// round (an empty source marks it).
void WorkloadJudgement::measure_baseline() {
  const auto& uuid = workload_.uuid;
  if (!options_.torch_baseline || !judge_.oracle_ || judge_.baselines_.contains(uuid) || judge_.baseline_sources_.contains(uuid)) return;
  const auto deadline = options_.call_timeout;
  if (judge_.oracle_torch_.empty())
    judge_.oracle_torch_ = reference_session_.worker.request(message::Hello{}, deadline).body.value("torch", "?");
  const BaselineKey key{judge_.task_.content_hash, uuid, options_.device, judge_.peaks_.name, judge_.oracle_torch_, options_.warmup_calls(),
                        options_.iterations, options_.flush_bytes};
  const BaselineCache cache(options_.compiler.cache_directory.empty() ? default_cache_directory() / "baselines"
                                                                       : options_.compiler.cache_directory / "baselines");
  const TorchBaseline measured = measure_torch_baseline(reference_session_, reference_call_, key, cache,
                                                        {options_.warmup_calls(), options_.iterations, options_.flush_bytes, deadline}, phases_, say_);
  if (measured.ns) judge_.baselines_[uuid] = row_.baseline_ns.emplace(*measured.ns);
  judge_.baseline_sources_[uuid] = row_.baseline_source = measured.source;  // empty after a failure: tried
}

std::optional<Failure> WorkloadJudgement::prepare(WorkerSession& session) {
  const bool is_reference = session.runs_reference();
  auto failure = [&] {
    const auto starting = phases_.measure("workers");
    return session.prepare(is_reference ? *reference_buffer_ : *buffer_, generation_, is_reference ? binding_ : candidate_binding_,
                           options_.call_timeout, is_reference ? Status::invalid_reference : Status::compile_error);
  }();
  if (failure && is_reference) failure->status = Status::invalid_reference;
  return failure;
}

std::optional<Failure> WorkloadJudgement::call(WorkerSession& session, int slot, double* round_trip_ns, double* in_process_ns,
                                               double* event_ns, CallPlan plan) {
  const auto deadline = options_.call_timeout;
  const bool is_reference = session.runs_reference();
  if (auto failure = prepare(session)) return failure;
  const Layout& layout = is_reference ? reference_layout_ : layout_;
  const auto moved = [&](std::optional<Failure> failure) {
    if (failure && is_reference) failure->status = Status::invalid_reference;
    return failure;
  };
  if (plan.device_poison) {
    plan.outputs_in = !session.outputs_placed;
    if (plan.outputs_in) {  // a "staging" phase only when something is staged: a screening reads it to see its kept inputs reused
      const auto staging = phases_.measure("staging");
      prepare_outputs(*buffer_, layout, guard_, *plan.device_poison);
    }
  }
  if (plan.inputs_in || plan.outputs_in) {
    if (auto failure = moved(transfer(session, message::Direction::upload, layout, slot, plan.inputs_in, plan.outputs_in))) return failure;
    session.outputs_placed = session.outputs_placed || plan.outputs_in;
  }
  const std::string poisoned = plan.device_poison && !plan.timed ? line(call_message(layout, slot, plan.device_poison)) : "";
  const std::string reference_line = is_reference ? line(reference_call_) : "";
  const auto& request = is_reference        ? reference_line
                        : plan.timed        ? timed_calls_[static_cast<std::size_t>(slot)]
                        : !poisoned.empty() ? poisoned
                                            : candidate_calls_[static_cast<std::size_t>(slot)];
  const auto reply = [&] {
    const auto calling = phases_.measure(is_reference ? "reference calls" : plan.timed ? "timed calls" : "calls");
    return session.worker.request_line(request, deadline);
  }();
  if (round_trip_ns) *round_trip_ns = static_cast<double>(reply.round_trip.count());
  if (auto failure = failed_call(session, reply)) return failure;
  if (in_process_ns) *in_process_ns = reply.body.value("ns", 0.0);
  if (event_ns) *event_ns = reply.body.value("events_ns", 0.0);
  session.timer = reply.body.value("timer", "");
  if (!is_reference)
    if (auto failure = work_outside_the_call(reply.body)) return failure;
  if (plan.everything_out)
    if (auto failure = moved(transfer(session, message::Direction::download, layout, slot, plan.inputs_out, true))) return failure;
  return std::nullopt;
}

std::optional<Failure> WorkloadJudgement::transfer(WorkerSession& session, message::Direction direction, const Layout& layout, int slot,
                                                   bool inputs, bool outputs) {
  if (!session.on_gpu) return std::nullopt;
  const auto moving = phases_.measure("transfers");
  message::Transfer request{direction, {}};
  if (inputs) request.ranges.push_back({static_cast<std::size_t>(slot) * layout.slot_bytes, layout.slot_bytes});
  if (outputs) request.ranges.push_back({layout.output_base(), layout.output_region_bytes});
  const auto reply = session.worker.request(request, options_.call_timeout);
  if (reply.ok()) return std::nullopt;
  session.ready = false;
  return Failure{reply.outcome == ReplyOutcome::timed_out ? Status::timeout : Status::runtime_error,
                 fmt::format("{} failed: {}{}", direction == message::Direction::upload ? "upload" : "download", reply.description, session.tail())};
}

std::optional<Failure> WorkloadJudgement::check_output_guards(const SharedBuffer& buffer, const Layout& layout) {
  const auto checking = phases_.measure("checks");
  return judge::check_output_guards(buffer, layout, guard_, definition_, resolved_);
}

std::optional<Failure> WorkloadJudgement::check_inputs(const SharedBuffer& buffer, const Layout& layout, int slot,
                                                       const std::vector<std::byte>& image) {
  const auto checking = phases_.measure("checks");
  return judge::check_inputs(buffer, layout, slot, image, definition_);
}

std::optional<Failure> WorkloadJudgement::compare(const std::vector<std::vector<std::byte>>& reference, std::optional<std::byte> poison) {
  const auto checking = phases_.measure("checks");
  return check_outputs(*buffer_, layout_, definition_, resolved_, reference, workload_.tolerance, poison);
}

}  // namespace kernelarc::judge
