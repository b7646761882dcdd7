// The kernel's walls as building blocks of a sandbox (the worker's in sandbox.h, the compiler's in compiler_sandbox.h):
// a Landlock ruleset, a seccomp program, the capability drop and no_new_privs. Each is prepared first (allocating,
// describing itself) and raised afterwards with system calls only, so that a child between fork and exec of a
// multithreaded parent can raise it.
#pragma once

#include <linux/filter.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace kernelarc::judge {

// A Landlock filesystem allow-list: once raised, the process (and every child) opens, lists, runs, writes, creates and
// removes only beneath the paths added.
class LandlockRuleset {
 public:
  LandlockRuleset();  // creates the ruleset; problem() says why when this kernel has no Landlock
  LandlockRuleset(const LandlockRuleset&) = delete;
  LandlockRuleset& operator=(const LandlockRuleset&) = delete;
  ~LandlockRuleset();

  bool available() const { return fd_ >= 0; }
  int abi() const { return abi_; }
  const std::string& problem() const { return problem_; }
  // Read (and list, and run) beneath a path; a path this system lacks is skipped (/lib32, say).
  void allow_read(const std::string& path);
  // Read, write, create and remove beneath a path.
  void allow_read_write(const std::string& path);
  // Read and write the files that already exist beneath a path; nothing listed, created or removed there.
  void allow_write_existing(const std::string& path);
  std::size_t rules() const { return rules_; }
  const std::vector<std::string>& rule_problems() const { return rule_problems_; }
  // Raises it on the calling thread (and what it starts later): 0 or an errno. Needs no_new_privs or CAP_SYS_ADMIN.
  int restrict_self() const noexcept;

 private:
  void allow(const std::string& path, std::uint64_t rights);
  int fd_ = -1;
  int abi_ = 0;
  std::uint64_t handled_ = 0;
  std::size_t rules_ = 0;
  std::string problem_;
  std::vector<std::string> rule_problems_;
};

// A seccomp program over the system-call number and arguments, read top to bottom: put the hot calls first. Every rule
// ends in a return, so no rule falls into the next with a stale accumulator.
class SystemCallFilter {
 public:
  // What a rule does with a call.
  static std::uint32_t allowed();
  static std::uint32_t killed();  // the whole process
  static std::uint32_t failed(int error);
  static std::uint32_t trapped();  // SIGSYS to the calling thread, whose handler decides

  SystemCallFilter();  // checks the architecture (and refuses x32's numbers on x86_64)
  void allow(std::initializer_list<long> numbers);
  void allow(const std::vector<long>& numbers);
  void act_on(const std::vector<long>& numbers, std::uint32_t action);
  // Allowed when every listed argument's low 32 bits (pids, options and flags are ints) is one of its values.
  struct ArgumentIn {
    int index;
    std::vector<std::uint32_t> values;
  };
  void allow_if(long number, const std::vector<ArgumentIn>& conditions, std::uint32_t otherwise);
  // Allowed when the argument (a pointer, all 64 bits) is null.
  void allow_if_null(long number, int index, std::uint32_t otherwise);
  // clone: allowed for a thread (CLONE_THREAD) that makes no namespace; anything else gets `otherwise`.
  void allow_threads_only(long number, std::uint32_t otherwise);
  // clone: allowed for a thread or a process that makes no namespace (the Python candidate's policy: sandbox.h).
  void allow_without_namespaces(long number, std::uint32_t otherwise);
  // Ends the program: a call no rule named gets this.
  void finish(std::uint32_t otherwise);
  std::size_t instructions() const { return code_.size(); }
  // Raises it on the calling thread (and what it starts later): 0 or an errno. Needs no_new_privs or CAP_SYS_ADMIN.
  int install() const noexcept;

 private:
  void jump_unless_number(long number, std::size_t rule_length);
  std::vector<sock_filter> code_;
  bool finished_ = false;
};

// The outcome of dropping capabilities: an errno per step, 0 when it worked.
struct CapabilityDrop {
  int bounding = 0;   // PR_CAPBSET_DROP needs CAP_SETPCAP: a process that never had it keeps a full bounding set
  int ambient = 0;
  int sets = 0;       // capset of empty effective, permitted and inheritable sets
  int highest = -1;   // the highest capability number the kernel knows
};

// Drops every capability the process holds, bounding set first (that takes CAP_SETPCAP, given up last). System calls
// only. Call it after anything that needs a capability (a network namespace) and before Landlock and seccomp.
CapabilityDrop drop_capabilities() noexcept;

// No exec can give privileges back (setuid files, file capabilities); Landlock and seccomp need it without CAP_SYS_ADMIN.
int set_no_new_privileges() noexcept;

// True when the process holds the capability in its effective set (capget).
bool holds_capability(int capability);

}  // namespace kernelarc::judge
