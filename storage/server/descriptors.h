// Table and column family descriptors between Thrift2 and the storage data
// model (storage/types.h), as HBase 2.6's master keeps and describes them:
// what a createTable, addColumnFamily, modifyColumnFamily or modifyTable
// sends becomes a TableSchema or FamilyOptions, and a TableSchema is
// described with every value HBase fills in.
#ifndef RTB_STORAGE_SERVER_DESCRIPTORS_H_
#define RTB_STORAGE_SERVER_DESCRIPTORS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/thrift/hbase_types.h"
#include "storage/types.h"

namespace rtb::storage::server {

// Family configuration is kept as sent; HBase's FIFO compaction policy in it
// sets FamilyOptions::fifo_compaction. Settings the engine does not act on
// (block size, data block encoding, replication scope, ...) are kept as
// HBase descriptor values. The bidder's tables (which name the FIFO keys
// themselves) read back exactly as storage/schemas.h defines them.
absl::StatusOr<FamilyOptions> FamilyFromThrift(const thrift2::TColumnFamilyDescriptor& in);
absl::StatusOr<TableSchema> SchemaFromThrift(const thrift2::TTableDescriptor& in,
                                             const std::vector<std::string>& split_keys);
// As HBase 2.6's master describes a table: every family value filled in
// (defaults included, FOREVER as 2^31-1 seconds), the namespace named.
absl::StatusOr<thrift2::TTableDescriptor> DescriptorToThrift(const TableSchema& schema);

}  // namespace rtb::storage::server

#endif  // RTB_STORAGE_SERVER_DESCRIPTORS_H_
