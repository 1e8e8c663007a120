// Counts events per user key in fixed windows with the Space-Saving sketch
// (Metwally, Agrawal, El Abbadi 2005): `tracked_keys` counters; a key that is
// not tracked takes over the smallest counter, inheriting its count as its
// error. Memory and time per event stay bounded whatever the key space, and
// every key with more than events/tracked_keys events in a window is among
// the counters at its end (event-tracking seed: "Hot region from a celebrity
// entity ... Detect top prefixes, rate-limit at ingest").
//
// Rate limiting uses the guaranteed count (count - error), so a key is only
// limited when it really passed the limit in this window.
//
// Thread-safety: Count and LastWindowTop may be called from any thread.
#ifndef RTB_BIDDER_EVENTS_INTERNAL_HOT_KEYS_H_
#define RTB_BIDDER_EVENTS_INTERNAL_HOT_KEYS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "bidder/events/events.h"

namespace rtb::bidder::events::internal {

class HotKeyCounter {
 public:
  explicit HotKeyCounter(const HotKeyOptions& options);

  struct Counted {
    // False when the key has already had `max_events_per_window` events in
    // this window (the event is still counted).
    bool admitted = true;
    // True when this event was the first of a new window; `closed_top` then
    // holds the previous window's top keys.
    bool window_closed = false;
    std::vector<HotKey> closed_top;
  };
  // Counts one event of `key` at `now_ms`.
  Counted Count(std::string_view key, int64_t now_ms);

  // The top keys of the last closed window, most events first.
  std::vector<HotKey> LastWindowTop() const;

 private:
  struct Counter {
    std::string key;
    int64_t count = 0;
    int64_t error = 0;
  };
  std::vector<HotKey> TopLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const HotKeyOptions options_;
  mutable absl::Mutex mu_;
  int64_t window_start_ ABSL_GUARDED_BY(mu_) = -1;
  std::vector<Counter> counters_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, size_t> position_ ABSL_GUARDED_BY(mu_);
  std::vector<HotKey> last_top_ ABSL_GUARDED_BY(mu_);
};

}  // namespace rtb::bidder::events::internal

#endif  // RTB_BIDDER_EVENTS_INTERNAL_HOT_KEYS_H_
