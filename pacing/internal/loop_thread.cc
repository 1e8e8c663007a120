#include "pacing/internal/loop_thread.h"

#include <algorithm>
#include <utility>

#include "absl/time/time.h"

namespace rtb::pacing::internal {
namespace {

constexpr int64_t kLongestWaitMs = 1000;

}  // namespace

LoopThread::LoopThread(std::shared_ptr<const storage::Clock> clock, std::function<void()> step,
                       std::function<int64_t()> next_due_ms)
    : clock_(std::move(clock)), step_(std::move(step)), next_due_ms_(std::move(next_due_ms)) {}

LoopThread::~LoopThread() { Stop(); }

void LoopThread::Start() {
  if (thread_.joinable()) return;
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = false;
  }
  thread_ = std::thread([this] { Run(); });
}

void LoopThread::Stop() {
  if (!thread_.joinable()) return;
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  thread_.join();
}

void LoopThread::Run() {
  while (true) {
    step_();
    const int64_t wait_ms =
        std::clamp<int64_t>(next_due_ms_() - clock_->NowMillis(), 1, kLongestWaitMs);
    absl::MutexLock lock(&mutex_);
    auto stop_or_wake = [this]()
                            ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return stopping_ || woken_; };
    mutex_.AwaitWithTimeout(absl::Condition(&stop_or_wake), absl::Milliseconds(wait_ms));
    if (stopping_) return;
    woken_ = false;
  }
}

void LoopThread::Wake() {
  absl::MutexLock lock(&mutex_);
  woken_ = true;
}

}  // namespace rtb::pacing::internal
