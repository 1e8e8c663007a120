#include "pacing/internal/pacing_metrics.h"

#include "prometheus/family.h"

namespace rtb::pacing::internal {

PacingMetrics::PacingMetrics(prometheus::Registry* registry,
                             const std::vector<std::string>& campaign_ids,
                             const std::vector<int64_t>& budgets_micros, bool flushes) {
  if (registry == nullptr) return;
  if (flushes) {
    auto& flushed = prometheus::BuildCounter()
                        .Name("bidder_pacing_spend_flushed_micros_total")
                        .Help(
                            "Spend this worker wrote to its budget shard, micro-units of the "
                            "campaign's currency")
                        .Register(*registry);
    flushed_family_ = &flushed;
    flush_failures_ = &prometheus::BuildCounter()
                           .Name("bidder_pacing_flush_failures_total")
                           .Help(
                               "Budget shard Increments that failed; their amount is kept for "
                               "the next flush")
                           .Register(*registry)
                           .Add({});
  }
  auto& spent = prometheus::BuildGauge()
                    .Name("bidder_pacing_spend_today_micros")
                    .Help(
                        "Today's spend over the 16 budget shards, in the campaign's day and "
                        "currency")
                    .Register(*registry);
  auto& budget = prometheus::BuildGauge()
                     .Name("bidder_pacing_budget_micros")
                     .Help("Daily budget, micro-units of the campaign's currency")
                     .Register(*registry);
  auto& throttle = prometheus::BuildGauge()
                       .Name("bidder_pacing_throttle_ratio")
                       .Help("Published probability that the campaign bids; 0 = stopped")
                       .Register(*registry);
  auto& bound = prometheus::BuildGauge()
                    .Name("bidder_pacing_overspend_bound_micros")
                    .Help(
                        "Most spend workers may hold unflushed, which the stop keeps below "
                        "the cap")
                    .Register(*registry);
  spent_family_ = &spent;
  budget_family_ = &budget;
  throttle_family_ = &throttle;
  bound_family_ = &bound;
  SetCampaigns(campaign_ids, budgets_micros);
  state_age_ = &prometheus::BuildGauge()
                    .Name("bidder_pacing_state_age_seconds")
                    .Help("Age of the oldest campaign decision the bid path reads")
                    .Register(*registry)
                    .Add({});
  stale_campaigns_ = &prometheus::BuildGauge()
                          .Name("bidder_pacing_stale_campaigns")
                          .Help(
                              "Campaigns stopped because their decision is older than "
                              "pacing.state_max_age_ms (fail safe)")
                          .Register(*registry)
                          .Add({});
  refusals_ = &prometheus::BuildCounter()
                   .Name("bidder_pacing_fail_safe_refusals_total")
                   .Help("Bids refused because the campaign's pacing decision was too old")
                   .Register(*registry)
                   .Add({});
  auto& errors = prometheus::BuildCounter()
                     .Name("bidder_pacing_store_errors_total")
                     .Help("Failed store calls of the pacing controller, by operation")
                     .Register(*registry);
  for (const char* operation :
       {"scan", "board_read", "board_write", "journal", "impression_read", "position_read"}) {
    store_errors_.push_back(&errors.Add({{"operation", operation}}));
  }
  if (flushes) {
    auto& journal = prometheus::BuildCounter()
                        .Name("bidder_pacing_journal_entries_total")
                        .Help("Spend journal entries, by what became of them")
                        .Register(*registry);
    for (const char* outcome : {"committed", "abandoned", "failed", "unsettled",
                                "resolved_committed", "resolved_abandoned", "recovered"}) {
      journal_.push_back(&journal.Add({{"outcome", outcome}}));
    }
    journal_waiting_ = &prometheus::BuildGauge()
                            .Name("bidder_pacing_journal_waiting_entries")
                            .Help(
                                "Spend journal entries begun but not yet counted in the budget: "
                                "in flight, unsettled, or held back by the watermark")
                            .Register(*registry)
                            .Add({});
  }
}

void PacingMetrics::SetCampaigns(const std::vector<std::string>& campaign_ids,
                                 const std::vector<int64_t>& budgets_micros) {
  if (spent_family_ == nullptr) return;
  for (size_t i = spent_today_.size(); i < campaign_ids.size(); ++i) {
    const prometheus::Labels labels{{"campaign", campaign_ids[i]}};
    if (flushed_family_ != nullptr) flushed_.push_back(&flushed_family_->Add(labels));
    spent_today_.push_back(&spent_family_->Add(labels));
    budget_.push_back(&budget_family_->Add(labels));
    throttle_.push_back(&throttle_family_->Add(labels));
    bound_.push_back(&bound_family_->Add(labels));
  }
  for (size_t i = 0; i < budgets_micros.size() && i < budget_.size(); ++i) {
    budget_[i]->Set(static_cast<double>(budgets_micros[i]));
  }
}

void PacingMetrics::AddFlushed(size_t campaign, int64_t micros) {
  if (campaign < flushed_.size()) flushed_[campaign]->Increment(static_cast<double>(micros));
}

void PacingMetrics::CountFlushFailure() {
  if (flush_failures_ != nullptr) flush_failures_->Increment();
}

void PacingMetrics::SetCampaign(size_t campaign, int64_t spent_today_micros, double throttle,
                                int64_t overspend_bound_micros) {
  if (campaign >= spent_today_.size()) return;
  spent_today_[campaign]->Set(static_cast<double>(spent_today_micros));
  throttle_[campaign]->Set(throttle);
  bound_[campaign]->Set(static_cast<double>(overspend_bound_micros));
}

void PacingMetrics::SetStateAge(double seconds, int stale_campaigns) {
  if (state_age_ == nullptr) return;
  state_age_->Set(seconds);
  stale_campaigns_->Set(stale_campaigns);
}

void PacingMetrics::AddFailSafeRefusals(uint64_t refusals) {
  if (refusals_ != nullptr && refusals > 0) refusals_->Increment(static_cast<double>(refusals));
}

void PacingMetrics::CountStoreError(StoreOperation operation) {
  const size_t index = static_cast<size_t>(operation);
  if (index < store_errors_.size()) store_errors_[index]->Increment();
}

void PacingMetrics::SetJournalWaiting(size_t entries) {
  if (journal_waiting_ != nullptr) journal_waiting_->Set(static_cast<double>(entries));
}

void PacingMetrics::CountJournal(JournalOutcome outcome, int entries) {
  const size_t index = static_cast<size_t>(outcome);
  if (index < journal_.size() && entries > 0) journal_[index]->Increment(entries);
}

}  // namespace rtb::pacing::internal
