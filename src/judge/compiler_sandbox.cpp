#include "judge/compiler_sandbox.h"

#include <fmt/format.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string_view>

namespace kernelarc::judge {

namespace fs = std::filesystem;

namespace {

// The most a compiler may write to one file: far above any candidate's library, far below a full disk (`.fill`).
constexpr rlim_t kLargestFile = rlim_t{1} << 30;

// What a compiler never needs and a hostile build would use; they fail (EPERM) rather than kill, so that a compiler
// that probes one still says what went wrong.
std::vector<long> refused_calls() {
  return {SYS_socket, SYS_socketpair, SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_process_madvise, SYS_kcmp,
          SYS_pidfd_open, SYS_pidfd_send_signal, SYS_pidfd_getfd, SYS_unshare, SYS_setns, SYS_mount, SYS_umount2, SYS_move_mount,
          SYS_open_tree, SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick, SYS_mount_setattr, SYS_pivot_root, SYS_chroot,
          SYS_init_module, SYS_finit_module, SYS_delete_module, SYS_kexec_load, SYS_kexec_file_load, SYS_bpf, SYS_perf_event_open,
          SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register, SYS_open_by_handle_at, SYS_name_to_handle_at,
          SYS_userfaultfd, SYS_keyctl, SYS_add_key, SYS_request_key, SYS_capset, SYS_swapon, SYS_swapoff, SYS_reboot,
          SYS_fanotify_init, SYS_quotactl, SYS_acct, SYS_settimeofday, SYS_clock_settime, SYS_clock_adjtime, SYS_adjtimex,
          SYS_sethostname, SYS_setdomainname, SYS_syslog};
}

}  // namespace

std::vector<std::string> compiler_system_paths() {
  return {"/usr/bin",           "/bin",         "/usr/lib",          "/usr/lib64",         "/lib",     "/lib64",  "/usr/libexec",
          "/usr/include",       "/usr/local/include", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/dev/zero"};
}

std::vector<std::string> program_folders(const std::vector<std::string>& programs) {
  std::vector<fs::path> search;
  const char* path = std::getenv("PATH");
  for (std::string_view rest = path ? path : ""; !rest.empty();) {
    const auto colon = rest.find(':');
    if (const fs::path folder(std::string(rest.substr(0, colon))); folder.is_absolute()) search.push_back(folder);  // never the working folder
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
  }
  std::vector<std::string> folders;
  const auto add = [&](const fs::path& folder) {
    if (std::find(folders.begin(), folders.end(), folder.string()) == folders.end()) folders.push_back(folder.string());
  };
  for (const auto& program : programs) {
    const auto found = std::find_if(search.begin(), search.end(), [&](const fs::path& folder) { return access((folder / program).c_str(), X_OK) == 0; });
    if (found == search.end()) continue;
    add(*found);
    std::error_code error;
    if (const fs::path real = fs::canonical(*found / program, error); !error) add(real.parent_path());
  }
  return folders;
}

CompilerSandbox::CompilerSandbox(const std::vector<std::string>& read_only, const fs::path& build_folder)
    : report_({{"active", nlohmann::json::array()}, {"unavailable", nlohmann::json::array()}}) {
  const char* path = std::getenv("PATH");
  environment_ = {std::string("PATH=") + (path && *path ? path : "/usr/bin:/bin"), "TMPDIR=" + build_folder.string()};
  report_["active"].push_back("environment: PATH and TMPDIR only");
  report_["active"].push_back(fmt::format("file size {}", kLargestFile));

  own_network_ = holds_capability(CAP_SYS_ADMIN);
  if (own_network_) report_["active"].push_back("network: its own namespace, with no interface up");
  else report_["unavailable"].push_back("network namespace: no CAP_SYS_ADMIN (sockets are still refused by the system-call filter)");
  report_["active"].push_back("capabilities: none; no_new_privs");

  if (filesystem_.available()) {
    std::size_t folders = 0;
    for (const auto& list : {compiler_system_paths(), read_only})
      for (const auto& folder : list) filesystem_.allow_read(folder), ++folders;
    filesystem_.allow_read_write(build_folder.string());
    filesystem_.allow_read_write("/dev/null");
    for (const auto& problem : filesystem_.rule_problems()) report_["unavailable"].push_back(problem);
    report_["active"].push_back(fmt::format("landlock v{}: {} read-only paths, the build folder read-write", filesystem_.abi(), folders));
  } else {
    report_["unavailable"].push_back(fmt::format("landlock (the filesystem allow-list): {}", filesystem_.problem()));
  }

  system_calls_.act_on(refused_calls(), SystemCallFilter::failed(EPERM));
  system_calls_.finish(SystemCallFilter::allowed());
  report_["active"].push_back("seccomp: no socket, ptrace, bpf, perf_event_open, io_uring, handle-based open, mount or namespace");
}

const char* CompilerSandbox::enter() const noexcept {
  const rlimit largest_file{kLargestFile, kLargestFile}, no_core{0, 0};
  if (setrlimit(RLIMIT_FSIZE, &largest_file) != 0 || setrlimit(RLIMIT_CORE, &no_core) != 0) return "resource limits";
  if (own_network_ && unshare(CLONE_NEWNET) != 0) return "network namespace";
  if (const int error = set_no_new_privileges()) return errno = error, "no_new_privs";
  const CapabilityDrop drop = drop_capabilities();
  if (drop.sets || drop.ambient) return errno = drop.sets ? drop.sets : drop.ambient, "dropping capabilities";
  if (filesystem_.available())
    if (const int error = filesystem_.restrict_self()) return errno = error, "landlock";
  if (const int error = system_calls_.install()) return errno = error, "seccomp";
  return nullptr;
}

common::CommandResult CompilerSandbox::run(const std::vector<std::string>& command, std::chrono::milliseconds timeout) const {
  common::CommandOptions options;
  options.timeout = timeout;
  options.environment = environment_;
  options.before_exec = [this] { return enter(); };
  return common::run_command(command, options);
}

}  // namespace kernelarc::judge
