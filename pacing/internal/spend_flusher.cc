#include "pacing/internal/spend_flusher.h"

#include <algorithm>
#include <random>
#include <utility>

#include "pacing/internal/budget_controller.h"
#include "pacing/internal/budget_shard.h"
#include "storage/key_bytes.h"
#include "storage/schemas.h"

namespace rtb::pacing::internal {
namespace {

// A splitmix64 step: the golden-ratio increment, then the finaliser. Distinct
// inputs give distinct, well-spread outputs.
uint64_t Mix(uint64_t x) { return storage::SplitMix64Finalize(x + 0x9e3779b97f4a7c15ULL); }

}  // namespace

uint64_t RandomNonceSeed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

SpendFlusher::SpendFlusher(int worker_id, const std::vector<CampaignBudget>& campaigns,
                           SpendRecorder& recorder, storage::Store& store, PacingMetrics& metrics,
                           uint64_t nonce_seed, WorkerSpendJournal* journal)
    : worker_id_(worker_id),
      campaigns_(campaigns),
      recorder_(recorder),
      store_(store),
      metrics_(metrics),
      journal_(journal),
      position_qualifier_(PositionQualifier(worker_id)),
      unacknowledged_(campaigns.size()),
      recovered_(journal == nullptr),
      nonce_seed_(Mix(nonce_seed ^ (static_cast<uint64_t>(worker_id) << 48))) {
  TrackAppendedCampaigns();
}

void SpendFlusher::TrackAppendedCampaigns() {
  for (size_t i = rows_.size(); i < campaigns_.size(); ++i) {
    rows_.push_back(BudgetShardRow(campaigns_[i].id, ShardOf(worker_id_)));
  }
  unacknowledged_.resize(campaigns_.size());
  // Before recovery, Recover reads every position; after it, a campaign
  // appended now may still have a position row of an earlier incarnation,
  // read before its first Increment moves it.
  journaled_.resize(campaigns_.size(), JournaledCampaign{.position_read = !recovered_});
  if (journal_ != nullptr) journal_->TrackCampaigns(campaigns_);
}

bool SpendFlusher::ReadPosition(size_t i) {
  JournaledCampaign& campaign = journaled_[i];
  if (campaign.position_read) return true;
  storage::Get get;
  get.row = rows_[i];
  get.columns = {storage::Column{std::string(kSpendFamily), position_qualifier_}};
  absl::StatusOr<storage::RowResult> row = store_.Get(storage::kBudgetTable, get);
  if (!row.ok()) {
    metrics_.CountStoreError(StoreOperation::kPositionRead);
    return false;
  }
  campaign.position = row->Counter(kSpendFamily, position_qualifier_).value_or(0);
  campaign.position_read = true;
  return true;
}

uint64_t SpendFlusher::NextNonce() {
  const uint64_t nonce = Mix(nonce_seed_ + ++sequence_);
  return nonce == 0 ? 1 : nonce;  // 0 means "no nonce"
}

bool SpendFlusher::Idle() const {
  if (!recovered_ || !deletable_.empty()) return false;
  if (journal_ != nullptr && !journal_->Drained()) return false;
  for (const JournaledCampaign& c : journaled_) {
    if (!c.unsent.empty() || c.in_doubt) return false;
  }
  return true;
}

int64_t SpendFlusher::Unacknowledged(size_t campaign) const {
  if (journal_ != nullptr) {
    const JournaledCampaign& c = journaled_[campaign];
    return c.unsent.micros() + (c.in_doubt ? c.in_doubt->batch.micros() : 0);
  }
  const std::optional<storage::Increment>& pending = unacknowledged_[campaign];
  return pending ? pending->columns.front().amount : 0;
}

FlushResult SpendFlusher::Flush(int64_t as_of_ms) {
  return journal_ != nullptr ? FlushJournaled(as_of_ms) : FlushRecorded(as_of_ms);
}

FlushResult SpendFlusher::FlushRecorded(int64_t as_of_ms) {
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

namespace rtb::pacing::internal {

void SpendFlusher::Batch::Add(std::string_view day, int64_t micros) {
  for (DaySpend& d : days) {
    if (d.day == day) {
      d.micros += micros;
      return;
    }
  }
  days.push_back(DaySpend{std::string(day), micros});
}

void SpendFlusher::Batch::Merge(Batch other) {
  for (const DaySpend& d : other.days) Add(d.day, d.micros);
  sequences.insert(sequences.end(), other.sequences.begin(), other.sequences.end());
  to = std::max(to, other.to);
}

int64_t SpendFlusher::Batch::micros() const {
  int64_t total = 0;
  for (const DaySpend& d : days) total += d.micros;
  return total;
}

absl::Status SpendFlusher::Recover() {
  if (recovered_) return absl::OkStatus();
  std::vector<storage::Get> gets;
  gets.reserve(rows_.size());
  for (const std::string& row : rows_) {
    storage::Get get;
    get.row = row;
    get.columns = {storage::Column{std::string(kSpendFamily), position_qualifier_}};
    gets.push_back(std::move(get));
  }
  absl::StatusOr<std::vector<storage::RowResult>> rows =
      store_.MultiGet(storage::kBudgetTable, gets);
  if (!rows.ok() || rows->size() != gets.size()) {
    metrics_.CountStoreError(StoreOperation::kPositionRead);
    return rows.ok() ? absl::InternalError("budget MultiGet answered a different number of rows")
                     : rows.status();
  }
  std::vector<int64_t> positions;
  positions.reserve(rows->size());
  for (const storage::RowResult& row : *rows) {
    positions.push_back(row.Counter(kSpendFamily, position_qualifier_).value_or(0));
  }
  absl::StatusOr<JournalRecovery> recovery = journal_->Recover(positions);
  if (!recovery.ok()) return recovery.status();
  for (size_t i = 0; i < positions.size(); ++i) {
    journaled_[i].position = positions[i];
    journaled_[i].position_read = true;
  }
  recovered_ = true;
  return absl::OkStatus();
}

FlushResult SpendFlusher::FlushJournaled(int64_t as_of_ms) {
  FlushResult result;
  if (!recovered_ && !Recover().ok()) {
    // Until the earlier incarnations' entries are known, no position may
    // move past them: everything waits in memory and in the journal.
    metrics_.CountFlushFailure();
    result.unrecovered = true;
    return result;
  }
  journal_->ResolveUnsettled();
  JournalRelease release = journal_->TakeReleased();
  for (size_t i = 0; i < campaigns_.size(); ++i) {
    Batch& unsent = journaled_[i].unsent;
    CampaignRelease& released = release.campaigns[i];
    for (const DaySpend& d : released.days) unsent.Add(d.day, d.micros);
    unsent.sequences.insert(unsent.sequences.end(), released.sequences.begin(),
                            released.sequences.end());
    // Every entry of the campaign up to W is in this batch or counted.
    if (!unsent.sequences.empty()) unsent.to = static_cast<int64_t>(release.watermark);
    if (const int64_t direct = recorder_.Take(i); direct > 0) {
      unsent.Add(DayQualifier(campaigns_[i].day.DayAt(as_of_ms - 1)), direct);
    }
  }
  for (size_t i = 0; i < campaigns_.size(); ++i) {
    JournaledCampaign& campaign = journaled_[i];
    if (campaign.in_doubt) {
      const Sent resolved = ResolveInDoubt(i, result);
      if (resolved == Sent::kStoreDown) break;
      if (resolved == Sent::kFailed) continue;
    }
    if (campaign.unsent.empty()) continue;
    if (!ReadPosition(i)) {
      ++result.increments_failed;
      metrics_.CountFlushFailure();
      continue;
    }
    Batch batch = std::move(campaign.unsent);
    campaign.unsent = Batch{};
    if (Send(i, std::move(batch), result) == Sent::kStoreDown) break;
  }
  if (!deletable_.empty() && journal_->DeleteEntries(deletable_).ok()) {
    result.entries_deleted = static_cast<int>(deletable_.size());
    deletable_.clear();
  }
  size_t waiting = journal_->waiting();
  for (const JournaledCampaign& c : journaled_) {
    waiting += c.unsent.sequences.size() + (c.in_doubt ? c.in_doubt->batch.sequences.size() : 0);
  }
  metrics_.SetJournalWaiting(waiting);
  return result;
}

SpendFlusher::Sent SpendFlusher::Send(size_t i, Batch batch, FlushResult& result) {
  JournaledCampaign& campaign = journaled_[i];
  storage::Increment increment;
  increment.row = rows_[i];
  for (const DaySpend& d : batch.days) {
    increment.columns.push_back(
        storage::IncrementColumn{std::string(kSpendFamily), d.day, d.micros});
  }
  const bool moves_position = batch.to > campaign.position;
  if (moves_position) {
    increment.columns.push_back(storage::IncrementColumn{
        std::string(kSpendFamily), position_qualifier_, batch.to - campaign.position});
  }
  increment.nonce = NextNonce();
  // The journal rows are deleted once this returns: it must outlive a crash.
  increment.durability = storage::Durability::kSyncWal;
  if (absl::Status s = store_.Increment(storage::kBudgetTable, increment).status(); !s.ok()) {
    ++result.increments_failed;
    metrics_.CountFlushFailure();
    campaign.in_doubt = InDoubt{std::move(batch), std::move(increment), moves_position};
    return StoreIsDown(s) ? Sent::kStoreDown : Sent::kFailed;
  }
  if (moves_position) campaign.position = batch.to;
  Counted(i, batch, result);
  return Sent::kOk;
}

SpendFlusher::Sent SpendFlusher::ResolveInDoubt(size_t i, FlushResult& result) {
  JournaledCampaign& campaign = journaled_[i];
  InDoubt& in_doubt = *campaign.in_doubt;
  if (in_doubt.moves_position) {
    // The row says whether the Increment was applied: its position moved
    // to the batch's, or it did not move at all.
    storage::Get get;
    get.row = rows_[i];
    get.columns = {storage::Column{std::string(kSpendFamily), position_qualifier_}};
    absl::StatusOr<storage::RowResult> row = store_.Get(storage::kBudgetTable, get);
    if (!row.ok()) {
      metrics_.CountStoreError(StoreOperation::kPositionRead);
      return StoreIsDown(row.status()) ? Sent::kStoreDown : Sent::kFailed;
    }
    const int64_t stored = row->Counter(kSpendFamily, position_qualifier_).value_or(0);
    campaign.position = stored;
    if (stored >= in_doubt.batch.to) {
      Counted(i, in_doubt.batch, result);
    } else {
      // Not applied: its spend goes with the campaign's next Increment.
      campaign.unsent.Merge(std::move(in_doubt.batch));
    }
    campaign.in_doubt.reset();
    return Sent::kOk;
  }
  // No position to read back: resent verbatim, the nonce lets the store
  // count it once.
  if (absl::Status s = store_.Increment(storage::kBudgetTable, in_doubt.increment).status();
      !s.ok()) {
    ++result.increments_failed;
    metrics_.CountFlushFailure();
    return StoreIsDown(s) ? Sent::kStoreDown : Sent::kFailed;
  }
  Counted(i, in_doubt.batch, result);
  campaign.in_doubt.reset();
  return Sent::kOk;
}

void SpendFlusher::Counted(size_t i, Batch& batch, FlushResult& result) {
  const int64_t micros = batch.micros();
  ++result.increments_ok;
  result.micros_flushed += micros;
  metrics_.AddFlushed(i, micros);
  deletable_.insert(deletable_.end(), batch.sequences.begin(), batch.sequences.end());
}

}  // namespace rtb::pacing::internal
