// Checks shared by every backend, so misuse gets the same InvalidArgument
// message wherever it is caught: schemas, and operations against a schema.
#ifndef RTB_STORAGE_INTERNAL_VALIDATION_H_
#define RTB_STORAGE_INTERNAL_VALIDATION_H_

#include "absl/status/status.h"
#include "storage/types.h"

namespace rtb::storage::internal {

// ValidateSchema is public: storage/types.h.

absl::Status ValidateGet(const TableSchema& table, const Get& get);
absl::Status ValidatePut(const TableSchema& table, const Put& put);
absl::Status ValidateDelete(const TableSchema& table, const Delete& del);
absl::Status ValidateIncrement(const TableSchema& table, const Increment& increment);
absl::Status ValidateCheckAndMutate(const TableSchema& table, const CheckAndMutate& cam);
// `collecting` is true for Store::Scan, which needs a limit or a bounded range.
absl::Status ValidateScan(const TableSchema& table, const Scan& scan, bool collecting);

}  // namespace rtb::storage::internal

#endif  // RTB_STORAGE_INTERNAL_VALIDATION_H_
