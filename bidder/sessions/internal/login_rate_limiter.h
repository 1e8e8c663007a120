// Failed-login counting per user name and per client address, with lockouts
// that double up to a ceiling (config::LoginRateLimitConfig). Unknown user
// names are counted like known ones, so a lockout reveals nothing about
// which names exist. Memory is bounded: stale entries are pruned first,
// then arbitrary unlocked ones.
//
// Thread-safety: safe for concurrent use.
#ifndef RTB_BIDDER_SESSIONS_INTERNAL_LOGIN_RATE_LIMITER_H_
#define RTB_BIDDER_SESSIONS_INTERNAL_LOGIN_RATE_LIMITER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "config/config.h"

namespace rtb::bidder::sessions::internal {

class LoginRateLimiter {
 public:
  explicit LoginRateLimiter(const config::LoginRateLimitConfig& config,
                            size_t max_entries_per_kind = 100000);

  // Milliseconds left of the longer lockout of `user` and `address`; 0 when
  // neither is locked out.
  int64_t LockedForMs(std::string_view user, std::string_view address, int64_t now_ms);
  void RecordFailure(std::string_view user, std::string_view address, int64_t now_ms);
  // Clears the user's failures and lockout history. The address keeps its
  // count: one valid account must not reset an attack from that address.
  void RecordSuccess(std::string_view user);

 private:
  struct Entry {
    int64_t window_start_ms = 0;
    int failures = 0;
    int lockouts = 0;
    int64_t locked_until_ms = 0;
    int64_t last_failure_ms = 0;
  };
  using Map = absl::flat_hash_map<std::string, Entry>;

  void Fail(Map& map, std::string_view key, int max_failures, int64_t now_ms)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static int64_t Remaining(const Map& map, std::string_view key, int64_t now_ms);
  void Prune(Map& map, int64_t now_ms) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const config::LoginRateLimitConfig config_;
  const size_t max_entries_;
  absl::Mutex mu_;
  Map users_ ABSL_GUARDED_BY(mu_);
  Map addresses_ ABSL_GUARDED_BY(mu_);
};

}  // namespace rtb::bidder::sessions::internal

#endif  // RTB_BIDDER_SESSIONS_INTERNAL_LOGIN_RATE_LIMITER_H_
