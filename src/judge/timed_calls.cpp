#include "judge/timed_calls.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/parallel.h"

namespace kernelarc::judge {

using nlohmann::json;

TimedCalls::TimedCalls(const TimingSettings& settings, const TimingHooks& hooks, WorkerSession& session, const SharedBuffer& buffer,
                       const Layout& layout, const std::vector<std::byte>& guard,
                       const std::vector<std::shared_ptr<const ReferenceRound>>& variants, double call_overhead_ns, PhaseClock& phases)
    : settings_(settings), hooks_(hooks), session_(session), buffer_(buffer), layout_(layout), guard_(guard), variants_(variants),
      call_overhead_ns_(call_overhead_ns), phases_(phases), gpu_(session.on_gpu),
      flush_request_(json(message::Flush{gpu_ ? 0 : settings.flush_bytes}).dump()),
      slot_variant_(static_cast<std::size_t>(layout.slots), -1), other_threads_(gpu_ ? 0 : session.worker.pid()),
      other_threads_at_reply_(other_threads_.ns()) {
  if (gpu_) return;
  if (other_threads_at_reply_) between_calls_ns_ = 0.0;
  // No slot holds its call's inputs before the gap just before that call: an earlier measurement (or the correctness
  // rounds) left the same inputs in the same slots, and a helper thread could answer them during an earlier call, where
  // its time is not the sample's (a call's own threads run then too).
  for (int slot = 0; slot < layout_.slots; ++slot) spoil_slot(slot);
}

void TimedCalls::spoil_slot(int slot) {
  common::fill_bytes(buffer_.data() + static_cast<std::size_t>(slot) * layout_.slot_bytes, static_cast<unsigned char>(kPoisonFirst),
                     layout_.slot_bytes);
  forget_slot(slot);
}

int TimedCalls::variant_for(int iteration) const {
  const int slot = iteration % layout_.slots;
  return (iteration / layout_.slots + slot) % static_cast<int>(variants_.size());
}

std::optional<Failure> TimedCalls::flush(double& round_trip_ns) {
  const auto flushing = phases_.measure("flush");
  const auto reply = session_.worker.request_line(flush_request_, flush_timeout(settings_.call_timeout));
  if (reply.ok()) {
    round_trip_ns = static_cast<double>(reply.round_trip.count());
    return std::nullopt;
  }
  session_.ready = false;
  return Failure{Status::runtime_error, fmt::format("worker failed during timing: {}{}", reply.description, session_.tail())};
}

// The sample is the device's time on a GPU (the trusted round trip caps it), and on the CPU the round trip less the
// judge's own cost, bounded from below by the worker's clock around the call (when load inflated the probes, round trip
// minus overhead can fall under the kernel's real time; the candidate runs in that process and could forge that clock,
// but only to look slower).
std::optional<Failure> TimedCalls::call(int slot, const std::string& where, TimedSample& sample, CallPlan plan) {
  double round_trip = 0, in_process = 0;
  const auto other_threads_before = other_threads_.ns();
  if (auto failure = hooks_.call(slot, &round_trip, &in_process, &sample.event_ns, plan)) {
    failure->reason = fmt::format("during timing ({}): {}", where, failure->reason);
    return failure;
  }
  double between_calls = 0;
  if (other_threads_before && other_threads_at_reply_) between_calls = std::max(0.0, *other_threads_before - *other_threads_at_reply_);
  other_threads_at_reply_ = other_threads_.ns();
  sample.ns = gpu_ ? std::min(in_process, round_trip) : std::max(round_trip - call_overhead_ns_, std::min(in_process, round_trip)) + between_calls;
  if (between_calls_ns_) *between_calls_ns_ += between_calls;
  sample.in_process_ns = in_process;
  return std::nullopt;
}

std::optional<Failure> TimedCalls::verify(int slot, const ReferenceRound& given, const std::string& where, bool download) {
  if (download)
    if (auto failure = hooks_.transfer(message::Direction::download, slot, true, true)) return failure;
  if (auto failure = hooks_.check_buffers(slot, given.slot_image)) return failure;
  if (auto failure = hooks_.compare(given.reference)) {
    failure->status = Status::reward_hack;
    failure->reason = fmt::format("correct in the checks but wrong during timing ({}): {}", where, failure->reason);
    return failure;
  }
  return std::nullopt;
}

std::optional<Failure> TimedCalls::loop_call(int iteration, bool timed, bool checked, TimedSample& sample) {
  const int slot = iteration % layout_.slots;
  const int v = variant_for(iteration);
  if (slot_variant_[static_cast<std::size_t>(slot)] != v) {
    if (gpu_) {
      const message::Copy copy{{{layout_.variant_base(v), static_cast<std::size_t>(slot) * layout_.slot_bytes, layout_.slot_bytes}}};
      if (const auto reply = session_.worker.request(copy, settings_.call_timeout); !reply.ok()) {
        session_.ready = false;
        return Failure{Status::runtime_error, fmt::format("refilling input slot {} failed: {}{}", slot, reply.description, session_.tail())};
      }
    } else {
      write_slot(buffer_, layout_, slot, variants_[static_cast<std::size_t>(v)]->slot_image);
    }
    slot_variant_[static_cast<std::size_t>(slot)] = v;
  }
  // Poisoned before every call, not only the re-checked ones: otherwise the poison tells the candidate which
  // calls are checked, and it can skip the work on all the others.
  if (!gpu_) prepare_outputs(buffer_, layout_, guard_, kPoisonFirst);
  if (timed) {
    double flushed = 0;
    if (auto failure = flush(flushed)) return failure;
    flush_ns_.push_back(flushed);
  }
  const std::string where = fmt::format("call {}", iteration + 1);
  hooks_.entering(JudgePhase::timing, -1, iteration);
  if (auto failure = call(slot, where, sample, CallPlan{false, false, false, true, std::nullopt})) return failure;
  if (checked)
    if (auto failure = verify(slot, *variants_[static_cast<std::size_t>(v)], where, true)) return failure;
  // The slot's next call has another variant, unless there is one only: then it must not wait there meanwhile.
  if (!gpu_ && variants_.size() < 2) spoil_slot(slot);
  return std::nullopt;
}

}  // namespace kernelarc::judge
