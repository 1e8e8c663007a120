// The pricing loop: fits the model every pricing.fit_interval_s from what
// the beacon side counted (pricing/feedback.h, internal/shading_fitter.h)
// and publishes it to the bid path (pricing/pricer.h), in one of three roles:
//
//   kFitLocally     pacing.mode sidecar: each bidder fits for itself.
//   kFollowStore    pacing.mode pacer, in a bidder: reads the model rtb-pacer
//                   published (internal/model_board.h) at the same interval,
//                   and publishes it when it is newer than the one it has.
//   kFitAndPublish  rtb-pacer: fits and writes the model to the store (and
//                   publishes it to a Pricer, when given one).
//
// In the bidder roles it also writes the bid path's tally of first-price bids
// (internal/bid_tally.h) to the outcome rows every 10 seconds; a failed write
// is resent first, with its nonce, at the next one.
//
// A failed fit or read keeps the model the bid path has; once that is older
// than pricing.model_max_age_s the bid path stops shading (fail safe).
//
// Thread-safety: Create, Start and Stop from one thread; RunDue only while
// the loop is not started (tests and simulations drive it on a ManualClock).
#ifndef RTB_PRICING_PRICING_LOOP_H_
#define RTB_PRICING_PRICING_LOOP_H_

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "config/config.h"
#include "prometheus/registry.h"
#include "storage/clock.h"
#include "storage/store.h"

namespace rtb::pricing {

class Pricer;

namespace internal {
class ShadingFitter;
class LoopMetrics;
struct PricingModel;
}  // namespace internal

enum class PricingRole { kFitLocally, kFollowStore, kFitAndPublish };

// The role of a bidder's loop under `pacing`: kFitLocally in sidecar mode,
// kFollowStore in pacer mode.
PricingRole BidderPricingRole(const config::PacingConfig& pacing);

class PricingLoop {
 public:
  // `store` must hold the `pricing` table; it, `pricer` (null only for
  // kFitAndPublish) and `registry` (may be null) must outlive the loop.
  // `clock`: default the system clock.
  static absl::StatusOr<std::unique_ptr<PricingLoop>> Create(
      const config::BidderConfig& config, storage::Store& store, Pricer* pricer, PricingRole role,
      prometheus::Registry* registry, std::shared_ptr<const storage::Clock> clock = nullptr);
  ~PricingLoop();  // Stop()
  PricingLoop(const PricingLoop&) = delete;
  PricingLoop& operator=(const PricingLoop&) = delete;

  // Fits (or reads) the first model before returning, then starts the thread.
  // A failure of that first step is counted, not returned: the bid path then
  // bids unshaded until a later step succeeds. FailedPrecondition when
  // already started.
  absl::Status Start();
  // Stops the thread; the step in progress finishes first. Idempotent.
  void Stop();

  // Runs what is due at the clock's time.
  void RunDue();
  int64_t NextDueMillis() const;
  // Writes the bid tally now (and what earlier writes left).
  void FlushBidCounts();
  // computed_at of the last model this loop fitted or read; 0 before one.
  int64_t model_version() const { return model_version_; }

 private:
  PricingLoop();
  void Step(int64_t now_ms);
  void Publish(const internal::PricingModel& model);
  void ExportAge(int64_t now_ms);
  void Run();

  PricingRole role_ = PricingRole::kFitLocally;
  Pricer* pricer_ = nullptr;
  storage::Store* store_ = nullptr;
  std::shared_ptr<const storage::Clock> clock_;
  int64_t interval_ms_ = 0;
  std::unique_ptr<internal::ShadingFitter> fitter_;
  std::unique_ptr<internal::LoopMetrics> metrics_;
  std::vector<uint64_t> exchange_bits_;
  int64_t next_due_ms_ = 0;
  int64_t next_flush_ms_ = 0;
  int64_t model_version_ = 0;
  uint64_t next_nonce_ = 0;
  std::vector<storage::Increment> unwritten_;

  absl::Mutex mutex_;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread thread_;
};

}  // namespace rtb::pricing

#endif  // RTB_PRICING_PRICING_LOOP_H_
