#include "judge/unseen_check.h"

#include <algorithm>

namespace kernelarc::judge {

UnseenCheck check_unseen_calls(const std::vector<double>& samples_ns, double median_ns, const std::vector<double>& unseen_ns,
                               const std::vector<std::size_t>& next_sample) {
  const auto disturbed = [&](double sample) { return sample > 2 * median_ns && sample - median_ns > kUnseenSlackNs; };
  UnseenCheck check;
  // Half the loop slowed by load: its median is the load's, and would hide a cache behind it.
  if (samples_ns.empty()) return check;
  const double fastest = *std::min_element(samples_ns.begin(), samples_ns.end());
  const auto slowed = [&](double sample) { return sample > 2 * fastest && sample - fastest > kUnseenSlackNs; };
  if (slowed(median_ns)) return check;
  check.load_rate = static_cast<double>(std::count_if(samples_ns.begin(), samples_ns.end(), slowed) + 1) /
                    static_cast<double>(samples_ns.size() + 2);
  for (std::size_t i = 0; i < unseen_ns.size() && i < next_sample.size(); ++i) {
    const std::size_t next = next_sample[i];
    double bar = median_ns;
    bool clear = true;
    for (const std::size_t neighbour : {next - 1, next})  // next - 1 wraps past the end when next is 0: skipped below
      if (neighbour < samples_ns.size()) {
        if (disturbed(samples_ns[neighbour])) clear = false;
        bar = std::max(bar, samples_ns[neighbour]);
      }
    if (!clear) continue;
    ++check.compared;
    if (unseen_ns[i] > 2 * bar && unseen_ns[i] - bar > kUnseenSlackNs) ++check.slower;
  }
  check.finding = check.compared == 0               ? UnseenFinding::unclear
                  : check.slower == check.compared ? UnseenFinding::slower
                                                   : UnseenFinding::not_slower;
  return check;
}

}  // namespace kernelarc::judge
