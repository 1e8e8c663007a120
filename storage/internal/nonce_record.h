// Byte layout of the embedded engine's Increment nonces, which are kept on
// disk beside the counters they protect: the record of an Increment that
// carried a nonce is written in the same RocksDB WriteBatch as its counter
// cells, so after a crash either both are there or neither is, and a client
// retrying the Increment after a restart gets the first answer back instead of
// counting twice.
//
// Records live in one RocksDB column family of their own (kNonceColumnFamily,
// a name no table family can take, since those are "table:family"). A key is
//
//   +---------------+---------------+----+-----------+
//   | nonce (8, BE) | table         | 00 | row       |
//   +---------------+---------------+----+-----------+
//
// (a table name never holds 00), so a nonce counts once per row it names, and
// the row lock of the Increment also serialises its nonce. A value is
//
//   +-----------------+-----------+---- per cell, `cells` times ---------------------------+
//   | expires ms (8)  | cells (4) | len (4) family | len (4) qualifier | ts (8) | len (4) value |
//   +-----------------+-----------+----------------------------------------------------------+
//
// every integer big-endian, `expires ms` the store clock's milliseconds past
// which the record is forgotten. Compactions drop expired records
// (NewNonceCompactionFilterFactory), so the family holds about
// kNonceRetentionMs of increments and memory stays RocksDB's (memtable and
// block cache), whatever the rate.
//
// Thread-safety: pure functions; the compaction filter reads only its clock.
#ifndef RTB_STORAGE_INTERNAL_NONCE_RECORD_H_
#define RTB_STORAGE_INTERNAL_NONCE_RECORD_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "rocksdb/compaction_filter.h"
#include "storage/clock.h"
#include "storage/types.h"

namespace rtb::storage::internal {

inline constexpr char kNonceColumnFamily[] = "rtb.increment_nonces";

struct NonceRecord {
  int64_t expires_ms = 0;
  RowResult result;  // what the Increment answered (row is not stored)
};

std::string NonceKey(uint64_t nonce, std::string_view table, std::string_view row);
std::string EncodeNonceRecord(const NonceRecord& record);
// nullopt when `bytes` is not a whole record.
std::optional<NonceRecord> DecodeNonceRecord(std::string_view bytes);

// Drops records whose expiry has passed on `clock` (and any value too short to
// hold an expiry).
std::shared_ptr<rocksdb::CompactionFilterFactory> NewNonceCompactionFilterFactory(
    std::shared_ptr<Clock> clock);

}  // namespace rtb::storage::internal

#endif  // RTB_STORAGE_INTERNAL_NONCE_RECORD_H_
