#include "bidder/events/internal/hot_keys.h"

#include <algorithm>
#include <utility>

namespace rtb::bidder::events::internal {

HotKeyCounter::HotKeyCounter(const HotKeyOptions& options) : options_(options) {
  absl::MutexLock lock(&mu_);
  counters_.reserve(static_cast<size_t>(std::max(options_.tracked_keys, 1)));
}

std::vector<HotKey> HotKeyCounter::TopLocked() const {
  std::vector<const Counter*> sorted;
  for (const Counter& c : counters_) sorted.push_back(&c);
  std::sort(sorted.begin(), sorted.end(), [](const Counter* a, const Counter* b) {
    return a->count != b->count ? a->count > b->count : a->key < b->key;
  });
  std::vector<HotKey> top;
  for (const Counter* c : sorted) {
    if (static_cast<int>(top.size()) == options_.reported_keys) break;
    top.push_back(HotKey{c->key, c->count, c->count - c->error});
  }
  return top;
}

HotKeyCounter::Counted HotKeyCounter::Count(std::string_view key, int64_t now_ms) {
  Counted result;
  if (options_.window_ms <= 0 || options_.tracked_keys <= 0) return result;
  absl::MutexLock lock(&mu_);
  const int64_t start = now_ms - now_ms % options_.window_ms;
  if (start != window_start_) {
    if (window_start_ >= 0) {
      last_top_ = TopLocked();
      result.window_closed = true;
      result.closed_top = last_top_;
    }
    window_start_ = start;
    counters_.clear();
    position_.clear();
  }
  const std::string k(key);
  auto it = position_.find(k);
  Counter* counter;
  if (it != position_.end()) {
    counter = &counters_[it->second];
  } else if (counters_.size() < static_cast<size_t>(options_.tracked_keys)) {
    position_[k] = counters_.size();
    counters_.push_back(Counter{k, 0, 0});
    counter = &counters_.back();
  } else {
    auto smallest =
        std::min_element(counters_.begin(), counters_.end(),
                         [](const Counter& a, const Counter& b) { return a.count < b.count; });
    position_.erase(smallest->key);
    position_[k] = static_cast<size_t>(smallest - counters_.begin());
    smallest->key = k;
    smallest->error = smallest->count;
    counter = &*smallest;
  }
  result.admitted = options_.max_events_per_window <= 0 ||
                    counter->count - counter->error < options_.max_events_per_window;
  ++counter->count;
  return result;
}

std::vector<HotKey> HotKeyCounter::LastWindowTop() const {
  absl::MutexLock lock(&mu_);
  return last_top_;
}

}  // namespace rtb::bidder::events::internal
