// The layout of the `spend_journal` table: one row per recorded impression
// whose spend a worker has not yet flushed to its budget shard, and one
// counter row per worker from which it reserves sequence numbers.
//
//   entry row (10 bytes)                    counter row (2 bytes)
//   +------------------+------------------+ +------------------+
//   | worker id        | sequence         | | worker id        |
//   | 2 bytes, BE u16  | 8 bytes, BE u64  | | 2 bytes, BE u16  |
//   +------------------+------------------+ +------------------+
//
//   family e (entry rows; TTL 7 days, a backstop: the flusher deletes them)
//     c   campaign id
//     d   yyyymmdd: the campaign's day when the impression was claimed, the
//         qualifier its spend goes to in `budget` (budget_shard.h)
//     a   8-byte big-endian int64: spend, micro-units of the campaign's currency
//     i   impression id, 16 bytes (the `impressions` row the claim writes)
//   family n (counter row; no TTL)
//     seq 8-byte counter: the highest sequence the worker has reserved
//
// Sequences start at 1 and only grow: a worker reserves a block of them with
// one Increment of n:seq, so a restarted worker never reuses one. A worker's
// rows are contiguous and in sequence order, after its counter row: the scan
// of its entries below a sequence is one row range.
//
// Thread-safety: pure functions.
#ifndef RTB_PACING_INTERNAL_SPEND_JOURNAL_LAYOUT_H_
#define RTB_PACING_INTERNAL_SPEND_JOURNAL_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/schemas.h"
#include "storage/types.h"

namespace rtb::pacing::internal {

inline constexpr std::string_view kJournalEntryFamily = storage::kSpendJournalEntryFamily;
inline constexpr std::string_view kJournalCampaignColumn = "c";
inline constexpr std::string_view kJournalDayColumn = "d";
inline constexpr std::string_view kJournalAmountColumn = "a";
inline constexpr std::string_view kJournalImpressionColumn = "i";
inline constexpr std::string_view kJournalCounterFamily = storage::kSpendJournalCounterFamily;
inline constexpr std::string_view kJournalCounterColumn = "seq";
inline constexpr size_t kJournalEntryRowBytes = 10;

// One entry as stored.
struct JournalRecord {
  int worker_id = 0;
  uint64_t sequence = 0;
  std::string campaign_id;
  std::string day;  // yyyymmdd
  int64_t micros = 0;
  std::string impression_id;

  bool operator==(const JournalRecord&) const = default;
};

// The entry row of `worker_id` (in [0, 65535]) and `sequence`.
std::string JournalEntryRow(int worker_id, uint64_t sequence);
// Worker id and sequence of an entry row; nullopt for a row of another size
// (the counter row).
struct JournalEntryKey {
  int worker_id = 0;
  uint64_t sequence = 0;
};
std::optional<JournalEntryKey> ParseJournalEntryRow(std::string_view row);

// The counter row of `worker_id`.
std::string JournalCounterRow(int worker_id);

// The Put that writes `record` (SYNC_WAL: the entry must outlive a crash of
// the process before the impression is acknowledged).
storage::Put JournalEntryPut(const JournalRecord& record);
// The record of an entry row read whole; nullopt for a row that is not a
// complete entry.
std::optional<JournalRecord> DecodeJournalEntry(const storage::RowResult& row);

// The entries of `worker_id` with a sequence below `below_sequence`, in
// sequence order, family e only.
storage::Scan JournalEntryScan(int worker_id, uint64_t below_sequence);

}  // namespace rtb::pacing::internal

#endif  // RTB_PACING_INTERNAL_SPEND_JOURNAL_LAYOUT_H_
