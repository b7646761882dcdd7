// The content-caching check (docs/GUARD.md, timing): calls on inputs a candidate was never given, against the loop's
// calls on inputs the correctness rounds had shown it. A candidate that keeps its answers keyed on the content copies
// them in the loop and does the whole work on new inputs; an honest one takes as long on both.
#pragma once

#include <cstddef>
#include <vector>

namespace kernelarc::judge {

// Calls on new inputs may be this much slower than the loop's too: the noise of one call's cost on a loaded machine.
inline constexpr double kUnseenSlackNs = 20000;

enum class UnseenFinding {
  not_slower,  // some undisturbed call on new inputs took no more than twice its neighbours: no kept answers
  slower,      // every undisturbed one took more than twice its neighbours (and the median), and by more than the slack
  unclear,     // load slowed half the loop, or a neighbour of every call on new inputs: nothing to compare
};

struct UnseenCheck {
  UnseenFinding finding = UnseenFinding::unclear;
  int compared = 0;  // calls on new inputs whose neighbours load left alone
  int slower = 0;    // of those, the ones more than twice as slow
  // How often load alone slows a call that much, estimated from the loop (its calls more than twice its fastest and by
  // more than the slack, one added to each side so that five quiet calls still say 1 in 7): an honest kernel's call on
  // new inputs is slower by chance this often, so all `compared` of them about load_rate^compared.
  double load_rate = 1;
};

// `samples_ns`: the loop's timed calls in order, `median_ns` their median; `unseen_ns[i]` came just before the loop's
// sample `next_sample[i]` (samples_ns.size() when after the last). A neighbour slowed by load (more than twice the
// median and by more than the slack) makes its pair say nothing either way: it would hide a cache behind its own
// delay, and an honest call slowed with it is no evidence. A loop whose median is more than twice its fastest call
// (and by more than the slack) is unclear as a whole. Load that slows only the calls on new inputs is what the caller's
// measuring again is for.
UnseenCheck check_unseen_calls(const std::vector<double>& samples_ns, double median_ns, const std::vector<double>& unseen_ns,
                               const std::vector<std::size_t>& next_sample);

}  // namespace kernelarc::judge
