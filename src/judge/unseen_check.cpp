#include "judge/unseen_check.h"

#include <algorithm>

namespace kernelarc::judge {

namespace {

// More than twice `base` and by more than the slack: what load does to a call, and what a cache's miss does.
bool far_above(double sample, double base) { return sample > 2 * base && sample - base > kUnseenSlackNs; }

}  // namespace

UnseenCheck check_unseen_calls(const std::vector<double>& samples_ns, double median_ns, const std::vector<double>& unseen_ns,
                               const std::vector<std::size_t>& next_sample) {
  UnseenCheck check;
  if (samples_ns.empty()) return check;
  const double fastest = *std::min_element(samples_ns.begin(), samples_ns.end());
  // Half the loop slowed by load: its median is the load's, and would hide a cache behind it.
  if (far_above(median_ns, fastest)) return check;
  const auto slowed = std::count_if(samples_ns.begin(), samples_ns.end(), [&](double sample) { return far_above(sample, fastest); });
  check.load_rate = static_cast<double>(slowed + 1) / static_cast<double>(samples_ns.size() + 2);
  for (std::size_t i = 0; i < unseen_ns.size() && i < next_sample.size(); ++i) {
    const std::size_t next = next_sample[i];
    double bar = median_ns;
    bool clear = true;
    for (const std::size_t neighbour : {next - 1, next})  // next - 1 wraps past the end when next is 0: skipped below
      if (neighbour < samples_ns.size()) {
        if (far_above(samples_ns[neighbour], median_ns)) clear = false;
        bar = std::max(bar, samples_ns[neighbour]);
      }
    if (!clear) continue;
    ++check.compared;
    if (far_above(unseen_ns[i], bar)) ++check.slower;
  }
  check.finding = check.compared == 0               ? UnseenFinding::unclear
                  : check.slower == check.compared ? UnseenFinding::slower
                                                   : UnseenFinding::not_slower;
  return check;
}

}  // namespace kernelarc::judge
