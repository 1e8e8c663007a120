// Several row ranges in one HBase scan, as HBase's MultiRowRangeFilter.
//
// The filter travels in TScan.filterBytes as the protobuf message HBase's
// ProtobufUtil.toFilter reads (hbase.pb.Filter, client/Filter.proto):
//
//   Filter              { 1: string name; 2: bytes serialized_filter }
//   MultiRowRangeFilter { 1: repeated RowRange row_range_list }
//   RowRange            { 1: bytes start_row; 2: bool start_row_inclusive;
//                         3: bytes stop_row;  4: bool stop_row_inclusive }
//
// Bytes rather than HBase's filter language (TScan.filterString): its parser
// (ParseFilter) registers no MultiRowRangeFilter, and row keys here are binary
// (hashes, reversed timestamps), which its quoted arguments carry poorly.
#ifndef RTB_STORAGE_HBASE_ROW_RANGE_FILTER_H_
#define RTB_STORAGE_HBASE_ROW_RANGE_FILTER_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/types.h"

namespace rtb::storage::hbase {

inline constexpr char kMultiRowRangeFilterClass[] =
    "org.apache.hadoop.hbase.filter.MultiRowRangeFilter";

// The serialized hbase.pb.Filter for `ranges`, which must be non-empty and
// each able to hold a row (see RangesThatCanHoldRows).
std::string EncodeMultiRowRangeFilter(std::span<const RowRange> ranges);

// `ranges` without the ones that cannot contain any row ([a, a), (a, a], ...),
// which HBase would reject. The order is kept.
std::vector<RowRange> RangesThatCanHoldRows(std::span<const RowRange> ranges);

// PrefixFilter { 1: bytes prefix }, wrapped in hbase.pb.Filter as above.
inline constexpr char kPrefixFilterClass[] = "org.apache.hadoop.hbase.filter.PrefixFilter";
std::string EncodePrefixFilter(std::string_view prefix);

// The row filters a serialized hbase.pb.Filter can hold that the storage
// server applies: several row ranges, or one row prefix.
struct DecodedRowFilter {
  std::vector<RowRange> ranges;       // a MultiRowRangeFilter's ranges, as sent
  std::optional<std::string> prefix;  // a PrefixFilter's prefix
};

// InvalidArgument when `bytes` is not a well-formed hbase.pb.Filter;
// Unimplemented, naming the class, for any other filter.
absl::StatusOr<DecodedRowFilter> DecodeRowFilter(std::string_view bytes);

}  // namespace rtb::storage::hbase

#endif  // RTB_STORAGE_HBASE_ROW_RANGE_FILTER_H_
