#include "bidder/admin/readiness.h"

#include <time.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "threads/threads.h"

namespace rtb::bidder {

StorageReadiness::StorageReadiness(storage::Store& store, StorageReadinessOptions options)
    : store_(store), options_(options) {
  Check();
  thread_ = std::thread([this] {
    threads::NameThisThread("rtb-readiness");
    Loop();
  });
}

StorageReadiness::~StorageReadiness() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
}

void StorageReadiness::Check() {
  absl::Status status = store_.CheckHealth();
  const auto now = std::chrono::steady_clock::now();
  absl::MutexLock lock(&mu_);
  last_ok_.store(status.ok(), std::memory_order_relaxed);
  last_at_ticks_.store(now.time_since_epoch().count(), std::memory_order_relaxed);
  last_ = std::move(status);
  last_at_ = now;
}

bool StorageReadiness::healthy() const {
  if (!last_ok_.load(std::memory_order_relaxed)) return false;
  const std::chrono::steady_clock::time_point at{
      std::chrono::steady_clock::duration(last_at_ticks_.load(std::memory_order_relaxed))};
  // The coarse clock is steady_clock's, read without the time stamp counter
  // (a few nanoseconds instead of tens, on every bid); it lags by at most
  // one kernel tick, which only delays noticing a result's age that long.
  timespec coarse{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &coarse);
  const std::chrono::steady_clock::time_point now{
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::seconds(coarse.tv_sec) + std::chrono::nanoseconds(coarse.tv_nsec))};
  return now - at <= options_.max_result_age;
}

void StorageReadiness::Loop() {
  const absl::Duration interval = absl::FromChrono(options_.check_interval);
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      if (mu_.AwaitWithTimeout(absl::Condition(&stop_), interval)) return;
    }
    Check();
  }
}

absl::Status StorageReadiness::Status() const {
  const auto now = std::chrono::steady_clock::now();
  absl::MutexLock lock(&mu_);
  const auto age = now - last_at_;
  if (age > options_.max_result_age) {
    return absl::DeadlineExceededError(
        absl::StrCat("storage health check has not completed for ",
                     std::chrono::duration_cast<std::chrono::milliseconds>(age).count(), " ms"));
  }
  if (!last_.ok()) {
    return absl::UnavailableError(absl::StrCat("storage unhealthy: ", last_.ToString()));
  }
  for (const std::function<absl::Status()>& check : checks_) {
    if (absl::Status s = check(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace rtb::bidder
