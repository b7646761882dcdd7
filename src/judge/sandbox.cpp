#include "judge/sandbox.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

namespace kernelarc::judge {

using nlohmann::json;

namespace {

// Landlock's filesystem rights by ABI version (linux/landlock.h of newer kernels than Debian 12's headers).
constexpr std::uint64_t kExecute = 1ull << 0, kWriteFile = 1ull << 1, kReadFile = 1ull << 2, kReadDir = 1ull << 3, kRemoveDir = 1ull << 4,
                        kRemoveFile = 1ull << 5, kMakeChar = 1ull << 6, kMakeDir = 1ull << 7, kMakeReg = 1ull << 8, kMakeSock = 1ull << 9,
                        kMakeFifo = 1ull << 10, kMakeBlock = 1ull << 11, kMakeSym = 1ull << 12, kRefer = 1ull << 13, kTruncate = 1ull << 14;
constexpr std::uint64_t kFileRights = kExecute | kWriteFile | kReadFile | kTruncate;
constexpr int kCreateRulesetVersion = 1;  // LANDLOCK_CREATE_RULESET_VERSION
constexpr int kRulePathBeneath = 1;       // LANDLOCK_RULE_PATH_BENEATH

struct RulesetAttributes {
  std::uint64_t handled_access_fs;
};
struct __attribute__((packed)) PathBeneath {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

std::string errno_text() { return std::strerror(errno); }

void limit(int resource, std::uint64_t value, const char* name, json& report) {
  const rlimit limit{value, value};
  if (setrlimit(resource, &limit) == 0) report["active"].push_back(fmt::format("{} {}", name, value));
  else report["unavailable"].push_back(fmt::format("{}: {}", name, errno_text()));
}

void restrict_filesystem(const SandboxPolicy& policy, json& report) {
  const long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  if (abi < 1) {
    report["unavailable"].push_back(fmt::format("landlock (the filesystem allow-list): {}", errno_text()));
    return;
  }
  std::uint64_t handled = kExecute | kWriteFile | kReadFile | kReadDir | kRemoveDir | kRemoveFile | kMakeChar | kMakeDir | kMakeReg | kMakeSock |
                          kMakeFifo | kMakeBlock | kMakeSym;
  if (abi >= 2) handled |= kRefer;
  if (abi >= 3) handled |= kTruncate;
  const RulesetAttributes attributes{handled};
  const int ruleset = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attributes, sizeof attributes, 0));
  if (ruleset < 0) {
    report["unavailable"].push_back(fmt::format("landlock ruleset: {}", errno_text()));
    return;
  }
  const auto allow = [&](const std::string& path, std::uint64_t rights) {
    const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return;  // a path this system does not have (/lib32, say)
    struct stat st {};
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) rights &= kFileRights;  // a file takes only a file's rights
    const PathBeneath rule{rights & handled, fd};
    if (syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &rule, 0) != 0)
      report["unavailable"].push_back(fmt::format("landlock rule for {}: {}", path, errno_text()));
    close(fd);
  };
  for (const auto& path : policy.read_only) allow(path, kReadFile | kReadDir | kExecute);
  for (const auto& path : policy.read_write)
    allow(path, kReadFile | kReadDir | kWriteFile | kTruncate | kMakeReg | kMakeDir | kRemoveFile | kRemoveDir | kRefer);
  for (const auto& path : policy.write_existing) allow(path, kReadFile | kWriteFile);
  if (syscall(SYS_landlock_restrict_self, ruleset, 0) == 0)
    report["active"].push_back(fmt::format("landlock v{}: {} read-only, {} read-write and {} existing-files-only paths", abi,
                                           policy.read_only.size(), policy.read_write.size(), policy.write_existing.size()));
  else
    report["unavailable"].push_back(fmt::format("landlock restrict: {}", errno_text()));
  close(ruleset);
}

// A BPF program over the system-call number and arguments; every check ends in a return, so the blocks never fall
// into each other with a stale accumulator.
class FilterProgram {
 public:
  void kill_if(long nr) {
    code_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(nr), 0, 1));
    code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  }
  void error_if(long nr, int error) {
    code_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(nr), 0, 1));
    code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (static_cast<std::uint32_t>(error) & SECCOMP_RET_DATA)));
  }
  // clone is allowed for threads only (CLONE_THREAD): a new process is killed.
  void threads_only(long nr) {
    code_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(nr), 0, 4));
    code_.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, argument_low(0)));
    code_.push_back(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
    code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  }
  // A signal only to itself (its pid, or 0 for its own process group, which is itself alone).
  void signals_to_itself(long nr, std::uint32_t pid, bool zero_too) {
    code_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(nr), 0, 5));
    code_.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, argument_low(0)));
    code_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, pid, 2, 0));
    code_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, zero_too ? 0u : pid, 1, 0));
    code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  }
  void kill_from(std::uint32_t first) {
    code_.push_back(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, first, 0, 1));
    code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  }
  void load_number() { code_.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr))); }
  void require_architecture(std::uint32_t arch) {
    code_.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
    code_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0));
    code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  }
  void allow_the_rest() { code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)); }
  std::vector<sock_filter>& code() { return code_; }

 private:
  static std::uint32_t argument_low(int index) {  // the low 32 bits of a 64-bit argument, on a little-endian machine
    return static_cast<std::uint32_t>(offsetof(seccomp_data, args) + static_cast<std::size_t>(index) * sizeof(std::uint64_t));
  }
  std::vector<sock_filter> code_;
};

void filter_system_calls(json& report) {
#if defined(__x86_64__)
  constexpr std::uint32_t kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
  constexpr std::uint32_t kArch = AUDIT_ARCH_AARCH64;
#else
  report["unavailable"].push_back("seccomp: no filter for this architecture");
  return;
#endif
  const auto self = static_cast<std::uint32_t>(getpid());
  FilterProgram program;
  program.require_architecture(kArch);
  program.load_number();
#if defined(__x86_64__)
  program.kill_from(0x40000000);  // the x32 numbers: the same calls under other numbers
#endif
  for (const long nr : {long{SYS_socket}, long{SYS_socketpair}, long{SYS_execve}, long{SYS_execveat}, long{SYS_ptrace}, long{SYS_process_vm_readv},
                        long{SYS_process_vm_writev}, long{SYS_pidfd_open}, long{SYS_pidfd_send_signal}, long{SYS_unshare}, long{SYS_setns},
                        long{SYS_mount}, long{SYS_kexec_load}, long{SYS_init_module}, long{SYS_finit_module}})
    program.kill_if(nr);
#ifdef SYS_fork
  program.kill_if(SYS_fork);
  program.kill_if(SYS_vfork);
#endif
  program.error_if(SYS_clone3, ENOSYS);  // its flags sit behind a pointer: glibc falls back to clone, whose flags are checked
  program.threads_only(SYS_clone);
  program.signals_to_itself(SYS_kill, self, true);
  program.signals_to_itself(SYS_tgkill, self, false);
  program.allow_the_rest();
  const sock_fprog fprog{static_cast<unsigned short>(program.code().size()), program.code().data()};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0) {
    report["unavailable"].push_back(fmt::format("seccomp (the system-call filter): {}", errno_text()));
    return;
  }
  report["active"].push_back("seccomp: sockets, new processes, exec, ptrace and signals to other processes kill the worker");
}

}  // namespace

json sandbox_policy_json(const SandboxPolicy& p) {
  return {{"address_space_bytes", p.address_space_bytes}, {"file_size_bytes", p.file_size_bytes}, {"open_files", p.open_files},
          {"own_network", p.own_network}, {"filesystem", p.filesystem}, {"system_calls", p.system_calls},
          {"read_only", p.read_only}, {"read_write", p.read_write}, {"write_existing", p.write_existing}};
}

SandboxPolicy sandbox_policy_from(const json& j) {
  SandboxPolicy p;
  p.address_space_bytes = j.value("address_space_bytes", p.address_space_bytes);
  p.file_size_bytes = j.value("file_size_bytes", p.file_size_bytes);
  p.open_files = j.value("open_files", p.open_files);
  p.own_network = j.value("own_network", p.own_network);
  p.filesystem = j.value("filesystem", p.filesystem);
  p.system_calls = j.value("system_calls", p.system_calls);
  p.read_only = j.value("read_only", p.read_only);
  p.read_write = j.value("read_write", p.read_write);
  p.write_existing = j.value("write_existing", p.write_existing);
  return p;
}

json enter_sandbox(const SandboxPolicy& policy) {
  json report = {{"active", json::array()}, {"unavailable", json::array()}};
  limit(RLIMIT_CORE, 0, "core files", report);
  limit(RLIMIT_FSIZE, policy.file_size_bytes, "file size", report);
  limit(RLIMIT_NOFILE, policy.open_files, "open files", report);
  if (policy.address_space_bytes > 0) limit(RLIMIT_AS, policy.address_space_bytes, "address space", report);
  if (policy.own_network) {
    if (unshare(CLONE_NEWNET) == 0) report["active"].push_back("network: its own namespace, with no interface up");
    else report["unavailable"].push_back(fmt::format("network namespace: {} (sockets are still refused by the system-call filter)", errno_text()));
  }
  if (policy.filesystem) restrict_filesystem(policy, report);
  if (policy.system_calls) filter_system_calls(report);
  return report;
}

std::vector<std::string> runtime_paths() {
  return {"/usr/lib", "/usr/lib64", "/usr/local/lib", "/lib", "/lib64", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
          "/etc/localtime", "/dev/null", "/dev/zero", "/dev/urandom", "/sys/devices/system/cpu"};
}

}  // namespace kernelarc::judge
