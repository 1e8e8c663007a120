#include "pacing/internal/pacing_metrics.h"

#include "prometheus/family.h"

namespace rtb::pacing::internal {

namespace {

prometheus::Family<prometheus::Counter>& CounterFamily(prometheus::Registry& registry,
                                                       const std::string& name,
                                                       const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

prometheus::Family<prometheus::Gauge>& GaugeFamily(prometheus::Registry& registry,
                                                   const std::string& name,
                                                   const std::string& help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(registry);
}

}  // namespace

PacingMetrics::PacingMetrics(prometheus::Registry* registry,
                             const std::vector<std::string>& campaign_ids,
                             const std::vector<int64_t>& budgets_micros, bool flushes) {
  if (registry == nullptr) return;
  if (flushes) RegisterFlushMetrics(*registry);
  RegisterCampaignMetrics(*registry);
  SetCampaigns(campaign_ids, budgets_micros);
  RegisterControllerMetrics(*registry);
  if (flushes) RegisterJournalMetrics(*registry);
}

// What a worker's flusher writes to its budget shard.
void PacingMetrics::RegisterFlushMetrics(prometheus::Registry& registry) {
  flushed_family_ = &CounterFamily(registry, "bidder_pacing_spend_flushed_micros_total",
                                   "Spend this worker wrote to its budget shard, micro-units of "
                                   "the campaign's currency");
  flush_failures_ = &CounterFamily(registry, "bidder_pacing_flush_failures_total",
                                   "Budget shard Increments that failed; their amount is kept "
                                   "for the next flush")
                         .Add({});
}

// One series per campaign each (SetCampaigns adds them).
void PacingMetrics::RegisterCampaignMetrics(prometheus::Registry& registry) {
  spent_family_ = &GaugeFamily(registry, "bidder_pacing_spend_today_micros",
                               "Today's spend over the 16 budget shards, in the campaign's day "
                               "and currency");
  budget_family_ = &GaugeFamily(registry, "bidder_pacing_budget_micros",
                                "Daily budget, micro-units of the campaign's currency");
  throttle_family_ = &GaugeFamily(registry, "bidder_pacing_throttle_ratio",
                                  "Published probability that the campaign bids; 0 = stopped");
  bound_family_ = &GaugeFamily(registry, "bidder_pacing_overspend_bound_micros",
                               "Most spend workers may hold unflushed, which the stop keeps "
                               "below the cap");
}

// The controller's decisions as the bid path reads them, and its store calls.
void PacingMetrics::RegisterControllerMetrics(prometheus::Registry& registry) {
  state_age_ = &GaugeFamily(registry, "bidder_pacing_state_age_seconds",
                            "Age of the oldest campaign decision the bid path reads")
                    .Add({});
  stale_campaigns_ = &GaugeFamily(registry, "bidder_pacing_stale_campaigns",
                                  "Campaigns stopped because their decision is older than "
                                  "pacing.state_max_age_ms (fail safe)")
                          .Add({});
  refusals_ = &CounterFamily(registry, "bidder_pacing_fail_safe_refusals_total",
                             "Bids refused because the campaign's pacing decision was too old")
                   .Add({});
  auto& errors = CounterFamily(registry, "bidder_pacing_store_errors_total",
                               "Failed store calls of the pacing controller, by operation");
  for (const char* operation :
       {"scan", "board_read", "board_write", "journal", "impression_read", "position_read"}) {
    store_errors_.push_back(&errors.Add({{"operation", operation}}));
  }
}

// The spend journal of a worker that flushes.
void PacingMetrics::RegisterJournalMetrics(prometheus::Registry& registry) {
  auto& journal = CounterFamily(registry, "bidder_pacing_journal_entries_total",
                                "Spend journal entries, by what became of them");
  for (const char* outcome : {"committed", "abandoned", "failed", "unsettled", "resolved_committed",
                              "resolved_abandoned", "recovered"}) {
    journal_.push_back(&journal.Add({{"outcome", outcome}}));
  }
  journal_waiting_ = &GaugeFamily(registry, "bidder_pacing_journal_waiting_entries",
                                  "Spend journal entries begun but not yet counted in the "
                                  "budget: in flight, unsettled, or held back by the watermark")
                          .Add({});
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
