// HBase's filter language (TGet.filterString, TScan.filterString), the part
// the storage server speaks:
//
//   filter     := or
//   or         := and ("OR" and)*
//   and        := unary ("AND" unary)*
//   unary      := ("SKIP" | "WHILE") unary | "(" or ")" | Name "(" [arg ("," arg)*] ")"
//   arg        := 'quoted' ('' is a quote) | integer | true | false
//                 | < | <= | = | != | > | >=
//   comparator := 'binary:bytes' | 'binaryprefix:bytes' | 'substring:text'
//
// Names: KeyOnlyFilter([lenAsVal]), FirstKeyOnlyFilter(), PrefixFilter('p'),
// ColumnPrefixFilter('p'), MultipleColumnPrefixFilter('p', ...),
// ColumnRangeFilter('min', minInclusive, 'max', maxInclusive),
// ColumnCountGetFilter(n), PageFilter(n), RowFilter / QualifierFilter /
// FamilyFilter / ValueFilter(op, 'comparator'),
// SingleColumnValueFilter('f', 'q', op, 'comparator'[, filterIfMissing,
// latestVersionOnly]), TimestampsFilter(ts, ...), InclusiveStopFilter('row').
// Operators are upper case, as HBase reads them; AND binds tighter than OR.
//
// A string that does not parse is InvalidArgument naming the problem and its
// (0-based) byte position.
#ifndef RTB_STORAGE_SERVER_FILTER_LANGUAGE_H_
#define RTB_STORAGE_SERVER_FILTER_LANGUAGE_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "storage/server/filters.h"

namespace rtb::storage::server {

absl::StatusOr<std::unique_ptr<Filter>> ParseFilterString(std::string_view text);

}  // namespace rtb::storage::server

#endif  // RTB_STORAGE_SERVER_FILTER_LANGUAGE_H_
