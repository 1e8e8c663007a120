#include "pacing/internal/spend_journal.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "pacing/internal/budget_shard.h"
#include "pacing/internal/spend_journal_layout.h"
#include "storage/schemas.h"

namespace rtb::pacing::internal {
namespace {

// Rows per MultiGet and DeleteBatch.
constexpr size_t kBatchRows = 500;

storage::Delete WholeRow(std::string row) {
  storage::Delete del;
  del.row = std::move(row);
  // Losing a delete in a crash only leaves a counted entry, which the next
  // recovery deletes.
  del.durability = storage::Durability::kAsyncWal;
  return del;
}

storage::Get JournalColumnOf(const std::string& impression_id) {
  storage::Get get;
  get.row = impression_id;
  get.columns = {storage::Column{std::string(storage::kImpressionFamily),
                                 std::string(storage::kImpressionJournalColumn)}};
  return get;
}

// For each entry, whether its impression row names it: one MultiGet per
// kBatchRows entries.
absl::StatusOr<std::vector<bool>> ClaimedWithKey(storage::Store& store,
                                                 const std::vector<std::string>& impression_ids,
                                                 const std::vector<std::string>& keys) {
  std::vector<bool> claimed;
  claimed.reserve(keys.size());
  for (size_t begin = 0; begin < keys.size(); begin += kBatchRows) {
    const size_t end = std::min(keys.size(), begin + kBatchRows);
    std::vector<storage::Get> gets;
    gets.reserve(end - begin);
    for (size_t i = begin; i < end; ++i) gets.push_back(JournalColumnOf(impression_ids[i]));
    absl::StatusOr<std::vector<storage::RowResult>> rows =
        store.MultiGet(storage::kImpressionsTable, gets);
    if (!rows.ok()) return rows.status();
    if (rows->size() != gets.size()) {
      return absl::InternalError("impressions MultiGet answered a different number of rows");
    }
    for (size_t i = begin; i < end; ++i) {
      const std::optional<std::string_view> named =
          (*rows)[i - begin].Value(storage::kImpressionFamily, storage::kImpressionJournalColumn);
      claimed.push_back(named.has_value() && *named == keys[i]);
    }
  }
  return claimed;
}

// The entries earlier incarnations left, as recovery sorts them.
struct EarlierEntries {
  // Counted entries (at or below their campaign's position) and torn rows.
  std::vector<storage::Delete> deletes;
  // Entries above their campaign's position, and the campaign's index each:
  // their impression row says whether they were committed.
  std::vector<JournalRecord> unverified;
  std::vector<size_t> unverified_campaign;
};

// Reads the worker's entries below sequence `first` and sorts them, counting
// each in `report` (abandoned, unknown_campaign, counted).
absl::StatusOr<EarlierEntries> ReadEarlierEntries(
    storage::Store& store, int worker_id, uint64_t first,
    const absl::flat_hash_map<std::string, size_t>& campaign_index,
    const std::vector<int64_t>& positions, JournalRecovery* report) {
  absl::StatusOr<std::unique_ptr<storage::Scanner>> scanner =
      store.OpenScanner(storage::kSpendJournalTable, JournalEntryScan(worker_id, first));
  if (!scanner.ok()) return scanner.status();
  EarlierEntries entries;
  while (true) {
    absl::StatusOr<std::vector<storage::RowResult>> rows = (*scanner)->Next(kBatchRows);
    if (!rows.ok()) return rows.status();
    if (rows->empty()) break;
    for (const storage::RowResult& row : *rows) {
      std::optional<JournalRecord> record = DecodeJournalEntry(row);
      if (!record) {
        // A torn or foreign row counts for nothing.
        ++report->abandoned;
        entries.deletes.push_back(WholeRow(row.row));
        continue;
      }
      auto campaign = campaign_index.find(record->campaign_id);
      if (campaign == campaign_index.end()) {
        // Left for an incarnation that has the campaign again; the TTL
        // removes it otherwise.
        ++report->unknown_campaign;
        continue;
      }
      if (static_cast<int64_t>(record->sequence) <= positions[campaign->second]) {
        ++report->counted;
        entries.deletes.push_back(WholeRow(row.row));
        continue;
      }
      entries.unverified_campaign.push_back(campaign->second);
      entries.unverified.push_back(*std::move(record));
    }
  }
  return entries;
}

// An unclaimed entry of an earlier incarnation, to read once more later.
SpendJournalEntry RecheckEntry(JournalRecord record, size_t campaign_index, std::string key) {
  SpendJournalEntry entry;
  entry.sequence = record.sequence;
  entry.campaign_index = campaign_index;
  entry.micros = record.micros;
  entry.day = std::move(record.day);
  entry.impression_id = std::move(record.impression_id);
  entry.key = std::move(key);
  return entry;
}

// Deletes the rows kBatchRows at a time; a failed batch is counted, not
// retried (the next recovery deletes what is left).
void DeleteInBatches(storage::Store& store, const std::vector<storage::Delete>& deletes,
                     PacingMetrics& metrics) {
  for (size_t begin = 0; begin < deletes.size(); begin += kBatchRows) {
    const size_t end = std::min(deletes.size(), begin + kBatchRows);
    if (!store
             .DeleteBatch(storage::kSpendJournalTable,
                          std::span<const storage::Delete>(deletes.data() + begin, end - begin))
             .ok()) {
      metrics.CountStoreError(StoreOperation::kJournal);
    }
  }
}

}  // namespace

void CampaignRelease::Add(std::string_view day, int64_t micros, uint64_t sequence) {
  sequences.push_back(sequence);
  for (DaySpend& d : days) {
    if (d.day == day) {
      d.micros += micros;
      return;
    }
  }
  days.push_back(DaySpend{std::string(day), micros});
}

WorkerSpendJournal::WorkerSpendJournal(int worker_id, const std::vector<CampaignBudget>& campaigns,
                                       storage::Store& store, PacingMetrics& metrics,
                                       uint64_t block_size)
    : worker_id_(worker_id),
      store_(store),
      metrics_(metrics),
      block_size_(std::max<uint64_t>(block_size, 1)) {
  TrackCampaigns(campaigns);
}

void WorkerSpendJournal::TrackCampaigns(const std::vector<CampaignBudget>& campaigns) {
  absl::MutexLock lock(&mu_);
  for (size_t i = campaigns_.size(); i < campaigns.size(); ++i) {
    campaigns_.push_back(campaigns[i]);
    campaign_index_[campaigns[i].id] = i;
  }
  released_.resize(campaigns_.size());
}

absl::Status WorkerSpendJournal::ReserveBlock() {
  storage::Increment increment;
  increment.row = JournalCounterRow(worker_id_);
  increment.columns.push_back(storage::IncrementColumn{std::string(kJournalCounterFamily),
                                                       std::string(kJournalCounterColumn),
                                                       static_cast<int64_t>(block_size_)});
  increment.durability = storage::Durability::kSyncWal;
  absl::StatusOr<storage::RowResult> counter =
      store_.Increment(storage::kSpendJournalTable, increment);
  if (!counter.ok()) {
    metrics_.CountStoreError(StoreOperation::kJournal);
    return counter.status();
  }
  const std::optional<int64_t> last =
      counter->Counter(kJournalCounterFamily, kJournalCounterColumn);
  if (!last || *last < static_cast<int64_t>(block_size_)) {
    return absl::InternalError("spend journal: the sequence counter answered no usable value");
  }
  absl::MutexLock lock(&mu_);
  const uint64_t end = static_cast<uint64_t>(*last);
  next_ = end - block_size_ + 1;
  block_end_ = end;
  if (first_sequence_ == 0) {
    first_sequence_ = next_;
    watermark_ = next_ - 1;
  }
  AdvanceWatermark();
  return absl::OkStatus();
}

absl::Status WorkerSpendJournal::ReserveFirstBlock() {
  absl::MutexLock reserve(&reserve_mu_);
  {
    absl::MutexLock lock(&mu_);
    if (first_sequence_ != 0) return absl::OkStatus();
  }
  return ReserveBlock();
}

absl::StatusOr<uint64_t> WorkerSpendJournal::NextSequence() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (next_ != 0 && next_ <= block_end_) {
        const uint64_t sequence = next_++;
        in_flight_.insert(sequence);
        return sequence;
      }
    }
    absl::MutexLock reserve(&reserve_mu_);
    {
      // Another thread may have reserved a block meanwhile.
      absl::MutexLock lock(&mu_);
      if (next_ != 0 && next_ <= block_end_) continue;
    }
    if (absl::Status s = ReserveBlock(); !s.ok()) return s;
  }
}

absl::StatusOr<SpendJournalEntry> WorkerSpendJournal::Begin(size_t campaign_index, int64_t micros,
                                                            std::string_view impression_id,
                                                            int64_t now_ms) {
  if (revoked_.load()) {
    return absl::FailedPreconditionError(
        absl::StrCat("spend journal: worker ", worker_id_, " lost its id's lease"));
  }
  std::string campaign_id;
  std::string day;
  {
    absl::MutexLock lock(&mu_);
    if (campaign_index >= campaigns_.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("spend journal: no campaign at index ", campaign_index));
    }
    const CampaignBudget& campaign = campaigns_[campaign_index];
    campaign_id = campaign.id;
    day = DayQualifier(campaign.day.DayAt(now_ms));
  }
  if (micros <= 0) return absl::InvalidArgumentError("spend journal: an amount must be > 0");
  absl::StatusOr<uint64_t> sequence = NextSequence();
  if (!sequence.ok()) {
    metrics_.CountJournal(JournalOutcome::kFailed);
    return sequence.status();
  }
  SpendJournalEntry entry;
  entry.sequence = *sequence;
  entry.campaign_index = campaign_index;
  entry.micros = micros;
  entry.day = std::move(day);
  entry.impression_id = std::string(impression_id);
  entry.key = JournalEntryRow(worker_id_, entry.sequence);
  const storage::Put put = JournalEntryPut(JournalRecord{.worker_id = worker_id_,
                                                         .sequence = entry.sequence,
                                                         .campaign_id = campaign_id,
                                                         .day = entry.day,
                                                         .micros = micros,
                                                         .impression_id = entry.impression_id});
  if (absl::Status s = store_.Put(storage::kSpendJournalTable, put); !s.ok()) {
    // Had the Put landed after all, no claim names the row: a recovery
    // deletes it.
    metrics_.CountStoreError(StoreOperation::kJournal);
    metrics_.CountJournal(JournalOutcome::kFailed);
    absl::MutexLock lock(&mu_);
    Settle(entry.sequence, nullptr);
    return s;
  }
  return entry;
}

void WorkerSpendJournal::Commit(const SpendJournalEntry& entry) {
  metrics_.CountJournal(JournalOutcome::kCommitted);
  const Held held{entry.campaign_index, entry.day, entry.micros};
  absl::MutexLock lock(&mu_);
  Settle(entry.sequence, &held);
}

void WorkerSpendJournal::Abandon(const SpendJournalEntry& entry) {
  metrics_.CountJournal(JournalOutcome::kAbandoned);
  // A delete that fails leaves a row no claim names: a recovery deletes it.
  if (!store_.Delete(storage::kSpendJournalTable, WholeRow(entry.key)).ok()) {
    metrics_.CountStoreError(StoreOperation::kJournal);
  }
  absl::MutexLock lock(&mu_);
  Settle(entry.sequence, nullptr);
}

void WorkerSpendJournal::Unsettled(SpendJournalEntry entry) {
  metrics_.CountJournal(JournalOutcome::kUnsettled);
  absl::MutexLock lock(&mu_);
  unsettled_.push_back(std::move(entry));
}

int64_t WorkerSpendJournal::Pending(size_t campaign_index) const {
  absl::MutexLock lock(&mu_);
  if (campaign_index >= released_.size()) return 0;
  int64_t total = 0;
  for (const DaySpend& d : released_[campaign_index].days) total += d.micros;
  for (const auto& [sequence, held] : held_) {
    if (held.campaign == campaign_index) total += held.micros;
  }
  return total;
}

void WorkerSpendJournal::Settle(uint64_t sequence, const Held* committed) {
  in_flight_.erase(sequence);
  if (committed != nullptr) held_.emplace(sequence, *committed);
  AdvanceWatermark();
}

void WorkerSpendJournal::AdvanceWatermark() {
  if (next_ == 0) return;  // nothing handed out yet
  const uint64_t settled_to = in_flight_.empty() ? next_ - 1 : *in_flight_.begin() - 1;
  watermark_ = std::max(watermark_, settled_to);
  while (!held_.empty() && held_.begin()->first <= watermark_) {
    Release(held_.begin()->first, held_.begin()->second);
    held_.erase(held_.begin());
  }
}

void WorkerSpendJournal::Release(uint64_t sequence, const Held& held) {
  released_[held.campaign].Add(held.day, held.micros, sequence);
}

size_t WorkerSpendJournal::ResolveUnsettled() {
  std::vector<SpendJournalEntry> entries;
  {
    absl::MutexLock lock(&mu_);
    entries.swap(unsettled_);
    // Recovery's unclaimed entries are decided at the next call.
    unsettled_.swap(recheck_);
  }
  if (entries.empty()) {
    absl::MutexLock lock(&mu_);
    return unsettled_.size();
  }
  std::vector<std::string> impression_ids;
  std::vector<std::string> keys;
  for (const SpendJournalEntry& e : entries) {
    impression_ids.push_back(e.impression_id);
    keys.push_back(e.key);
  }
  absl::StatusOr<std::vector<bool>> claimed = ClaimedWithKey(store_, impression_ids, keys);
  if (!claimed.ok()) {
    metrics_.CountStoreError(StoreOperation::kImpressionRead);
    absl::MutexLock lock(&mu_);
    const size_t left = entries.size() + unsettled_.size();
    unsettled_.insert(unsettled_.end(), std::make_move_iterator(entries.begin()),
                      std::make_move_iterator(entries.end()));
    return left;
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    if ((*claimed)[i]) {
      metrics_.CountJournal(JournalOutcome::kResolvedCommitted);
      const Held held{entries[i].campaign_index, entries[i].day, entries[i].micros};
      absl::MutexLock lock(&mu_);
      Settle(entries[i].sequence, &held);
    } else {
      metrics_.CountJournal(JournalOutcome::kResolvedAbandoned);
      if (!store_.Delete(storage::kSpendJournalTable, WholeRow(entries[i].key)).ok()) {
        metrics_.CountStoreError(StoreOperation::kJournal);
      }
      absl::MutexLock lock(&mu_);
      Settle(entries[i].sequence, nullptr);
    }
  }
  absl::MutexLock lock(&mu_);
  return unsettled_.size();
}

absl::StatusOr<JournalRecovery> WorkerSpendJournal::Recover(const std::vector<int64_t>& positions) {
  absl::flat_hash_map<std::string, size_t> campaign_index;
  {
    absl::MutexLock lock(&mu_);
    if (positions.size() != campaigns_.size()) {
      return absl::InvalidArgumentError("spend journal: one position per campaign expected");
    }
    campaign_index = campaign_index_;
  }
  if (absl::Status s = ReserveFirstBlock(); !s.ok()) return s;
  uint64_t first = 0;
  {
    absl::MutexLock lock(&mu_);
    first = first_sequence_;
  }
  JournalRecovery report;
  absl::StatusOr<EarlierEntries> entries =
      ReadEarlierEntries(store_, worker_id_, first, campaign_index, positions, &report);
  if (!entries.ok()) {
    metrics_.CountStoreError(StoreOperation::kJournal);
    return entries.status();
  }
  std::vector<JournalRecord>& unverified = entries->unverified;
  std::vector<std::string> impression_ids;
  std::vector<std::string> keys;
  for (const JournalRecord& r : unverified) {
    impression_ids.push_back(r.impression_id);
    keys.push_back(JournalEntryRow(r.worker_id, r.sequence));
  }
  absl::StatusOr<std::vector<bool>> claimed = ClaimedWithKey(store_, impression_ids, keys);
  if (!claimed.ok()) {
    metrics_.CountStoreError(StoreOperation::kImpressionRead);
    return claimed.status();
  }
  std::vector<std::pair<uint64_t, Held>> committed;
  std::vector<SpendJournalEntry> recheck;
  for (size_t i = 0; i < unverified.size(); ++i) {
    const size_t campaign = entries->unverified_campaign[i];
    if ((*claimed)[i]) {
      ++report.committed;
      report.committed_micros += unverified[i].micros;
      committed.emplace_back(unverified[i].sequence,
                             Held{campaign, std::move(unverified[i].day), unverified[i].micros});
    } else {
      // Not claimed yet. A claim the dead incarnation sent may still be
      // queued in the store and land after this read, so the entry is read
      // once more a flush interval later (ResolveUnsettled) before it goes.
      ++report.unclaimed;
      recheck.push_back(RecheckEntry(std::move(unverified[i]), campaign, std::move(keys[i])));
    }
  }
  DeleteInBatches(store_, entries->deletes, metrics_);
  metrics_.CountJournal(JournalOutcome::kRecovered, report.committed);
  absl::MutexLock lock(&mu_);
  // Every one is below this incarnation's first sequence, so at or below W.
  for (const auto& [sequence, held] : committed) Release(sequence, held);
  recheck_.insert(recheck_.end(), std::make_move_iterator(recheck.begin()),
                  std::make_move_iterator(recheck.end()));
  return report;
}

JournalRelease WorkerSpendJournal::TakeReleased() {
  JournalRelease release;
  absl::MutexLock lock(&mu_);
  release.watermark = watermark_;
  release.campaigns.swap(released_);
  released_.assign(campaigns_.size(), CampaignRelease{});
  return release;
}

absl::Status WorkerSpendJournal::DeleteEntries(std::span<const uint64_t> sequences) {
  for (size_t begin = 0; begin < sequences.size(); begin += kBatchRows) {
    const size_t end = std::min(sequences.size(), begin + kBatchRows);
    std::vector<storage::Delete> deletes;
    deletes.reserve(end - begin);
    for (size_t i = begin; i < end; ++i) {
      deletes.push_back(WholeRow(JournalEntryRow(worker_id_, sequences[i])));
    }
    if (absl::Status s = store_.DeleteBatch(storage::kSpendJournalTable, deletes); !s.ok()) {
      metrics_.CountStoreError(StoreOperation::kJournal);
      return s;
    }
  }
  return absl::OkStatus();
}

uint64_t WorkerSpendJournal::watermark() const {
  absl::MutexLock lock(&mu_);
  return watermark_;
}

size_t WorkerSpendJournal::waiting() const {
  absl::MutexLock lock(&mu_);
  size_t released = 0;
  for (const CampaignRelease& r : released_) released += r.sequences.size();
  return in_flight_.size() + held_.size() + released;
}

absl::StatusOr<bool> WorkerSpendJournal::CounterUnchanged() {
  storage::Get get;
  get.row = JournalCounterRow(worker_id_);
  get.columns = {{std::string(kJournalCounterFamily), std::string(kJournalCounterColumn)}};
  absl::StatusOr<storage::RowResult> row = store_.Get(storage::kSpendJournalTable, get);
  if (!row.ok()) return row.status();
  const int64_t stored = row->Counter(kJournalCounterFamily, kJournalCounterColumn).value_or(0);
  absl::MutexLock lock(&mu_);
  return stored == static_cast<int64_t>(block_end_);
}

bool WorkerSpendJournal::Drained() const {
  if (waiting() != 0) return false;
  absl::MutexLock lock(&mu_);
  return unsettled_.empty() && recheck_.empty();
}

size_t WorkerSpendJournal::in_flight() const {
  absl::MutexLock lock(&mu_);
  return in_flight_.size();
}

}  // namespace rtb::pacing::internal
