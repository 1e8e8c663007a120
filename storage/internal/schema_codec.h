// Serialized table schemas, so the embedded engine can reopen every column
// family with its options (TTL, versions, compaction) before reading data.
//
// Layout: a sequence of length-prefixed fields (4-byte big-endian length,
// then the bytes), beginning with a format version. Format 2
// ("rtb-schemas-2") adds, after each table's split keys and after each
// family's configuration, the descriptor values (a count, then key and value
// fields); format 1 files, without them, are still read.
#ifndef RTB_STORAGE_INTERNAL_SCHEMA_CODEC_H_
#define RTB_STORAGE_INTERNAL_SCHEMA_CODEC_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/types.h"

namespace rtb::storage::internal {

std::string EncodeSchemas(const std::vector<TableSchema>& schemas);
absl::StatusOr<std::vector<TableSchema>> DecodeSchemas(std::string_view bytes);

}  // namespace rtb::storage::internal

#endif  // RTB_STORAGE_INTERNAL_SCHEMA_CODEC_H_
