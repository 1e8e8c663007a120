#include <cstdint>
#include <utility>

#include "pacing/pacer.h"

namespace rtb::pacing {

Decisions::Decisions(size_t campaigns, std::shared_ptr<const storage::Clock> clock)
    : campaigns_(campaigns),
      slots_(std::make_unique<Slot[]>(campaigns)),
      clock_(clock ? std::move(clock) : storage::SystemClock()) {}

void Decisions::Publish(size_t campaign_index, double throttle, int64_t valid_until_ms) {
  if (campaign_index >= campaigns_) return;
  Slot& slot = slots_[campaign_index];
  slot.throttle.store(throttle, std::memory_order_relaxed);
  // A reader that sees the new validity sees the new throttle. Sequentially
  // consistent with Revoke's flag: either this load sees the flag, or
  // Revoke's zero lands after this store.
  slot.valid_until_ms.store(valid_until_ms);
  if (revoked_.load()) slot.valid_until_ms.store(0);
}

void Decisions::Revoke() {
  revoked_.store(true);
  for (size_t i = 0; i < campaigns_; ++i) {
    slots_[i].valid_until_ms.store(0, std::memory_order_release);
  }
}

double Decisions::throttle(size_t campaign_index) const {
  return campaign_index < campaigns_
             ? slots_[campaign_index].throttle.load(std::memory_order_relaxed)
             : 0.0;
}

int64_t Decisions::valid_until_ms(size_t campaign_index) const {
  return campaign_index < campaigns_
             ? slots_[campaign_index].valid_until_ms.load(std::memory_order_acquire)
             : 0;
}

}  // namespace rtb::pacing
