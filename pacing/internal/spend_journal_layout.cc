#include "pacing/internal/spend_journal_layout.h"

#include "storage/key_bytes.h"

namespace rtb::pacing::internal {

std::string JournalEntryRow(int worker_id, uint64_t sequence) {
  std::string row;
  row.reserve(kJournalEntryRowBytes);
  storage::AppendBigEndian16(static_cast<uint16_t>(worker_id), &row);
  storage::AppendBigEndian64(sequence, &row);
  return row;
}

std::optional<JournalEntryKey> ParseJournalEntryRow(std::string_view row) {
  if (row.size() != kJournalEntryRowBytes) return std::nullopt;
  return JournalEntryKey{.worker_id = static_cast<int>(storage::ReadBigEndian(row.substr(0, 2))),
                         .sequence = storage::ReadBigEndian64(row.substr(2))};
}

std::string JournalCounterRow(int worker_id) {
  std::string row;
  storage::AppendBigEndian16(static_cast<uint16_t>(worker_id), &row);
  return row;
}

storage::Put JournalEntryPut(const JournalRecord& record) {
  storage::Put put;
  put.row = JournalEntryRow(record.worker_id, record.sequence);
  auto column = [&](std::string_view qualifier, std::string value) {
    put.values.push_back(
        {std::string(kJournalEntryFamily), std::string(qualifier), std::move(value), std::nullopt});
  };
  column(kJournalCampaignColumn, record.campaign_id);
  column(kJournalDayColumn, record.day);
  column(kJournalAmountColumn, storage::EncodeCounter(record.micros));
  column(kJournalImpressionColumn, record.impression_id);
  put.durability = storage::Durability::kSyncWal;
  return put;
}

std::optional<JournalRecord> DecodeJournalEntry(const storage::RowResult& row) {
  std::optional<JournalEntryKey> key = ParseJournalEntryRow(row.row);
  std::optional<std::string_view> campaign = row.Value(kJournalEntryFamily, kJournalCampaignColumn);
  std::optional<std::string_view> day = row.Value(kJournalEntryFamily, kJournalDayColumn);
  std::optional<int64_t> micros = row.Counter(kJournalEntryFamily, kJournalAmountColumn);
  std::optional<std::string_view> impression =
      row.Value(kJournalEntryFamily, kJournalImpressionColumn);
  if (!key || !campaign || !day || !micros || !impression) return std::nullopt;
  return JournalRecord{.worker_id = key->worker_id,
                       .sequence = key->sequence,
                       .campaign_id = std::string(*campaign),
                       .day = std::string(*day),
                       .micros = *micros,
                       .impression_id = std::string(*impression)};
}

storage::Scan JournalEntryScan(int worker_id, uint64_t below_sequence) {
  storage::Scan scan;
  scan.start_row = JournalEntryRow(worker_id, 0);
  scan.stop_row = JournalEntryRow(worker_id, below_sequence);
  scan.columns = {storage::Column{std::string(kJournalEntryFamily), std::nullopt}};
  scan.caching = 500;
  return scan;
}

}  // namespace rtb::pacing::internal
