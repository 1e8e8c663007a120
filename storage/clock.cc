#include "storage/clock.h"

#include <chrono>

namespace rtb::storage {
namespace {

class SystemClockImpl : public Clock {
 public:
  int64_t NowMillis() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

std::shared_ptr<Clock> SystemClock() {
  static const std::shared_ptr<Clock> clock = std::make_shared<SystemClockImpl>();
  return clock;
}

}  // namespace rtb::storage
