// Translation between the storage data model (storage/types.h) and the
// Thrift2 structs of HBase's gateway. Each ToThrift function also rejects
// input HBase would choke on with a clear InvalidArgument, so the gateway
// never answers a malformed request with an opaque internal error. Checks
// that need the table schema (unknown families) are left to HBase.
#ifndef RTB_STORAGE_HBASE_CONVERT_H_
#define RTB_STORAGE_HBASE_CONVERT_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/thrift/hbase_types.h"
#include "storage/types.h"

namespace rtb::storage::hbase {

// Mutation attribute that carries a cell TTL (HBase's Mutation.setTTL).
inline constexpr char kTtlAttribute[] = "_ttl";
// Table descriptor value holding the number of region replicas.
inline constexpr char kRegionReplicationKey[] = "REGION_REPLICATION";
// Family configuration keys for FIFO compaction, and the blocking store file
// count HBase's sanity check demands with it (at least 1000).
inline constexpr char kCompactionPolicyKey[] = "hbase.hstore.defaultengine.compactionpolicy.class";
inline constexpr char kFifoCompactionPolicy[] =
    "org.apache.hadoop.hbase.regionserver.compactions.FIFOCompactionPolicy";
inline constexpr char kBlockingStoreFilesKey[] = "hbase.hstore.blockingStoreFiles";
inline constexpr char kFifoBlockingStoreFiles[] = "1000";
// HBase's FOREVER family TTL, seconds.
inline constexpr int32_t kHBaseForever = 2147483647;

// 8-byte big-endian milliseconds.
std::string EncodeTtlAttribute(int64_t ttl_ms);

thrift2::TDurability::type ToThrift(Durability durability);
thrift2::TCompareOperator::type ToThrift(CompareOp op);
thrift2::TTableName ToThriftTableName(std::string_view table);
thrift2::TBloomFilterType::type ToThrift(BloomType bloom);
thrift2::TCompressionAlgorithm::type ToThrift(Compression compression);
// Types the engine does not know fall back to ROW and NONE.
BloomType BloomFromThrift(thrift2::TBloomFilterType::type bloom);
Compression CompressionFromThrift(thrift2::TCompressionAlgorithm::type compression);

absl::Status CheckTableName(std::string_view table);

absl::StatusOr<thrift2::TGet> ToThrift(const Get& get);

// `fallback` replaces kUseDefault durabilities.
absl::StatusOr<thrift2::TPut> ToThrift(const Put& put, Durability fallback);

// One TDelete per delete kind used, since a TDelete has a single delete type;
// a Delete that needs several must go through mutateRow to stay atomic.
absl::StatusOr<std::vector<thrift2::TDelete>> ToThrift(const Delete& del, Durability fallback);

absl::StatusOr<thrift2::TIncrement> ToThrift(const Increment& increment, Durability fallback);

// Puts then deletes of one row, for mutateRow and checkAndMutate.
absl::StatusOr<thrift2::TRowMutations> ToRowMutations(std::string_view row,
                                                      std::span<const Put> puts,
                                                      std::span<const Delete> deletes,
                                                      Durability fallback);

struct CheckAndMutateRequest {
  thrift2::TCompareOperator::type op = thrift2::TCompareOperator::EQUAL;
  // Sent as is; empty asks HBase for "column absent".
  std::string value;
  thrift2::TRowMutations mutations;
};
absl::StatusOr<CheckAndMutateRequest> ToThrift(const CheckAndMutate& cam, Durability fallback);

// A Scan as HBase runs it.
struct ScanPlan {
  thrift2::TScan scan;
  // True when no row can match (e.g. every range is empty): no call needed.
  bool matches_nothing = false;
  // Rows to return at most; 0 means no limit.
  int limit = 0;
};
// `collecting` is true for Store::Scan, which needs a limit or a bounded range.
absl::StatusOr<ScanPlan> PlanScan(const Scan& scan, bool collecting);

// `requested_row` names the row of an empty result (HBase leaves it unset).
RowResult FromThrift(thrift2::TResult&& result, std::string_view requested_row);

absl::StatusOr<thrift2::TTableDescriptor> ToThrift(const TableSchema& schema);
// The parts of a TableSchema a descriptor holds; split keys are not among them.
TableSchema FromThrift(const thrift2::TTableDescriptor& descriptor);
// True when `existing` (read back from HBase) defines what `wanted` asks for.
// Split keys are not compared (HBase splits regions on its own), nor family
// configuration keys `wanted` does not mention.
bool SameDefinition(const TableSchema& wanted, const TableSchema& existing);

}  // namespace rtb::storage::hbase

#endif  // RTB_STORAGE_HBASE_CONVERT_H_
