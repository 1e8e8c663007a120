// The pacing loop's metrics, declared once; the loop only updates handles.
// Label sets are bounded by the campaigns of the config.
//
//   bidder_pacing_spend_flushed_micros_total{campaign}  spend written to the worker's shard
//   bidder_pacing_flush_failures_total                  Increments that failed (amount kept)
//   bidder_pacing_spend_today_micros{campaign}          today's total over the 16 shards
//   bidder_pacing_budget_micros{campaign}               daily budget
//   bidder_pacing_throttle_ratio{campaign}              published bid probability, 0 = stopped
//   bidder_pacing_overspend_bound_micros{campaign}      max unflushed spend the stop allows for
//   bidder_pacing_state_age_seconds                     age of the oldest campaign decision
//   bidder_pacing_stale_campaigns                       campaigns stopped because their decision is
//   too old bidder_pacing_fail_safe_refusals_total              bids refused for that reason
//   bidder_pacing_store_errors_total{operation}         scan | board_read | board_write |
//                                                       journal | impression_read | position_read
//   bidder_pacing_journal_entries_total{outcome}        spend journal entries by what became of
//                                                       them: committed | abandoned | failed |
//                                                       unsettled | resolved_committed |
//                                                       resolved_abandoned | recovered
//   bidder_pacing_journal_waiting_entries               entries begun, not yet counted (after
//                                                       each flush)
//
// Money is in micro-units of each campaign's own currency. Every handle is
// null when no registry was given, and the setters then do nothing.
//
// Thread-safety: prometheus-cpp handles are safe from any thread.
#ifndef RTB_PACING_INTERNAL_PACING_METRICS_H_
#define RTB_PACING_INTERNAL_PACING_METRICS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace rtb::pacing::internal {

enum class StoreOperation : size_t {
  kScan,
  kBoardRead,
  kBoardWrite,
  kJournal,
  kImpressionRead,
  kPositionRead
};

enum class JournalOutcome : size_t {
  kCommitted,          // claimed: its spend counts
  kAbandoned,          // a duplicate claimed the impression: deleted
  kFailed,             // Begin could not write the entry
  kUnsettled,          // the claim failed without an answer
  kResolvedCommitted,  // an unsettled entry whose impression row names it
  kResolvedAbandoned,  // an unsettled entry whose impression row does not
  kRecovered,          // committed by an earlier incarnation, counted by this one
};

class PacingMetrics {
 public:
  // Declares the families in `registry` (may be null). Throws only on a name
  // clash with a metric of another type, a start-up error.
  PacingMetrics(prometheus::Registry* registry, const std::vector<std::string>& campaign_ids,
                const std::vector<int64_t>& budgets_micros, bool flushes);

  // Declares the series of campaigns appended since (ids[i] is campaign i;
  // existing ones keep theirs) and sets every daily budget gauge: the
  // campaigns changed while the bidder runs.
  void SetCampaigns(const std::vector<std::string>& campaign_ids,
                    const std::vector<int64_t>& budgets_micros);

  void AddFlushed(size_t campaign, int64_t micros);
  void CountFlushFailure();
  void SetCampaign(size_t campaign, int64_t spent_today_micros, double throttle,
                   int64_t overspend_bound_micros);
  void SetStateAge(double seconds, int stale_campaigns);
  void AddFailSafeRefusals(uint64_t refusals);
  void CountStoreError(StoreOperation operation);
  void CountJournal(JournalOutcome outcome, int entries = 1);
  void SetJournalWaiting(size_t entries);

 private:
  // The constructor's steps, in the order the families are registered.
  void RegisterFlushMetrics(prometheus::Registry& registry);
  void RegisterCampaignMetrics(prometheus::Registry& registry);
  void RegisterControllerMetrics(prometheus::Registry& registry);
  void RegisterJournalMetrics(prometheus::Registry& registry);

  prometheus::Family<prometheus::Counter>* flushed_family_ = nullptr;
  prometheus::Family<prometheus::Gauge>* spent_family_ = nullptr;
  prometheus::Family<prometheus::Gauge>* budget_family_ = nullptr;
  prometheus::Family<prometheus::Gauge>* throttle_family_ = nullptr;
  prometheus::Family<prometheus::Gauge>* bound_family_ = nullptr;
  std::vector<prometheus::Counter*> flushed_;
  std::vector<prometheus::Gauge*> budget_;
  prometheus::Counter* flush_failures_ = nullptr;
  std::vector<prometheus::Gauge*> spent_today_;
  std::vector<prometheus::Gauge*> throttle_;
  std::vector<prometheus::Gauge*> bound_;
  prometheus::Gauge* state_age_ = nullptr;
  prometheus::Gauge* stale_campaigns_ = nullptr;
  prometheus::Counter* refusals_ = nullptr;
  std::vector<prometheus::Counter*> store_errors_;
  std::vector<prometheus::Counter*> journal_;
  prometheus::Gauge* journal_waiting_ = nullptr;
};

}  // namespace rtb::pacing::internal

#endif  // RTB_PACING_INTERNAL_PACING_METRICS_H_
