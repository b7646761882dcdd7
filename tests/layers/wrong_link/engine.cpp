namespace kernelarc::engine {
int judged_so_far() { return 1; }
}  // namespace kernelarc::engine
