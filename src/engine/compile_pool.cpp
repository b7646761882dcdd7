#include "engine/compile_pool.h"

#include <algorithm>

namespace kernelarc::engine {

CompilePool::CompilePool(BuildFunction build, unsigned threads) : build_(std::move(build)) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { serve(); });
}

CompilePool::~CompilePool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& thread : threads_) thread.join();
  // Queued jobs never ran: their futures say so (broken promise) instead of hanging a waiter.
  queue_.clear();
}

std::shared_future<void> CompilePool::submit(judge::CandidateSource source) {
  Job job{std::move(source), {}};
  std::shared_future<void> ready = job.done.get_future().share();
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(job));
  }
  wake_.notify_one();
  return ready;
}

void CompilePool::serve() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      build_(job.source);
      job.done.set_value();
    } catch (...) {
      job.done.set_exception(std::current_exception());
    }
  }
}

}  // namespace kernelarc::engine
