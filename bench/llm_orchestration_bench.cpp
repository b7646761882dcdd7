// What KernelArc itself adds to each language-model proposal, the model's own latency excluded: the prompt, the HTTP
// round trip on loopback, reading the answer (BM_LlmProposal, against a server that answers at once), and the run's
// loop around it: picking the answer up, judging (scripted: no time), recording in SQLite (BM_RunLoopPerProposal).
// BM_LlmTeam: 16 agents asking a server that takes 20 ms per answer: wall time over 20 ms per round shows whether
// they wait on each other. Run: build/bench/kernelarc_llm_bench (figures in docs/BENCHMARKS.md).
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "brains/llm_brain.h"
#include "judge/build_cache.h"
#include "engine/run.h"
#include "llm/fake_model_server.h"
#include "store/store.h"
#include "task/task.h"

namespace kernelarc {
namespace {

namespace fs = std::filesystem;

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

const task::Task& softmax() {
  static const task::Task task = task::load_task(fs::path(KERNELARC_TASKS) / "softmax");
  return task;
}

const task::Template& cpu_template() {
  for (const auto& t : softmax().definition.templates)
    if (t.name == "rows") return t;
  throw std::runtime_error("no rows template");
}

// A context as a run gives it: the template's source, 14 workloads' times, a full board's 32 entries, feedback.
engine::ProposalContext typical_context() {
  engine::ProposalContext context;
  context.base = engine::default_knobs(cpu_template());
  context.base_source = judge::read_text_file(cpu_template().source);
  for (int i = 0; i < 14; ++i) context.base_times.push_back({fmt::format("softmax-{}", i), "batch_size=64 hidden=4096", 12000.0 + i, 900.0});
  for (int i = 0; i < 32; ++i)
    context.evidence.push_back({"softmax", "softmax", "all", "memory", fmt::format("VEC 1 -> {}", i), "backup", 0.01 * i, "correct but not faster", i});
  context.feedback = "Your last candidate (VEC 1 -> 4): backup.\nIts geometric-mean time 11.2 us against the incumbent's 11.0 us (+1.8%).";
  return context;
}

std::unique_ptr<brains::LlmBrain> brain_for(testing::FakeModelServer& server, const std::string& protocol) {
  llm::EndpointConfig endpoint;
  endpoint.name = protocol;
  endpoint.protocol = protocol;
  endpoint.base_url = protocol == "openai" ? server.openai_base_url() : server.anthropic_base_url();
  endpoint.model = "bench";
  endpoint.max_concurrency = 64;
  auto prompts = std::make_shared<const llm::PromptLibrary>(llm::PromptLibrary::default_directory());
  return std::make_unique<brains::LlmBrain>(cpu_template(), "memory", std::shared_ptr<llm::ChatClient>(llm::make_client(endpoint)), prompts,
                                            brains::task_brief(softmax(), cpu_template(), "bench device"), 2);
}

testing::ScriptedAnswer knob_answer(double delay_s) {
  testing::ScriptedAnswer a;
  a.text = "Hypothesis: four lanes\nKnobs: {\"VEC\": 4}\n";
  a.delay_s = delay_s;
  return a;
}

void BM_LlmProposal(benchmark::State& state, const std::string& protocol) {
  testing::FakeModelServer server;
  server.set_fallback([](const testing::SeenRequest&) { return knob_answer(0); });
  auto brain = brain_for(server, protocol);
  const auto context = typical_context();
  const auto started = std::chrono::steady_clock::now();
  for (auto _ : state) benchmark::DoNotOptimize(brain->propose(context));
  state.counters["ms_per_proposal"] = milliseconds_since(started) / static_cast<double>(state.iterations());
}
BENCHMARK_CAPTURE(BM_LlmProposal, openai, std::string("openai"))->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_LlmProposal, anthropic, std::string("anthropic"))->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LlmTeam(benchmark::State& state) {
  const int agents = static_cast<int>(state.range(0));
  constexpr double kModelSeconds = 0.020;
  constexpr int kRounds = 5;
  testing::FakeModelServer server;
  server.set_fallback([](const testing::SeenRequest&) { return knob_answer(kModelSeconds); });
  std::vector<std::unique_ptr<brains::LlmBrain>> team;
  for (int i = 0; i < agents; ++i) team.push_back(brain_for(server, "openai"));
  const auto context = typical_context();
  const auto started = std::chrono::steady_clock::now();
  for (auto _ : state) {
    std::vector<std::thread> threads;
    for (auto& brain : team)
      threads.emplace_back([&] {
        for (int r = 0; r < kRounds; ++r) benchmark::DoNotOptimize(brain->propose(context));
      });
    for (auto& t : threads) t.join();
  }
  // 1.0: every agent's round took one model latency, as if alone; `agents`: they took turns.
  state.counters["wall_over_model_time"] = milliseconds_since(started) / static_cast<double>(state.iterations()) / (kModelSeconds * kRounds * 1e3);
  state.counters["most_in_flight"] = server.max_in_flight();
}
BENCHMARK(BM_LlmTeam)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// An asynchronous brain that answers at once with a new source each time: the run's loop is all that is measured.
class InstantBrain : public engine::Brain {
 public:
  std::optional<engine::Proposal> propose(const engine::ProposalContext& context) override {
    return engine::Proposal{context.base, "instant", fmt::format("// {}\n{}", ++counter_, context.base_source)};
  }
  bool asynchronous() const override { return true; }
  engine::ModelUsage take_usage() override { return {1, 0, 1000, 200, 0.001}; }

 private:
  static inline std::atomic<int> counter_{0};
};

judge::CandidateVerdict instant_verdict(const judge::CandidateSource& source) {
  judge::CandidateVerdict verdict;
  verdict.name = source.name;
  verdict.build.ok = true;
  judge::WorkloadVerdict row;
  row.uuid = "w";
  judge::TimingStats timing;
  timing.median_ns = 1000;
  timing.q1_ns = 990;
  timing.q3_ns = 1010;
  row.timing = timing;
  verdict.workloads.push_back(row);
  return verdict;
}

void BM_RunLoopPerProposal(benchmark::State& state) {
  std::string pattern = (fs::temp_directory_path() / "kernelarc-llm-bench-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp");
  constexpr int kBudget = 200;
  engine::RunOptions options;
  options.agents = static_cast<int>(state.range(0));
  options.budget = kBudget;
  options.template_name = "rows";
  int runs = 0;
  const auto started = std::chrono::steady_clock::now();
  for (auto _ : state) {
    auto store = store::Store::open(fs::path(pattern) / fmt::format("runs-{}.db", ++runs));
    engine::Run run(softmax(), options, instant_verdict, [](const task::Template&, const std::string&, std::uint64_t) { return std::make_unique<InstantBrain>(); }, store);
    benchmark::DoNotOptimize(run.execute());
  }
  state.counters["ms_per_proposal"] = milliseconds_since(started) / static_cast<double>(state.iterations() * kBudget);
  fs::remove_all(pattern);
}
BENCHMARK(BM_RunLoopPerProposal)->Arg(4)->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

}  // namespace
}  // namespace kernelarc

BENCHMARK_MAIN();
