#include "pricing/internal/campaign_figures.h"

#include <cmath>
#include <cstdint>

namespace rtb::pricing::internal {
namespace {

constexpr size_t kCountersPerLine = 64 / sizeof(std::atomic<int64_t>);

int64_t Micros(double v) { return std::isfinite(v) ? std::llround(v * 1e6) : 0; }

}  // namespace

CampaignFigures::CampaignFigures(size_t campaigns)
    : campaigns_(campaigns),
      stride_((campaigns * kCounters + kCountersPerLine - 1) / kCountersPerLine * kCountersPerLine),
      storage_(new std::atomic<int64_t>[kStripes * stride_ + kCountersPerLine]) {
  for (size_t i = 0; i < kStripes * stride_ + kCountersPerLine; ++i) {
    storage_[i].store(0, std::memory_order_relaxed);
  }
  const auto address = reinterpret_cast<uintptr_t>(storage_.get());
  counters_ = storage_.get() + (64 - address % 64) % 64 / sizeof(std::atomic<int64_t>);
}

size_t CampaignFigures::ThreadStripe() {
  static std::atomic<size_t> next{0};
  thread_local const size_t stripe = next.fetch_add(1, std::memory_order_relaxed) % kStripes;
  return stripe;
}

void CampaignFigures::AddBid(size_t campaign, bool first_price, double factor) {
  if (campaign >= campaigns_) return;
  const size_t stripe = ThreadStripe();
  At(stripe, campaign, kBids).fetch_add(1, std::memory_order_relaxed);
  if (!first_price) return;
  At(stripe, campaign, kFirstPriceBids).fetch_add(1, std::memory_order_relaxed);
  At(stripe, campaign, kFactorMicros).fetch_add(Micros(factor), std::memory_order_relaxed);
}

void CampaignFigures::AddNotice(size_t campaign, bool won, double clearing_usd_cpm) {
  if (campaign >= campaigns_) return;
  const size_t stripe = ThreadStripe();
  if (!won) {
    At(stripe, campaign, kPriceLosses).fetch_add(1, std::memory_order_relaxed);
    return;
  }
  At(stripe, campaign, kWins).fetch_add(1, std::memory_order_relaxed);
  At(stripe, campaign, kClearingMicros)
      .fetch_add(Micros(clearing_usd_cpm), std::memory_order_relaxed);
}

CampaignFigures::Totals CampaignFigures::Sum(size_t campaign) const {
  Totals totals;
  if (campaign >= campaigns_) return totals;
  for (size_t s = 0; s < kStripes; ++s) {
    auto load = [&](Counter c) { return At(s, campaign, c).load(std::memory_order_relaxed); };
    totals.bids += load(kBids);
    totals.first_price_bids += load(kFirstPriceBids);
    totals.factor_sum += static_cast<double>(load(kFactorMicros)) / 1e6;
    totals.wins += load(kWins);
    totals.price_losses += load(kPriceLosses);
    totals.clearing_sum_usd += static_cast<double>(load(kClearingMicros)) / 1e6;
  }
  return totals;
}

}  // namespace rtb::pricing::internal
