// The pacing loop's thread: runs a step, then sleeps until the step says it
// has work again, or until stopped. Waits are bounded (at most a second), so
// a clock that moves by other means than real time (a test clock) is noticed.
//
// Thread-safety: Start and Stop from one thread; Wake from any.
#ifndef RTB_PACING_INTERNAL_LOOP_THREAD_H_
#define RTB_PACING_INTERNAL_LOOP_THREAD_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "storage/clock.h"

namespace rtb::pacing::internal {

class LoopThread {
 public:
  // `step` runs on the thread; `next_due_ms` says when it has work next, in
  // `clock` time.
  LoopThread(std::shared_ptr<const storage::Clock> clock, std::function<void()> step,
             std::function<int64_t()> next_due_ms);
  ~LoopThread();  // Stop()

  void Start();
  // Wakes the thread and joins it; the step in progress finishes first.
  void Stop();
  bool running() const { return thread_.joinable(); }
  // Runs the step now rather than when it said it has work (from any thread).
  void Wake();

 private:
  void Run();

  std::shared_ptr<const storage::Clock> clock_;
  std::function<void()> step_;
  std::function<int64_t()> next_due_ms_;
  absl::Mutex mutex_;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  bool woken_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread thread_;
};

}  // namespace rtb::pacing::internal

#endif  // RTB_PACING_INTERNAL_LOOP_THREAD_H_
