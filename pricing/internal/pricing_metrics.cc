#include "pricing/internal/pricing_metrics.h"

#include "prometheus/family.h"

namespace rtb::pricing::internal {
namespace {

prometheus::Histogram::BucketBoundaries FactorBuckets() {
  return {0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.99, 1.0};
}

}  // namespace

BidPricingMetrics::BidPricingMetrics(prometheus::Registry* registry,
                                     const std::vector<std::string>& exchanges) {
  if (registry == nullptr) return;
  auto& bids = prometheus::BuildCounter()
                   .Name("bidder_pricing_bids_total")
                   .Help("Bids sent, by exchange and how their price was chosen")
                   .Register(*registry);
  auto& factor = prometheus::BuildHistogram()
                     .Name("bidder_pricing_shading_factor")
                     .Help("Price over value of first-price bids, by exchange")
                     .Register(*registry);
  for (const std::string& exchange : exchanges) {
    std::array<std::unique_ptr<metrics::ShardedCounter>, kPriceOutcomeNames.size()> handles;
    for (size_t i = 0; i < kPriceOutcomeNames.size(); ++i) {
      handles[i] = std::make_unique<metrics::ShardedCounter>(
          bids,
          metrics::Labels{{"exchange", exchange}, {"outcome", std::string(kPriceOutcomeNames[i])}});
    }
    bids_.push_back(std::move(handles));
    factor_.push_back(std::make_unique<metrics::ShardedHistogram>(
        factor, metrics::Labels{{"exchange", exchange}}, FactorBuckets()));
  }
}

void BidPricingMetrics::CountBid(size_t exchange, size_t outcome, bool first_price, double factor) {
  if (exchange >= bids_.size() || outcome >= kPriceOutcomeNames.size()) return;
  bids_[exchange][outcome]->Increment();
  if (first_price) factor_[exchange]->Observe(factor);
}

FeedbackMetrics::FeedbackMetrics(prometheus::Registry* registry,
                                 const std::vector<std::string>& exchanges) {
  if (registry == nullptr) return;
  auto& notices = prometheus::BuildCounter()
                      .Name("bidder_pricing_notices_total")
                      .Help("Win and loss notices counted for the win-rate curves, by kind")
                      .Register(*registry);
  auto& clearing = prometheus::BuildCounter()
                       .Name("bidder_pricing_clearing_cpm_total")
                       .Help("Sum of the clearing prices of won bids, USD CPM")
                       .Register(*registry);
  failures_ = &prometheus::BuildCounter()
                   .Name("bidder_pricing_feedback_failures_total")
                   .Help("Outcome and engagement counts the store refused (not retried)")
                   .Register(*registry)
                   .Add({});
  std::vector<std::string> names = exchanges;
  names.push_back("other");
  constexpr std::array<const char*, static_cast<size_t>(NoticeKind::kCount)> kKinds = {
      "win", "price_loss", "other_loss"};
  for (const std::string& exchange : names) {
    std::array<prometheus::Counter*, static_cast<size_t>(NoticeKind::kCount)> handles{};
    for (size_t k = 0; k < kKinds.size(); ++k) {
      handles[k] = &notices.Add({{"exchange", exchange}, {"kind", kKinds[k]}});
    }
    notices_.push_back(handles);
    clearing_.push_back(&clearing.Add({{"exchange", exchange}}));
  }
}

void FeedbackMetrics::CountNotice(size_t exchange, NoticeKind kind, double clearing_usd_cpm) {
  if (notices_.empty()) return;
  if (exchange >= notices_.size()) exchange = notices_.size() - 1;
  notices_[exchange][static_cast<size_t>(kind)]->Increment();
  if (kind == NoticeKind::kWin && clearing_usd_cpm > 0) {
    clearing_[exchange]->Increment(clearing_usd_cpm);
  }
}

void FeedbackMetrics::CountFailure() {
  if (failures_ != nullptr) failures_->Increment();
}

LoopMetrics::LoopMetrics(prometheus::Registry* registry,
                         const std::vector<std::string>& exchanges) {
  if (registry == nullptr) return;
  auto& win_rate = prometheus::BuildGauge()
                       .Name("bidder_pricing_win_rate_ratio")
                       .Help(
                           "Wins over wins and price losses of every bidder's first-price bids "
                           "within pricing.window_hours, by exchange")
                       .Register(*registry);
  auto& clearing = prometheus::BuildGauge()
                       .Name("bidder_pricing_clearing_price_cpm")
                       .Help(
                           "Average clearing price of every bidder's first-price wins within "
                           "pricing.window_hours, USD CPM, by exchange")
                       .Register(*registry);
  auto& shaded = prometheus::BuildGauge()
                     .Name("bidder_pricing_shaded_buckets")
                     .Help("Buckets of the exchange with a win-rate curve in the model")
                     .Register(*registry);
  for (const std::string& exchange : exchanges) {
    win_rate_.push_back(&win_rate.Add({{"exchange", exchange}}));
    clearing_.push_back(&clearing.Add({{"exchange", exchange}}));
    shaded_.push_back(&shaded.Add({{"exchange", exchange}}));
  }
  model_age_ = &prometheus::BuildGauge()
                    .Name("bidder_pricing_model_age_seconds")
                    .Help("Age of the pricing model the bid path reads; 0 before the first")
                    .Register(*registry)
                    .Add({});
  fit_seconds_ = &prometheus::BuildGauge()
                      .Name("bidder_pricing_fit_seconds")
                      .Help("Duration of the last fit of the win-rate curves")
                      .Register(*registry)
                      .Add({});
  auto& errors = prometheus::BuildCounter()
                     .Name("bidder_pricing_store_errors_total")
                     .Help("Store calls of the pricing loop that failed, by operation")
                     .Register(*registry);
  constexpr std::array<const char*, static_cast<size_t>(PricingStoreOperation::kCount)> kNames = {
      "fit_read", "model_write", "model_read", "bid_count_write"};
  for (size_t i = 0; i < kNames.size(); ++i) {
    store_errors_[i] = &errors.Add({{"operation", kNames[i]}});
  }
}

void LoopMetrics::SetExchange(size_t exchange, double win_rate, double clearing_cpm,
                              int shaded_buckets) {
  if (exchange >= win_rate_.size()) return;
  win_rate_[exchange]->Set(win_rate);
  clearing_[exchange]->Set(clearing_cpm);
  shaded_[exchange]->Set(shaded_buckets);
}

void LoopMetrics::SetModelAge(double seconds) {
  if (model_age_ != nullptr) model_age_->Set(seconds);
}

void LoopMetrics::SetFitSeconds(double seconds) {
  if (fit_seconds_ != nullptr) fit_seconds_->Set(seconds);
}

void LoopMetrics::CountStoreError(PricingStoreOperation operation) {
  if (store_errors_[0] != nullptr) store_errors_[static_cast<size_t>(operation)]->Increment();
}

}  // namespace rtb::pricing::internal
