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
#ifndef RTB_BIDDER_PACING_SNAPSHOT_H_
#define RTB_BIDDER_PACING_SNAPSHOT_H_

#include <cstddef>

namespace rtb::bidder {

class PacingSnapshot {
 public:
  virtual ~PacingSnapshot() = default;

  // True when campaign `campaign_index` may bid on this impression.
  // `uniform` is a random draw in [0, 1) made per impression, so a throttle of
  // p is applied as `uniform < p` without the implementation needing its own
  // random source.
  virtual bool MayBid(size_t campaign_index, double uniform) const = 0;
};

// Lets every campaign bid: there is no budget control behind it. It is what
// the bidder runs with until the pacing loop (the pacing issue) publishes real
// decisions, and must be replaced by that implementation then.
class UnpacedSnapshot final : public PacingSnapshot {
 public:
  bool MayBid(size_t /*campaign_index*/, double /*uniform*/) const override { return true; }
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_PACING_SNAPSHOT_H_
