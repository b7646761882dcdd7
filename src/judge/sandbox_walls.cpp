#include "judge/sandbox_walls.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <stdexcept>

namespace kernelarc::judge {

namespace {

// Landlock's rights by ABI version (linux/landlock.h of newer kernels than Debian 12's headers).
constexpr std::uint64_t kExecute = 1ull << 0, kWriteFile = 1ull << 1, kReadFile = 1ull << 2, kReadDir = 1ull << 3, kRemoveDir = 1ull << 4,
                        kRemoveFile = 1ull << 5, kMakeChar = 1ull << 6, kMakeDir = 1ull << 7, kMakeReg = 1ull << 8, kMakeSock = 1ull << 9,
                        kMakeFifo = 1ull << 10, kMakeBlock = 1ull << 11, kMakeSym = 1ull << 12, kRefer = 1ull << 13, kTruncate = 1ull << 14;
constexpr std::uint64_t kFileRights = kExecute | kWriteFile | kReadFile | kTruncate;
constexpr std::uint64_t kBindTcp = 1ull << 0, kConnectTcp = 1ull << 1;             // ABI 4: handled with no rule, TCP is refused
constexpr std::uint64_t kScopeAbstractUnixSocket = 1ull << 0, kScopeSignal = 1ull << 1;  // ABI 6: nothing outside the domain
constexpr int kCreateRulesetVersion = 1;  // LANDLOCK_CREATE_RULESET_VERSION
constexpr int kRulePathBeneath = 1;       // LANDLOCK_RULE_PATH_BENEATH

struct RulesetAttributes {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
  std::uint64_t scoped;
};
struct __attribute__((packed)) PathBeneath {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

std::uint32_t argument_low(int index) {  // the low 32 bits of a 64-bit argument, on a little-endian machine
  return static_cast<std::uint32_t>(offsetof(seccomp_data, args) + static_cast<std::size_t>(index) * sizeof(std::uint64_t));
}
std::uint32_t argument_high(int index) { return argument_low(index) + sizeof(std::uint32_t); }

sock_filter statement(std::uint16_t code, std::uint32_t k) { return BPF_STMT(code, k); }
sock_filter jump(std::uint16_t code, std::uint32_t k, std::size_t if_true, std::size_t if_false) {
  if (if_true > 255 || if_false > 255) throw std::logic_error("seccomp rule too long for a BPF jump");
  return BPF_JUMP(code, k, static_cast<std::uint8_t>(if_true), static_cast<std::uint8_t>(if_false));
}

}  // namespace

LandlockRuleset::LandlockRuleset() {
  const long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  if (abi < 1) {
    problem_ = std::strerror(errno);
    return;
  }
  abi_ = static_cast<int>(abi);
  handled_ = kExecute | kWriteFile | kReadFile | kReadDir | kRemoveDir | kRemoveFile | kMakeChar | kMakeDir | kMakeReg | kMakeSock | kMakeFifo |
             kMakeBlock | kMakeSym;
  if (abi_ >= 2) handled_ |= kRefer;
  if (abi_ >= 3) handled_ |= kTruncate;
  const RulesetAttributes attributes{handled_, abi_ >= 4 ? kBindTcp | kConnectTcp : 0, abi_ >= 6 ? kScopeAbstractUnixSocket | kScopeSignal : 0};
  const std::size_t size = abi_ >= 6 ? sizeof attributes : abi_ >= 4 ? 2 * sizeof(std::uint64_t) : sizeof(std::uint64_t);
  fd_ = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attributes, size, 0));
  if (fd_ < 0) problem_ = fmt::format("ruleset: {}", std::strerror(errno));
}

LandlockRuleset::~LandlockRuleset() {
  if (fd_ >= 0) close(fd_);
}

void LandlockRuleset::allow(const std::string& path, std::uint64_t rights) {
  if (fd_ < 0) return;
  const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) rights &= kFileRights;  // a file takes only a file's rights
  const PathBeneath rule{rights & handled_, fd};
  if (syscall(SYS_landlock_add_rule, fd_, kRulePathBeneath, &rule, 0) == 0) ++rules_;
  else rule_problems_.push_back(fmt::format("landlock rule for {}: {}", path, std::strerror(errno)));
  close(fd);
}

void LandlockRuleset::allow_read(const std::string& path) { allow(path, kReadFile | kReadDir | kExecute); }

void LandlockRuleset::allow_read_write(const std::string& path) {
  allow(path, kReadFile | kReadDir | kWriteFile | kTruncate | kMakeReg | kMakeDir | kRemoveFile | kRemoveDir | kRefer);
}

void LandlockRuleset::allow_write_existing(const std::string& path) { allow(path, kReadFile | kWriteFile); }

int LandlockRuleset::restrict_self() const noexcept {
  if (fd_ < 0) return ENOSYS;
  return syscall(SYS_landlock_restrict_self, fd_, 0) == 0 ? 0 : errno;
}

std::uint32_t SystemCallFilter::allowed() { return SECCOMP_RET_ALLOW; }
std::uint32_t SystemCallFilter::killed() { return SECCOMP_RET_KILL_PROCESS; }
std::uint32_t SystemCallFilter::trapped() { return SECCOMP_RET_TRAP; }
std::uint32_t SystemCallFilter::failed(int error) { return SECCOMP_RET_ERRNO | (static_cast<std::uint32_t>(error) & SECCOMP_RET_DATA); }

SystemCallFilter::SystemCallFilter() {
#if defined(__x86_64__)
  constexpr std::uint32_t kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
  constexpr std::uint32_t kArch = AUDIT_ARCH_AARCH64;
#else
#error "no system-call filter for this architecture"
#endif
  code_.push_back(statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  code_.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0));
  code_.push_back(statement(BPF_RET | BPF_K, killed()));
  code_.push_back(statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
#if defined(__x86_64__)
  code_.push_back(jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));  // x32's numbers: the same calls under other numbers
  code_.push_back(statement(BPF_RET | BPF_K, killed()));
#endif
}

void SystemCallFilter::allow(std::initializer_list<long> numbers) { allow(std::vector<long>(numbers)); }

void SystemCallFilter::allow(const std::vector<long>& numbers) { act_on(numbers, allowed()); }

void SystemCallFilter::act_on(const std::vector<long>& numbers, std::uint32_t action) {
  // Groups of numbers that jump to one shared return after the group (a jump reaches 255 instructions ahead).
  constexpr std::size_t kGroup = 200;
  for (std::size_t first = 0; first < numbers.size(); first += kGroup) {
    const std::size_t count = std::min(kGroup, numbers.size() - first);
    for (std::size_t i = 0; i < count; ++i)
      code_.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(numbers[first + i]), count - i, 0));
    code_.push_back(statement(BPF_JMP | BPF_JA, 1));  // none matched: past the return below
    code_.push_back(statement(BPF_RET | BPF_K, action));
  }
}

void SystemCallFilter::jump_unless_number(long number, std::size_t rule_length) {
  code_.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(number), 0, rule_length));
}

void SystemCallFilter::allow_if(long number, const std::vector<ArgumentIn>& conditions, std::uint32_t otherwise) {
  std::size_t length = 2;  // "allow", "otherwise"
  for (const auto& condition : conditions) length += 1 + condition.values.size();
  jump_unless_number(number, length);
  std::size_t left = length;  // instructions from here to the end of the rule
  for (const auto& condition : conditions) {
    code_.push_back(statement(BPF_LD | BPF_W | BPF_ABS, argument_low(condition.index)));
    left -= 1;
    for (std::size_t i = 0; i < condition.values.size(); ++i) {
      // A match skips this condition's other values; after the last value a mismatch reaches "otherwise".
      const std::size_t to_next = condition.values.size() - i - 1;  // to the next condition's load, or "allow"
      const std::size_t to_otherwise = left - 2;                     // `left` counts this instruction and "otherwise"
      code_.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, condition.values[i], to_next, i + 1 == condition.values.size() ? to_otherwise : 0));
      left -= 1;
    }
  }
  code_.push_back(statement(BPF_RET | BPF_K, allowed()));
  code_.push_back(statement(BPF_RET | BPF_K, otherwise));
}

void SystemCallFilter::allow_if_null(long number, int index, std::uint32_t otherwise) {
  jump_unless_number(number, 6);
  code_.push_back(statement(BPF_LD | BPF_W | BPF_ABS, argument_low(index)));
  code_.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3));
  code_.push_back(statement(BPF_LD | BPF_W | BPF_ABS, argument_high(index)));
  code_.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1));
  code_.push_back(statement(BPF_RET | BPF_K, allowed()));
  code_.push_back(statement(BPF_RET | BPF_K, otherwise));
}

void SystemCallFilter::allow_threads_only(long number, std::uint32_t otherwise) {
  constexpr std::uint32_t kNamespaces =
      CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET;
  jump_unless_number(number, 5);
  code_.push_back(statement(BPF_LD | BPF_W | BPF_ABS, argument_low(0)));
  code_.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 2));
  code_.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, kNamespaces, 1, 0));
  code_.push_back(statement(BPF_RET | BPF_K, allowed()));
  code_.push_back(statement(BPF_RET | BPF_K, otherwise));
}

void SystemCallFilter::allow_without_namespaces(long number, std::uint32_t otherwise) {
  constexpr std::uint32_t kNamespaces =
      CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET;
  jump_unless_number(number, 4);
  code_.push_back(statement(BPF_LD | BPF_W | BPF_ABS, argument_low(0)));
  code_.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, kNamespaces, 1, 0));
  code_.push_back(statement(BPF_RET | BPF_K, allowed()));
  code_.push_back(statement(BPF_RET | BPF_K, otherwise));
}

void SystemCallFilter::finish(std::uint32_t otherwise) {
  code_.push_back(statement(BPF_RET | BPF_K, otherwise));
  finished_ = true;
}

int SystemCallFilter::install() const noexcept {
  if (!finished_ || code_.size() > BPF_MAXINSNS) return EINVAL;
  const sock_fprog program{static_cast<unsigned short>(code_.size()), const_cast<sock_filter*>(code_.data())};
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0 ? 0 : errno;
}

CapabilityDrop drop_capabilities() noexcept {
  CapabilityDrop drop;
  for (int capability = 0; capability < 64; ++capability) {
    if (prctl(PR_CAPBSET_READ, capability, 0, 0, 0) < 0) break;  // past the kernel's last one
    drop.highest = capability;
    if (prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 && drop.bounding == 0) drop.bounding = errno;
  }
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) drop.ambient = errno;
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = {};
  if (syscall(SYS_capset, &header, none) != 0) drop.sets = errno;
  return drop;
}

int set_no_new_privileges() noexcept { return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : errno; }

bool holds_capability(int capability) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct sets[_LINUX_CAPABILITY_U32S_3] = {};
  if (syscall(SYS_capget, &header, sets) != 0) return false;
  return (sets[capability / 32].effective >> (capability % 32)) & 1u;
}

}  // namespace kernelarc::judge
