// Whether the bidder's storage answers, checked off the I/O threads.
//
// A Store's CheckHealth() is a blocking call (a round trip to HBase, or a
// RocksDB property read), so /readyz never runs it: a background thread calls
// it every `check_interval` and /readyz reads the last result. A check that
// has not finished for `max_result_age` counts as a failure, so a storage
// call that hangs makes the bidder unready rather than leaving it ready on an
// old answer.
//
// Thread-safety: Status() may be called from any thread.
#ifndef RTB_BIDDER_ADMIN_READINESS_H_
#define RTB_BIDDER_ADMIN_READINESS_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "storage/store.h"

namespace rtb::bidder {

struct StorageReadinessOptions {
  // Time between two health checks. Default 1 s.
  std::chrono::milliseconds check_interval{1000};
  // A result older than this is not trusted. Default 5 s; at least
  // check_interval plus the longest a check may take.
  std::chrono::milliseconds max_result_age{5000};
};

class StorageReadiness {
 public:
  // Runs the first check before returning, so a bidder that starts on a
  // healthy store is ready at once. `store` must outlive this object.
  StorageReadiness(storage::Store& store, StorageReadinessOptions options = {});
  // Stops the checking thread (waits for a check in progress).
  ~StorageReadiness();
  StorageReadiness(const StorageReadiness&) = delete;
  StorageReadiness& operator=(const StorageReadiness&) = delete;

  // OK when the last check passed and is recent, and every added check is
  // OK; otherwise the reason.
  absl::Status Status() const;
  // Status().ok() without the lock or the message: cheap enough for every
  // bid request.
  bool healthy() const;

  // Another condition of readiness (e.g. the campaigns table readable),
  // cheap and non-blocking: it runs on /readyz's I/O thread. Add before the
  // server starts.
  void AddCheck(std::function<absl::Status()> check) { checks_.push_back(std::move(check)); }

 private:
  void Check();
  void Loop();

  storage::Store& store_;
  const StorageReadinessOptions options_;
  mutable absl::Mutex mu_;
  absl::Status last_ ABSL_GUARDED_BY(mu_);
  std::chrono::steady_clock::time_point last_at_ ABSL_GUARDED_BY(mu_);
  // Copies of last_.ok() and last_at_ for healthy().
  std::atomic<bool> last_ok_{false};
  std::atomic<std::chrono::steady_clock::rep> last_at_ticks_{0};
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
  std::vector<std::function<absl::Status()>> checks_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_ADMIN_READINESS_H_
