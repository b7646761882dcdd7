// The wrong way: the judge asks the engine something.
namespace kernelarc::engine {
int judged_so_far();
}  // namespace kernelarc::engine

namespace kernelarc::judge {
int seed_from_the_run() { return kernelarc::engine::judged_so_far(); }
}  // namespace kernelarc::judge
