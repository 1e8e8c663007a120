#include "pacing/internal/spend_flusher.h"

#include <utility>

#include "pacing/internal/budget_controller.h"
#include "pacing/internal/budget_shard.h"
#include "storage/schemas.h"

namespace rtb::pacing::internal {
namespace {

// SplitMix64's finaliser: distinct inputs give distinct, well-spread outputs.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

SpendFlusher::SpendFlusher(int worker_id, const std::vector<CampaignBudget>& campaigns,
                           SpendRecorder& recorder, storage::Store& store, PacingMetrics& metrics,
                           uint64_t nonce_seed)
    : worker_id_(worker_id),
      campaigns_(campaigns),
      recorder_(recorder),
      store_(store),
      metrics_(metrics),
      unacknowledged_(campaigns.size()),
      nonce_seed_(Mix(nonce_seed ^ (static_cast<uint64_t>(worker_id) << 48))) {
  TrackAppendedCampaigns();
}

void SpendFlusher::TrackAppendedCampaigns() {
  for (size_t i = rows_.size(); i < campaigns_.size(); ++i) {
    rows_.push_back(BudgetShardRow(campaigns_[i].id, ShardOf(worker_id_)));
  }
  unacknowledged_.resize(campaigns_.size());
}

uint64_t SpendFlusher::NextNonce() {
  const uint64_t nonce = Mix(nonce_seed_ + ++sequence_);
  return nonce == 0 ? 1 : nonce;  // 0 means "no nonce"
}

int64_t SpendFlusher::Unacknowledged(size_t campaign) const {
  const std::optional<storage::Increment>& pending = unacknowledged_[campaign];
  return pending ? pending->columns.front().amount : 0;
}

FlushResult SpendFlusher::Flush(int64_t as_of_ms) {
  FlushResult result;
  for (size_t i = 0; i < campaigns_.size(); ++i) {
    std::optional<storage::Increment>& pending = unacknowledged_[i];
    if (pending) {
      if (absl::Status s = store_.Increment(storage::kBudgetTable, *pending).status(); !s.ok()) {
        ++result.increments_failed;
        metrics_.CountFlushFailure();
        if (StoreIsDown(s)) break;
        continue;
      }
      const int64_t amount = pending->columns.front().amount;
      ++result.increments_ok;
      result.micros_flushed += amount;
      metrics_.AddFlushed(i, amount);
      pending.reset();
    }
    const int64_t amount = recorder_.Take(i);
    if (amount == 0) continue;
    storage::Increment increment;
    increment.row = rows_[i];
    increment.columns.push_back(storage::IncrementColumn{
        std::string(kSpendFamily), DayQualifier(campaigns_[i].day.DayAt(as_of_ms - 1)), amount});
    increment.nonce = NextNonce();
    if (absl::Status s = store_.Increment(storage::kBudgetTable, increment).status(); !s.ok()) {
      ++result.increments_failed;
      metrics_.CountFlushFailure();
      pending = std::move(increment);
      // The campaigns not reached keep their spend in the recorder.
      if (StoreIsDown(s)) break;
      continue;
    }
    ++result.increments_ok;
    result.micros_flushed += amount;
    metrics_.AddFlushed(i, amount);
  }
  return result;
}

}  // namespace rtb::pacing::internal
