// The multi-fidelity search and the paired confirmation (issue 25, items 2 and 4) against scripted measurements: proposals
// are screened, a round's fastest screened again longer, the fastest of those judged in full, and a candidate that
// looks faster is promoted only if it wins when timed beside the incumbent. Nothing is compiled.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <random>
#include <mutex>
#include <set>
#include <thread>

#include "engine/finalists.h"
#include "engine/journal.h"
#include "scripted_run.h"

namespace kernelarc::engine {
namespace {

using ::testing::HasSubstr;

// A screening that agrees with a judge's verdict: the same times (scaled, as a lighter protocol may read), the same wrong one.
judge::Screening screening_of(const judge::CandidateSource& source, const judge::CandidateVerdict& verdict, double scale = 0.9) {
  judge::Screening screening;
  screening.name = source.name;
  screening.knobs = source.knobs;
  screening.build.ok = true;
  screening.outcome = judge::ScreeningOutcome::measured;
  screening.phase_seconds = {{"timing", 0.5}};
  for (const auto& row : verdict.workloads) {
    judge::ScreenedWorkload screened;
    screened.uuid = row.uuid;
    screened.status = row.status;
    screened.reason = row.reason;
    if (row.timing) {
      screened.timing = row.timing;
      screened.timing->median_ns *= scale;
    } else {
      screening.outcome = judge::ScreeningOutcome::wrong;
    }
    screening.workloads.push_back(screened);
  }
  return screening;
}

// A screening that agrees with the scripted judge.
judge::Screening screened_like_the_judge(const judge::CandidateSource& source, double scale = 0.9) {
  return screening_of(source, scripted(source), scale);
}

// A space of six knobs of four values each (4096 configurations) whose time is a product of one factor per knob: each
// knob's last value is the best, and the start (every knob at its first value) is the slowest.
double wide_ns(const Knobs& knobs) {
  double ns = 1000;
  for (const auto& [name, value] : knobs) ns *= 1.0 - 0.08 * static_cast<double>(value);
  return ns;
}
judge::CandidateVerdict wide_verdict(const judge::CandidateSource& source) {
  judge::CandidateVerdict verdict;
  verdict.name = source.name;
  verdict.build.ok = true;
  judge::WorkloadVerdict row;
  row.uuid = "w";
  judge::TimingStats timing;
  timing.median_ns = wide_ns(source.knobs);
  timing.q1_ns = timing.median_ns * 0.995;
  timing.q3_ns = timing.median_ns * 1.005;
  row.timing = timing;
  verdict.workloads.push_back(row);
  return verdict;
}

double scripted_ns(const judge::CandidateSource& source) { return scripted(source).workloads.front().timing->median_ns; }

// Pairs whose ratio is the two times' ratio, each time with a little seeded noise: a real difference.
PairedTimes paired_times(double incumbent_ns, double challenger_ns) {
  std::mt19937_64 random(7);
  std::normal_distribution<double> noise(1.0, 0.01);
  PairedTimes times;
  for (int i = 0; i < 20; ++i) times.samples.push_back({incumbent_ns * noise(random), challenger_ns * noise(random)});
  return times;
}
PairedTimes paired_like_the_judge(const judge::CandidateSource& incumbent, const judge::CandidateSource& challenger) {
  return paired_times(scripted_ns(incumbent), scripted_ns(challenger));
}
PairedTimes paired_in_the_wide_space(const judge::CandidateSource& incumbent, const judge::CandidateSource& challenger) {
  return paired_times(wide_ns(incumbent.knobs), wide_ns(challenger.knobs));
}

class ScreeningRunTest : public RunTest {
 protected:
  RunSummary screened_run(RunOptions options, JudgeFunction judge, ScreenFunction screen, PairedFunction paired = paired_like_the_judge) {
    auto store = store::Store::open(dir_ / "runs.db");
    engine::Run optimisation(task_, options, std::move(judge), brains::brain_factory("search"), store);
    optimisation.screen_with(std::move(screen));
    if (paired) optimisation.confirm_paired(std::move(paired));
    return optimisation.execute();
  }
  std::vector<journal::Event> events(std::int64_t run_id) {
    auto store = store::Store::open(dir_ / "runs.db");
    return journal::read(store, run_id);
  }
  static RunOptions two_agents() {
    RunOptions options;
    options.agents = 2;
    options.screen_round = 4;
    options.scouts = 0;  // the six configurations of the scripted space would all be scouted in the first round
    return options;
  }
  void use_wide_space() {
    auto& knobs = task_.definition.templates.front().knobs;
    knobs.clear();
    for (int i = 0; i < 6; ++i) knobs.push_back({fmt::format("K{}", i), {0, 1, 2, 3}, i % 2 ? "tiling" : "memory", ""});
  }
  RunSummary wide_run(RunOptions options) {
    return screened_run(options, wide_verdict, [](const judge::CandidateSource& source, int) { return screening_of(source, wide_verdict(source)); },
                        paired_in_the_wide_space);
  }
};

TEST(FinalistsTest, TheFastestThatBeatTheIncumbentGoOnFastestFirst) {
  const std::vector<std::optional<double>> times{90.0, std::nullopt, 50.0, 99.5, 120.0, 70.0};
  EXPECT_EQ(fastest_beating(times, 100.0, 0.01, 8), (std::vector<std::size_t>{2, 5, 0})) << "99.5 is inside the 1% step";
  EXPECT_EQ(fastest_beating(times, 100.0, 0.01, 2), (std::vector<std::size_t>{2, 5}));
  EXPECT_EQ(fastest_beating(times, 40.0, 0.01, 8), std::vector<std::size_t>{}) << "none beats a faster incumbent";
  EXPECT_EQ(fastest_beating(times, std::nullopt, 0.01, 8).size(), 5u) << "without the incumbent's screening every measured one";
  EXPECT_EQ(survivors_of(16, 0.25), 4u);
  EXPECT_EQ(survivors_of(3, 0.25), 1u);
}

TEST(FinalistsTest, TheFasterMovesAreMadeTogetherWhereTheyTouchOtherKnobs) {
  const Knobs base{{"A", 1}, {"B", 1}, {"C", 1}};
  EXPECT_EQ(combined_moves(base, {{{"A", 2}, {"B", 1}, {"C", 1}}, {{"A", 1}, {"B", 3}, {"C", 1}}}), (Knobs{{"A", 2}, {"B", 3}, {"C", 1}}));
  // A slower move on a knob a faster one changed stays out; so does a move that changes no knob.
  EXPECT_EQ(combined_moves(base, {{{"A", 2}, {"B", 1}, {"C", 1}}, {{"A", 4}, {"B", 1}, {"C", 2}}, base, {{"A", 1}, {"B", 2}, {"C", 1}}}),
            (Knobs{{"A", 2}, {"B", 2}, {"C", 1}}));
  EXPECT_FALSE(combined_moves(base, {{{"A", 2}, {"B", 1}, {"C", 1}}})) << "one move is no combination";
  EXPECT_FALSE(combined_moves(base, {{{"A", 2}, {"B", 1}, {"C", 1}}, {{"A", 3}, {"B", 1}, {"C", 1}}})) << "both on one knob";
  EXPECT_FALSE(combined_moves(base, {{{"A", 2}, {"B", 1}, {"C", 1}}, {{"A", 1}, {"B", 2}, {"C", 1}, {"@source", 7}}}))
      << "a candidate with its own source is no knob move";
}

// A round that finds two faster moves on different knobs screens them together in the same round: the scripted space's
// optimum (ROWS_PER_STEP=4 with ONE_PASS=1) is two moves from the start, and the search agents move one knob at a time.
TEST_F(ScreeningRunTest, TheRoundsFasterMovesAreScreenedTogetherInTheSameRound) {
  auto options = two_agents();
  options.screen_round = 3;  // the start's three neighbours: ROWS_PER_STEP=2, ROWS_PER_STEP=4, ONE_PASS=1
  const auto summary = screened_run(options, [](const judge::CandidateSource& source) { return scripted(source, 0.005); },
                                    [](const judge::CandidateSource& source, int) { return screened_like_the_judge(source); });
  ASSERT_TRUE(summary.best);
  const Knobs optimum{{"ONE_PASS", 1}, {"ROWS_PER_STEP", 4}};
  EXPECT_EQ(summary.best_knobs, optimum);
  bool combined = false, judged_in_the_first_round = false;
  for (const auto& event : events(summary.run_id)) {
    if (std::holds_alternative<journal::RoundClosed>(event)) break;
    if (const auto* e = std::get_if<journal::Screened>(&event); e && e->agent == "combine" && e->fidelity == 0) {
      combined = true;
      EXPECT_EQ(e->knobs, optimum);
      EXPECT_THAT(e->hypothesis, HasSubstr("ONE_PASS=1 ROWS_PER_STEP=4"));
    }
    if (const auto* e = std::get_if<journal::Judged>(&event); e && e->knobs == optimum) judged_in_the_first_round = true;
  }
  EXPECT_TRUE(combined) << "the first round's faster moves were not screened together";
  EXPECT_TRUE(judged_in_the_first_round) << "the optimum was not judged before the first round closed";
}

// Moves each too small to promote alone (0.3% a knob against the 1% step) add up when made together: the round's
// combined moves take every move that screened faster at all, and the combination, 1.8% faster, goes on to the full
// judge and is promoted in the first round, where no single move could be.
TEST_F(ScreeningRunTest, MovesTooSmallToPromoteAloneArePromotedTogether) {
  use_wide_space();
  const auto small_ns = [](const Knobs& knobs) {
    double ns = 1000;
    for (const auto& [name, value] : knobs) ns *= value == 1 ? 0.997 : 1.0 + 0.05 * value;  // only each knob's value 1 helps
    return ns;
  };
  const auto verdict_of = [small_ns](const judge::CandidateSource& source) {
    auto verdict = wide_verdict(source);
    auto& timing = *verdict.workloads.front().timing;
    timing.median_ns = small_ns(source.knobs);
    timing.q1_ns = timing.median_ns * 0.999;
    timing.q3_ns = timing.median_ns * 1.001;
    return verdict;
  };
  const auto quiet_pairs = [small_ns](const judge::CandidateSource& incumbent, const judge::CandidateSource& challenger) {
    PairedTimes times;  // 0.1% apart at most: the comparison sees the 1.8%
    for (int i = 0; i < 20; ++i)
      times.samples.push_back({small_ns(incumbent.knobs) * (1 + 0.001 * (i % 2)), small_ns(challenger.knobs) * (1 + 0.001 * (i % 3 == 0))});
    return times;
  };
  RunOptions options = two_agents();
  options.screen_round = 18;  // the start's 18 neighbours in one round
  options.budget = 2;
  const auto summary = screened_run(
      options, verdict_of, [verdict_of](const judge::CandidateSource& source, int) { return screening_of(source, verdict_of(source)); },
      quiet_pairs);
  bool combined_judged = false;
  for (const auto& event : events(summary.run_id)) {
    if (std::holds_alternative<journal::RoundClosed>(event)) break;
    if (const auto* e = std::get_if<journal::Judged>(&event); e && e->agent == "combine") combined_judged = true;
  }
  EXPECT_TRUE(combined_judged) << "the first round's small moves were not judged together";
  EXPECT_EQ(summary.promotions, 1);
  ASSERT_TRUE(summary.best);
  EXPECT_LT(summary.best->time_ns, 1000 * 0.985);
}

// Rounds that close moments apart (late in a run, one screening each) rank against the incumbent's screening of the
// first of them, not a new one each: the incumbent is screened again only once it changed or that screening got old.
TEST_F(ScreeningRunTest, RoundsMomentsApartShareTheIncumbentsScreening) {
  auto options = two_agents();
  options.screen_round = 1;
  const auto summary = screened_run(options, [](const judge::CandidateSource& source) { return scripted(source, 0.005); },
                                    [](const judge::CandidateSource& source, int) { return screened_like_the_judge(source); });
  int rounds = 0, references = 0;
  for (const auto& event : events(summary.run_id)) {
    if (std::holds_alternative<journal::RoundClosed>(event)) ++rounds;
    if (const auto* e = std::get_if<journal::Screened>(&event); e && e->agent == "incumbent" && e->fidelity == 0) ++references;
    if (const auto* e = std::get_if<journal::Screened>(&event); e && e->agent != "incumbent" && e->fidelity == 0)
      EXPECT_TRUE(e->incumbent_ns) << "every proposal is ranked against a screening of the incumbent";
  }
  EXPECT_GE(rounds, 4);
  EXPECT_LE(references, summary.promotions + 1) << "the incumbent was screened again for rounds " << rounds;
}

TEST_F(ScreeningRunTest, ScreeningFindsTheFastestAndJudgesOnlyFinalistsInFull) {
  int screenings = 0;
  const auto summary = screened_run(
      two_agents(), [](const judge::CandidateSource& source) { return scripted(source, 0.005); },
      [&](const judge::CandidateSource& source, int) {
        ++screenings;
        return screened_like_the_judge(source);
      });
  ASSERT_TRUE(summary.best);
  EXPECT_EQ(summary.best_knobs, (Knobs{{"ONE_PASS", 1}, {"ROWS_PER_STEP", 4}}));
  EXPECT_EQ(summary.screened, screenings);
  EXPECT_LT(summary.judged, 6) << "the wrong configuration and the slow ones are screened out, never judged in full";
  int proposals = 0, wrong = 0;
  for (const auto& event : events(summary.run_id))
    if (const auto* e = std::get_if<journal::Screened>(&event); e && e->agent != "incumbent" && e->fidelity == 0) {
      ++proposals;
      if (e->outcome == "wrong") {
        ++wrong;
        EXPECT_FALSE(e->time_ns);
        EXPECT_THAT(e->reason, HasSubstr("INCORRECT_NUMERICAL"));
      } else {
        ASSERT_TRUE(e->time_ns);
        EXPECT_EQ(e->workload_ns.size(), 1u);
        EXPECT_TRUE(e->incumbent_ns) << "ranked against the incumbent's screening of the same round";
        EXPECT_EQ(e->phase_seconds, (std::map<std::string, double>{{"timing", 0.5}})) << "where its time went, read back";
      }
    }
  EXPECT_EQ(proposals, 5) << "every configuration but the start, screened once";
  EXPECT_EQ(wrong, 1);
  auto store = store::Store::open(dir_ / "runs.db");
  int screened_conclusions = 0;
  for (const auto& c : store.conclusions("softmax")) screened_conclusions += c.outcome.rfind("screened", 0) == 0;
  EXPECT_GE(screened_conclusions, 3) << "screenings leave conclusions on the board";
}

// With a compile pool each agent keeps several proposals queued, so builds run ahead of the screenings (on an H100 a
// screening waited about 0.6 s for its build with one each), and none is screened before its build is done.
TEST_F(ScreeningRunTest, ProposalsAreBuiltSeveralAheadOfTheScreening) {
  std::mutex mutex;
  std::set<std::string> built, screened, screened_unbuilt;
  std::size_t most_ahead = 0;
  std::string start;  // judged first, by the judge's own build
  auto store = store::Store::open(dir_ / "runs.db");
  engine::Run optimisation(
      task_, two_agents(),
      [&](const judge::CandidateSource& source) {
        std::lock_guard lock(mutex);
        if (start.empty()) start = source.name;
        return scripted(source, 0.005);
      },
      brains::brain_factory("search"), store);
  optimisation.screen_with([&](const judge::CandidateSource& source, int) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // a screening takes longer than a build here
    std::lock_guard lock(mutex);
    if (source.name != start && !built.count(source.name)) screened_unbuilt.insert(source.name);
    screened.insert(source.name);
    std::size_t ahead = 0;
    for (const auto& name : built) ahead += screened.count(name) ? 0 : 1;
    most_ahead = std::max(most_ahead, ahead);
    return screened_like_the_judge(source);
  });
  optimisation.build_ahead(
      [&](const judge::CandidateSource& source) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        std::lock_guard lock(mutex);
        built.insert(source.name);
      },
      3);
  const auto summary = optimisation.execute();
  EXPECT_GE(summary.screened, 5);
  EXPECT_GE(most_ahead, 3u) << "built but not yet screened, at most: one per agent is what the queue held before";
  EXPECT_TRUE(screened_unbuilt.empty()) << "screened before its build finished: " << *screened_unbuilt.begin();
}

TEST_F(ScreeningRunTest, ACandidateThatScreensFastButFailsTheFullJudgeIsNeverPromoted) {
  const Knobs cheat{{"ONE_PASS", 0}, {"ROWS_PER_STEP", 4}};
  const auto summary = screened_run(
      two_agents(),
      [&](const judge::CandidateSource& source) {
        auto verdict = scripted(source, 0.005);
        if (source.knobs == cheat) {  // right on the screening's one round, wrong on the full judge's later ones
          verdict.workloads.front().status = judge::Status::incorrect_numerical;
          verdict.workloads.front().reason = "output 'y': 1 of 10 values outside tolerance";
          verdict.workloads.front().timing.reset();
        }
        return verdict;
      },
      [&](const judge::CandidateSource& source, int) {
        auto screening = screened_like_the_judge(source);
        if (source.knobs == cheat && screening.workloads.front().timing) screening.workloads.front().timing->median_ns = 1;
        return screening;
      });
  ASSERT_TRUE(summary.best);
  EXPECT_NE(summary.best_knobs, cheat);
  bool judged_cheat = false;
  for (const auto& event : events(summary.run_id))
    if (const auto* e = std::get_if<journal::Judged>(&event); e && e->knobs == cheat) {
      judged_cheat = true;
      EXPECT_EQ(e->decision, Decision::rejected);
    }
  EXPECT_TRUE(judged_cheat) << "the fastest screening goes on to the full judge, which decides";
}

TEST_F(ScreeningRunTest, AWinThatIsOnlyNoiseWhenTimedBesideTheIncumbentIsNotPromoted) {
  // The full judge says every other configuration is faster; timed side by side they are all the same: noise.
  const auto noise_only = [](const judge::CandidateSource&, const judge::CandidateSource&) {
    std::mt19937_64 random(3);
    std::normal_distribution<double> noise(1000.0, 20.0);
    PairedTimes times;
    for (int i = 0; i < 30; ++i) times.samples.push_back({noise(random), noise(random)});
    return times;
  };
  RunOptions options = two_agents();
  options.screening = false;  // every proposal judged in full: the paired confirmation alone decides
  const auto summary = screened_run(options, [](const judge::CandidateSource& source) { return scripted(source, 0.005); }, {}, noise_only);
  EXPECT_EQ(summary.promotions, 0);
  ASSERT_TRUE(summary.best);
  EXPECT_EQ(summary.best_candidate, summary.start_candidate);
  int lost = 0;
  for (const auto& event : events(summary.run_id))
    if (const auto* e = std::get_if<journal::Judged>(&event); e && e->paired) {
      ++lost;
      EXPECT_EQ(e->paired->outcome, PairedOutcome::lost);
      EXPECT_EQ(e->decision, Decision::backup);
      EXPECT_EQ(e->paired->result.pairs, 30u);
    }
  EXPECT_GE(lost, 3) << "each configuration the full judge called faster was timed beside the incumbent";
}

TEST_F(ScreeningRunTest, TheFinalSpeedUpComesFromTheStartAndTheBestTimedSideBySide) {
  RunOptions options = two_agents();
  const auto summary = screened_run(
      options, [](const judge::CandidateSource& source) { return scripted(source, 0.005); },
      [](const judge::CandidateSource& source, int) { return screened_like_the_judge(source); });
  ASSERT_TRUE(summary.best);
  ASSERT_TRUE(summary.start_vs_best);
  EXPECT_NEAR(summary.start_vs_best->ratio, 200.0 / 1000.0, 0.01);
  EXPECT_NEAR(*summary.speed_up(), 5.0, 0.25);
  bool recorded = false;
  for (const auto& event : events(summary.run_id))
    if (const auto* e = std::get_if<journal::StartPaired>(&event)) {
      recorded = true;
      EXPECT_EQ(e->start, summary.start_candidate);
      EXPECT_EQ(e->best, summary.best_candidate);
      EXPECT_EQ(e->paired.outcome, PairedOutcome::won);
    }
  EXPECT_TRUE(recorded);
  auto store = store::Store::open(dir_ / "runs.db");
  const auto finished = nlohmann::json::parse(store.run(summary.run_id)->summary_json);
  EXPECT_NEAR(finished.at("speedup").get<double>(), 5.0, 0.25);
}

// No promotion ever (every paired comparison is noise): the agents go on from the fastest screened configurations, and
// reach the ones two steps from the start that no neighbour of the incumbent or backup is.
TEST_F(ScreeningRunTest, AgentsSearchOnFromTheFastestScreenedConfigurations) {
  const auto noise_only = [](const judge::CandidateSource&, const judge::CandidateSource&) {
    PairedTimes times;
    for (int i = 0; i < 12; ++i) times.samples.push_back({1000.0 + (i % 3), 1000.0 + (i % 2)});
    return times;
  };
  RunOptions options = two_agents();
  options.specialise = 1;
  const auto summary = screened_run(
      options, [](const judge::CandidateSource& source) { return scripted(source, 0.005); },
      [](const judge::CandidateSource& source, int) { return screened_like_the_judge(source); }, noise_only);
  EXPECT_EQ(summary.promotions, 0);
  std::set<Knobs> screened;
  bool from_screened = false;
  for (const auto& event : events(summary.run_id))
    if (const auto* e = std::get_if<journal::Screened>(&event); e && e->agent != "incumbent") {
      screened.insert(e->knobs);
      from_screened |= e->hypothesis.find("[from a configuration screened at") != std::string::npos;
    }
  EXPECT_TRUE(from_screened);
  EXPECT_TRUE(screened.count(Knobs{{"ONE_PASS", 1}, {"ROWS_PER_STEP", 4}})) << "two steps from the start, one from a screened configuration";
}

// Within one round, before the full judge has moved the incumbent, the agents go on from the fastest screening: the
// round reaches configurations two and more steps from the start. The start has 18 neighbours, more than the round's 16
// screenings, so a search from the incumbent alone screens only single steps in its first round.
TEST_F(ScreeningRunTest, AgentsWalkOnFromTheFastestScreeningBeforeTheFullJudgeMovesTheIncumbent) {
  use_wide_space();
  RunOptions options = two_agents();
  options.screen_round = 16;
  options.budget = 6;
  const auto summary = wide_run(options);
  const Knobs start{{"K0", 0}, {"K1", 0}, {"K2", 0}, {"K3", 0}, {"K4", 0}, {"K5", 0}};
  int walked = 0;
  for (const auto& event : events(summary.run_id)) {
    if (std::holds_alternative<journal::RoundClosed>(event)) break;
    const auto* e = std::get_if<journal::Screened>(&event);
    if (!e || e->fidelity != 0 || !e->agent.starts_with("agent-")) continue;
    int steps = 0;
    for (const auto& [name, value] : e->knobs) steps += value != start.at(name);
    if (steps < 2) continue;
    ++walked;
    EXPECT_THAT(e->hypothesis, HasSubstr("[from the fastest screening since the incumbent's promotion"));
  }
  EXPECT_GE(walked, 4) << "the first round's proposals were all single steps from the start";
  ASSERT_TRUE(summary.best);
  EXPECT_LT(summary.best->time_ns, wide_ns(start) * 0.6) << "six full judgements from the start";
}

// Rounds close early only when the time left is less than ending a round has taken (its longer screenings and full
// judgements), not for the last quarter of the run: in a 6 s run whose rounds end in about 0.1 s, few screenings fall in
// rounds cut short. The rule before it (the last 25% of the time limit) put a quarter of them there.
TEST_F(ScreeningRunTest, RoundsAreCutShortOnlyWhenTheTimeLeftCannotEndAnother) {
  use_wide_space();
  RunOptions options = two_agents();
  options.screen_round = 8;
  options.scouts = 0;
  options.budget = 100000;
  options.time_limit = std::chrono::seconds(6);
  const auto slow_judge = [](const judge::CandidateSource& source) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    return wide_verdict(source);
  };
  const auto slow_screen = [](const judge::CandidateSource& source, int) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return screening_of(source, wide_verdict(source));
  };
  const auto summary = screened_run(options, slow_judge, slow_screen, paired_in_the_wide_space);
  int in_round = 0, screened = 0, cut_short = 0;
  for (const auto& event : events(summary.run_id)) {
    if (const auto* e = std::get_if<journal::Screened>(&event); e && e->fidelity == 0 && e->agent.starts_with("agent-")) ++in_round;
    if (const auto* closed = std::get_if<journal::RoundClosed>(&event)) {
      screened += in_round;
      if (closed->screened < options.screen_round) cut_short += in_round;
      in_round = 0;
    }
  }
  ASSERT_GE(screened, 100) << "the run screened too little to tell";
  EXPECT_LT(cut_short, screened * 15 / 100) << cut_short << " of " << screened << " screenings were in rounds cut short";
}

// Scouts: seeded random configurations screened as a new run's first round against the start's screening, the fastest
// judged in full like any finalist; they teach the board nothing, the same seed scouts the same ones, and a resumed
// run does not scout again.
TEST_F(ScreeningRunTest, ScoutsScreenRandomConfigurationsFirstAndTheFastestAreJudgedInFull) {
  use_wide_space();
  RunOptions options = two_agents();
  options.scouts = 8;
  options.budget = 4;
  options.seed = 11;
  const auto scouted = [&](std::int64_t run_id) {
    std::vector<Knobs> scouts;
    bool before_agents = true;
    for (const auto& event : events(run_id))
      if (const auto* e = std::get_if<journal::Screened>(&event); e && e->fidelity == 0) {
        if (e->agent == "scout") {
          EXPECT_TRUE(before_agents) << "a scout screened after an agent's proposal";
          EXPECT_TRUE(e->incumbent_ns) << "ranked against the start's screening";
          EXPECT_THAT(e->hypothesis, HasSubstr("a random configuration"));
          scouts.push_back(e->knobs);
        }
        if (e->agent.starts_with("agent-")) before_agents = false;
      }
    return scouts;
  };
  const auto summary = wide_run(options);
  const auto scouts = scouted(summary.run_id);
  EXPECT_EQ(scouts.size(), 8u);
  EXPECT_EQ(std::set<Knobs>(scouts.begin(), scouts.end()).size(), 8u) << "each scout a different configuration";
  double fastest_scout = 1e300;
  for (const auto& knobs : scouts) fastest_scout = std::min(fastest_scout, wide_ns(knobs));
  bool judged_fastest = false;
  for (const auto& event : events(summary.run_id))
    if (const auto* e = std::get_if<journal::Judged>(&event); e && e->agent == "scout") judged_fastest |= wide_ns(e->knobs) == fastest_scout;
  EXPECT_TRUE(judged_fastest) << "the fastest scout was not judged in full";
  auto store = store::Store::open(dir_ / "runs.db");
  for (const auto& c : store.conclusions("softmax")) EXPECT_NE(c.strategy, "random") << "a scout taught the board: " << c.lesson;

  options.budget = 1;  // the same seed, stopped after the start: the same scouts
  const auto again = wide_run(options);
  EXPECT_EQ(scouted(again.run_id), scouts);
  RunOptions resumed_options = run_options_from_store(*store.run(again.run_id));
  EXPECT_EQ(resumed_options.scouts, 8);
  engine::Run resumed(task_, resumed_options, wide_verdict, brains::brain_factory("search"), store);
  resumed.screen_with([](const judge::CandidateSource& source, int) { return screening_of(source, wide_verdict(source)); });
  resumed.confirm_paired(paired_in_the_wide_space);
  resumed.resume(again.run_id, 3);
  EXPECT_EQ(scouted(again.run_id), scouts) << "the resumed run scouted again";
}

TEST_F(ScreeningRunTest, ARandomStartIsSeededAllowedAndRedrawnWhileItFails) {
  std::set<Knobs> starts;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    RunOptions options = two_agents();
    options.start = "random";
    options.seed = seed;
    options.budget = 1;
    const auto first = run(options, fmt::format("seed{}.db", seed));
    const auto again = run(options, fmt::format("seed{}-again.db", seed));
    ASSERT_TRUE(first.best);
    EXPECT_EQ(first.best_knobs, again.best_knobs) << "the same seed draws the same start";
    EXPECT_NE(first.best_knobs, (Knobs{{"ONE_PASS", 1}, {"ROWS_PER_STEP", 2}})) << "the wrong configuration fails, another is drawn";
    starts.insert(first.best_knobs);
  }
  EXPECT_GE(starts.size(), 2u) << "different seeds start from different configurations";
}

// Killed after a few full judgements: the resumed run replays screenings and paired decisions and finishes.
TEST_F(ScreeningRunTest, AResumedScreeningRunReplaysItsDecisions) {
  RunOptions options = two_agents();
  options.screen_round = 2;
  options.seed = 5;
  std::int64_t run_id = 0;
  const auto screen = [](const judge::CandidateSource& source, int) { return screened_like_the_judge(source); };
  {
    auto store = store::Store::open(dir_ / "runs.db");
    int calls = 0;
    engine::Run doomed(task_, options, [&](const judge::CandidateSource& source) {
      if (++calls == 3) throw std::runtime_error("killed");
      return scripted(source, 0.005);
    }, brains::brain_factory("search"), store);
    doomed.screen_with(screen);
    doomed.confirm_paired(paired_like_the_judge);
    EXPECT_THROW(doomed.execute(), std::runtime_error);
    run_id = store.runs().front().id;
  }
  auto store = store::Store::open(dir_ / "runs.db");
  engine::Run resumed(task_, run_options_from_store(*store.run(run_id)), [](const judge::CandidateSource& source) { return scripted(source, 0.005); },
              brains::brain_factory("search"), store);
  resumed.screen_with(screen);
  resumed.confirm_paired(paired_like_the_judge);
  const auto summary = resumed.resume(run_id);
  EXPECT_EQ(summary.best_knobs, (Knobs{{"ONE_PASS", 1}, {"ROWS_PER_STEP", 4}}));
  std::set<std::string> judged;
  for (const auto& c : store.candidates(run_id)) EXPECT_TRUE(judged.insert(c.knobs_json).second) << "judged twice: " << c.knobs_json;
  EXPECT_GT(summary.screened, 0);
  EXPECT_EQ(store.run(run_id)->status, "finished");
}

}  // namespace
}  // namespace kernelarc::engine
