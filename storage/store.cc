#include "storage/store.h"

#include "absl/strings/str_cat.h"

namespace rtb::storage {

absl::StatusOr<std::vector<TableSchema>> Store::ListTables() {
  return absl::UnimplementedError("this storage backend cannot list its tables");
}

absl::Status Store::AlterTable(const TableSchema&) {
  return absl::UnimplementedError("this storage backend cannot alter tables");
}

absl::Status Store::TruncateTable(std::string_view) {
  return absl::UnimplementedError("this storage backend cannot truncate tables");
}

absl::Status ApplySchemas(Store& store, std::span<const TableSchema> schemas) {
  for (const TableSchema& schema : schemas) {
    absl::Status status = store.CreateTable(schema);
    if (!status.ok()) {
      return absl::Status(status.code(), absl::StrCat("applying schema of table '", schema.name,
                                                      "': ", status.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace rtb::storage
