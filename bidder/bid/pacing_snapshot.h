// What the auction asks the pacing loop, once per candidate campaign: may this
// campaign bid now? The pacing loop (pacing/, its own thread or process)
// publishes throttle and stop decisions; the bid path only reads them, so an
// implementation must answer without locks or I/O (e.g. read a state that the
// loop swaps in through a std::atomic<std::shared_ptr<const State>>, or plain
// atomics per campaign).
//
// Campaigns are named by their position in config.campaigns (the same index
// the CampaignIndex gives them), so a decision is an array read.
//
// Thread-safety: MayBid is called concurrently from every I/O thread.
#ifndef RTB_BIDDER_BID_PACING_SNAPSHOT_H_
#define RTB_BIDDER_BID_PACING_SNAPSHOT_H_

#include <cstddef>
#include <cstdint>

#include "pacing/pacer.h"

namespace rtb::bidder {

class PacingSnapshot {
 public:
  virtual ~PacingSnapshot() = default;

  // True when campaign `campaign_index` may bid on this impression.
  // `uniform` is a random draw in [0, 1) made per impression, so a throttle of
  // p is applied as `uniform < p` without the implementation needing its own
  // random source. `now_ms` is the auction's clock (Unix milliseconds), read
  // once per request rather than once per candidate.
  virtual bool MayBid(size_t campaign_index, double uniform, int64_t now_ms) const = 0;
};

// The decisions the pacing loop publishes (pacing/pacer.h): what the bidder
// process runs with. Two relaxed atomic loads; a decision older than
// pacing.state_max_age_ms at `now_ms` refuses (fail safe).
class PacerSnapshot final : public PacingSnapshot {
 public:
  explicit PacerSnapshot(const pacing::Decisions& decisions) : decisions_(decisions) {}
  bool MayBid(size_t campaign_index, double uniform, int64_t now_ms) const override {
    return decisions_.MayBid(campaign_index, uniform, now_ms);
  }

 private:
  const pacing::Decisions& decisions_;
};

// Lets every campaign bid, with no budget control behind it: for tests and
// benchmarks of the auction that leave pacing out. The bidder process never
// uses it.
class UnpacedSnapshot final : public PacingSnapshot {
 public:
  bool MayBid(size_t /*campaign_index*/, double /*uniform*/, int64_t /*now_ms*/) const override {
    return true;
  }
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_PACING_SNAPSHOT_H_
