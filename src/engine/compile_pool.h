// Builds proposals ahead of the judge on the machine's cores, so a candidate's compile overlaps the judging of the ones
// before it. A build only fills the on-disk cache; the judge's own build of the same candidate is then a cache hit.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "judge/judge.h"

namespace kernelarc::engine {

using BuildFunction = std::function<void(const judge::CandidateSource&)>;

class CompilePool {
 public:
  // `threads` 0: one per core.
  CompilePool(BuildFunction build, unsigned threads = 0);
  ~CompilePool();  // finishes the builds under way, drops the queued ones
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  // Ready when the build has finished (or thrown: the judge reports the failure when it builds again).
  std::shared_future<void> submit(judge::CandidateSource source);
  unsigned threads() const { return static_cast<unsigned>(threads_.size()); }

 private:
  struct Job {
    judge::CandidateSource source;
    std::promise<void> done;
  };
  void serve();

  BuildFunction build_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace kernelarc::engine
