// Wall-clock time for everything that assigns timestamps or evaluates expiry.
// Injected so tests can move time forward without sleeping (TTL, nonces,
// compaction), as RocksDB's mock time env does.
//
// Thread-safety: implementations are safe to call from any thread.
#ifndef RTB_STORAGE_CLOCK_H_
#define RTB_STORAGE_CLOCK_H_

#include <atomic>
#include <cstdint>
#include <memory>

namespace rtb::storage {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch.
  virtual int64_t NowMillis() const = 0;
};

// The system clock.
std::shared_ptr<Clock> SystemClock();

// A clock that moves only when told to.
class ManualClock : public Clock {
 public:
  explicit ManualClock(int64_t start_millis) : now_(start_millis) {}
  int64_t NowMillis() const override { return now_.load(std::memory_order_acquire); }
  void Advance(int64_t millis) { now_.fetch_add(millis, std::memory_order_acq_rel); }
  void Set(int64_t millis) { now_.store(millis, std::memory_order_release); }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace rtb::storage

#endif  // RTB_STORAGE_CLOCK_H_
