// Writes a worker's recorded spend to its budget shard: per campaign with
// spend, one Increment of spend:<day> on row campaignId|NN (see
// budget_shard.h), with a nonce.
//
// A failed Increment is kept verbatim (same row, day, amount and nonce) and
// sent again first at the next flush; spend recorded meanwhile stays in the
// recorder until that retry succeeds. So a retry the store had in fact
// applied is recognised by its nonce and counts once, and new spend is never
// folded into an amount the store may already hold. An Unavailable or
// DeadlineExceeded answer ends the flush: the campaigns not reached keep their
// spend for the next one, and a store that is down costs one timeout.
//
// Thread-safety: one thread calls Flush (the pacing loop).
#ifndef RTB_PACING_INTERNAL_SPEND_FLUSHER_H_
#define RTB_PACING_INTERNAL_SPEND_FLUSHER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pacing/internal/campaign_budget.h"
#include "pacing/internal/pacing_metrics.h"
#include "pacing/pacer.h"
#include "storage/store.h"

namespace rtb::pacing::internal {

struct FlushResult {
  int increments_ok = 0;
  int increments_failed = 0;
  int64_t micros_flushed = 0;
};

class SpendFlusher {
 public:
  // `campaigns`, `recorder`, `store` and `metrics` must outlive this.
  // `nonce_seed` must differ between incarnations of a worker.
  SpendFlusher(int worker_id, const std::vector<CampaignBudget>& campaigns, SpendRecorder& recorder,
               storage::Store& store, PacingMetrics& metrics, uint64_t nonce_seed);

  // Flushes what was recorded up to `as_of_ms`, attributed to the day each
  // campaign was in just before that instant (so a flush scheduled at a
  // campaign's midnight books the day that ended).
  FlushResult Flush(int64_t as_of_ms);

  // Starts flushing the campaigns appended to `campaigns` since (positions
  // are kept for good).
  void TrackAppendedCampaigns();

  // Spend held by failed Increments, per campaign (0 when none).
  int64_t Unacknowledged(size_t campaign) const;

 private:
  uint64_t NextNonce();

  int worker_id_;
  const std::vector<CampaignBudget>& campaigns_;
  SpendRecorder& recorder_;
  storage::Store& store_;
  PacingMetrics& metrics_;
  std::vector<std::string> rows_;
  std::vector<std::optional<storage::Increment>> unacknowledged_;
  uint64_t nonce_seed_;
  uint64_t sequence_ = 0;
};

}  // namespace rtb::pacing::internal

#endif  // RTB_PACING_INTERNAL_SPEND_FLUSHER_H_
