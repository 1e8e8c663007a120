#include "bidder/sessions/internal/login_rate_limiter.h"

#include <algorithm>

namespace rtb::bidder::sessions::internal {

LoginRateLimiter::LoginRateLimiter(const config::LoginRateLimitConfig& config,
                                   size_t max_entries_per_kind)
    : config_(config), max_entries_(std::max<size_t>(max_entries_per_kind, 1)) {}

int64_t LoginRateLimiter::Remaining(const Map& map, std::string_view key, int64_t now_ms) {
  auto it = map.find(absl::string_view(key.data(), key.size()));
  if (it == map.end()) return 0;
  return std::max<int64_t>(0, it->second.locked_until_ms - now_ms);
}

int64_t LoginRateLimiter::LockedForMs(std::string_view user, std::string_view address,
                                      int64_t now_ms) {
  absl::MutexLock lock(&mu_);
  return std::max(Remaining(users_, user, now_ms), Remaining(addresses_, address, now_ms));
}

void LoginRateLimiter::Prune(Map& map, int64_t now_ms) {
  // Forget entries whose window and lockout history are over.
  const int64_t quiet_ms = (int64_t{config_.window_s} + config_.lockout_max_s) * 1000;
  for (auto it = map.begin(); it != map.end();) {
    const Entry& e = it->second;
    if (e.locked_until_ms <= now_ms && now_ms - e.last_failure_ms > quiet_ms) {
      map.erase(it++);
    } else {
      ++it;
    }
  }
  for (auto it = map.begin(); map.size() >= max_entries_ && it != map.end();) {
    if (it->second.locked_until_ms <= now_ms) {
      map.erase(it++);
    } else {
      ++it;
    }
  }
}

void LoginRateLimiter::Fail(Map& map, std::string_view key, int max_failures, int64_t now_ms) {
  const absl::string_view k(key.data(), key.size());
  if (!map.contains(k) && map.size() >= max_entries_) Prune(map, now_ms);
  if (!map.contains(k) && map.size() >= max_entries_) return;  // every entry is locked out
  Entry& e = map[k];
  // A long quiet spell forgives earlier lockouts.
  const int64_t quiet_ms = (int64_t{config_.window_s} + config_.lockout_max_s) * 1000;
  if (e.last_failure_ms != 0 && now_ms - e.last_failure_ms > quiet_ms) e = Entry{};
  if (e.failures == 0 || now_ms - e.window_start_ms > int64_t{config_.window_s} * 1000) {
    e.window_start_ms = now_ms;
    e.failures = 0;
  }
  e.last_failure_ms = now_ms;
  if (++e.failures < max_failures) return;
  const int shift = std::min(e.lockouts, 20);
  const int64_t lockout_s =
      std::min<int64_t>(int64_t{config_.lockout_initial_s} << shift, config_.lockout_max_s);
  e.locked_until_ms = now_ms + lockout_s * 1000;
  ++e.lockouts;
  e.failures = 0;
}

void LoginRateLimiter::RecordFailure(std::string_view user, std::string_view address,
                                     int64_t now_ms) {
  absl::MutexLock lock(&mu_);
  Fail(users_, user, config_.max_failures_per_user, now_ms);
  Fail(addresses_, address, config_.max_failures_per_address, now_ms);
}

void LoginRateLimiter::RecordSuccess(std::string_view user) {
  absl::MutexLock lock(&mu_);
  users_.erase(absl::string_view(user.data(), user.size()));
}

}  // namespace rtb::bidder::sessions::internal
