// Thrift2 requests, as any HBase client sends them, turned into the storage
// data model (storage/types.h), and results turned back: the storage
// server's half of the translation whose client half is
// storage/hbase/convert.h.
//
// Fields are read as HBase's own gateway reads them (ThriftUtilities, HBase
// 2.x): a TGet timestamp wins over its time range, a TDelete without columns
// deletes the whole row, LATEST_TIMESTAMP (2^63-1) means "the server assigns
// it", the mutation attribute `_ttl` is the cell TTL in milliseconds.
// Settings that only tune HBase (block caching, read type, replica id,
// authorizations, data block encoding, ...) are accepted and ignored. Fields
// that would change what a call returns and that the engine cannot honour
// (filterBytes other than row ranges and a row prefix, batchSize, per-family time
// ranges, storeLimit/storeOffset, existence_only, cell visibility labels,
// KEEP_DELETED_CELLS) are refused with InvalidArgument rather
// than silently dropped.
#ifndef RTB_STORAGE_SERVER_CONVERT_H_
#define RTB_STORAGE_SERVER_CONVERT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/thrift/hbase_types.h"
#include "storage/types.h"

namespace rtb::storage::server {

// HBase's "no timestamp given" (HConstants.LATEST_TIMESTAMP).
inline constexpr int64_t kHBaseLatestTimestamp = kLatestTimestamp;
// KeyValue.Type.Put: the cell type every returned cell carries.
inline constexpr int8_t kPutCellType = 4;

// A data call names its table as "table", "default:table" or
// "namespace:table"; the store knows it as "table" or "namespace:table".
std::string TableFromThrift(const std::string& name);
std::string TableFromThrift(const thrift2::TTableName& name);
// The namespace of a store table name: "default" for a bare one.
std::string NamespaceOf(std::string_view table);

Durability DurabilityFromThrift(thrift2::TDurability::type durability);

// A filter string is left for the caller (storage/server/filter_language.h).
absl::StatusOr<Get> GetFromThrift(const thrift2::TGet& in);
absl::StatusOr<Put> PutFromThrift(const thrift2::TPut& in);
absl::StatusOr<Delete> DeleteFromThrift(const thrift2::TDelete& in);
// Thrift2 carries no nonce, so the Increment has none.
absl::StatusOr<Increment> IncrementFromThrift(const thrift2::TIncrement& in);

// The mutations of mutateRow, every one for `row`.
struct RowMutations {
  std::string row;
  std::vector<Put> puts;
  std::vector<Delete> deletes;
};
absl::StatusOr<RowMutations> RowMutationsFromThrift(const thrift2::TRowMutations& in);

// An empty `value` is HBase's null check: it passes when the column is
// absent or empty (NOT_EQUAL: present and not empty). NO_OP is refused.
absl::StatusOr<CheckAndMutate> CheckAndMutateFromThrift(const std::string& row,
                                                        const std::string& family,
                                                        const std::string& qualifier,
                                                        thrift2::TCompareOperator::type op,
                                                        const std::string& value,
                                                        const thrift2::TRowMutations& mutations);

struct ScanRequest {
  Scan scan;
  // True when no row can match (the filter's ranges lie outside the start
  // and stop rows): answer without reading.
  bool matches_nothing = false;
  // A filter of HBase's filter language to apply to the rows read; then
  // `scan` reads every version and no limit, and these are the reader's.
  std::string filter_string;
  int filter_max_versions = 1;
  int filter_limit = 0;
};
// A MultiRowRangeFilter or PrefixFilter (filterBytes, or "PrefixFilter('p')"
// in filterString) becomes row ranges cut to the scan's start and stop rows;
// any other filter string is left in `filter_string`, for the caller to parse.
absl::StatusOr<ScanRequest> ScanFromThrift(const thrift2::TScan& in);

// An empty row comes back as HBase sends an absent row: no row, no cells.
thrift2::TResult ResultToThrift(const RowResult& row);

}  // namespace rtb::storage::server

#endif  // RTB_STORAGE_SERVER_CONVERT_H_
