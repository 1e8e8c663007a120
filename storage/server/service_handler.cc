#include "storage/server/service_handler.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "storage/server/convert.h"
#include "storage/server/errors.h"

namespace rtb::storage::server {
namespace {

namespace t2 = ::rtb::storage::thrift2;

constexpr IllegalArgument kNotDeclared = IllegalArgument::kNotDeclared;

// Turns a StatusOr into its value, or throws what the client should see.
template <typename T>
T ValueOrThrow(absl::StatusOr<T> value, IllegalArgument declared = kNotDeclared) {
  if (!value.ok()) ThrowStatus(value.status(), declared);
  return *std::move(value);
}

void OkOrThrow(const absl::Status& status, IllegalArgument declared = kNotDeclared) {
  if (!status.ok()) ThrowStatus(status, declared);
}

class EmptyScanner final : public Scanner {
 public:
  absl::StatusOr<std::vector<RowResult>> Next(int) override { return std::vector<RowResult>(); }
};

void ResultsToThrift(const std::vector<RowResult>& rows, std::vector<t2::TResult>* out) {
  out->clear();
  out->reserve(rows.size());
  for (const RowResult& r : rows) out->push_back(ResultToThrift(r));
}

// A mutateRow applied atomically through CheckAndMutate, the Store's one
// atomic multi-mutation call: the check is on a column of a family the
// mutations name, and "absent or empty" and "present and not empty" are the
// two halves of every state, so one of two attempts applies unless another
// writer changes that column in between; a few rounds bound the retries.
absl::Status MutateRowAtomically(Store& store, const std::string& table, RowMutations mutations) {
  std::string family;
  if (!mutations.puts.empty()) {
    family =
        mutations.puts.front().values.empty() ? "" : mutations.puts.front().values.front().family;
  }
  for (const Delete& d : mutations.deletes) {
    if (!family.empty()) break;
    if (!d.targets.empty()) family = d.targets.front().family;
  }
  if (family.empty()) {
    // Whole-row deletes only: they name no family, and one batch holds them.
    return store.DeleteBatch(table, mutations.deletes);
  }
  CheckAndMutate cam;
  cam.row = mutations.row;
  cam.family = family;
  cam.qualifier = std::string();
  cam.value = std::string();
  cam.puts = std::move(mutations.puts);
  cam.deletes = std::move(mutations.deletes);
  constexpr int kRounds = 8;
  for (int round = 0; round < kRounds; ++round) {
    for (CompareOp op : {CompareOp::kEqual, CompareOp::kNotEqual}) {
      cam.op = op;
      absl::StatusOr<bool> applied = store.CheckAndMutate(table, cam);
      if (!applied.ok()) return applied.status();
      if (*applied) return absl::OkStatus();
    }
  }
  return absl::AbortedError("mutateRow raced with other writers of the row; retry");
}

}  // namespace

StoreServiceHandler::StoreServiceHandler(Store& store, ServiceHandlerOptions options)
    : store_(store),
      options_(std::move(options)),
      scanners_(options_.max_open_scanners, options_.scanner_idle_timeout_ms,
                options_.clock ? options_.clock : SystemClock()) {}

bool StoreServiceHandler::IsDisabled(const std::string& table) {
  if (!any_disabled_.load(std::memory_order_acquire)) return false;
  absl::MutexLock lock(&disabled_mutex_);
  return disabled_.contains(table);
}

std::string StoreServiceHandler::DataTable(const std::string& name) {
  std::string table = TableFromThrift(name);
  if (IsDisabled(table)) ThrowIOError(kTableNotEnabled, table, false);
  return table;
}

std::string StoreServiceHandler::ExistingTable(const t2::TTableName& name) {
  std::string table = ValueOrThrow(TableFromThrift(name));
  if (!ValueOrThrow(store_.TableExists(table))) ThrowIOError(kTableNotFound, table, false);
  return table;
}

// ---- Data ------------------------------------------------------------------

void StoreServiceHandler::get(t2::TResult& _return, const std::string& table,
                              const t2::TGet& tget) {
  const std::string name = DataTable(table);
  Get get = ValueOrThrow(GetFromThrift(tget));
  _return = ResultToThrift(ValueOrThrow(store_.Get(name, get)));
}

void StoreServiceHandler::getMultiple(std::vector<t2::TResult>& _return, const std::string& table,
                                      const std::vector<t2::TGet>& tgets) {
  const std::string name = DataTable(table);
  std::vector<Get> gets;
  gets.reserve(tgets.size());
  for (const t2::TGet& g : tgets) gets.push_back(ValueOrThrow(GetFromThrift(g)));
  ResultsToThrift(ValueOrThrow(store_.MultiGet(name, gets)), &_return);
}

void StoreServiceHandler::put(const std::string& table, const t2::TPut& tput) {
  const std::string name = DataTable(table);
  OkOrThrow(store_.Put(name, ValueOrThrow(PutFromThrift(tput))));
}

void StoreServiceHandler::putMultiple(const std::string& table,
                                      const std::vector<t2::TPut>& tputs) {
  const std::string name = DataTable(table);
  std::vector<Put> puts;
  puts.reserve(tputs.size());
  for (const t2::TPut& p : tputs) puts.push_back(ValueOrThrow(PutFromThrift(p)));
  OkOrThrow(store_.PutBatch(name, puts));
}

void StoreServiceHandler::deleteSingle(const std::string& table, const t2::TDelete& tdelete) {
  const std::string name = DataTable(table);
  OkOrThrow(store_.Delete(name, ValueOrThrow(DeleteFromThrift(tdelete))));
}

void StoreServiceHandler::deleteMultiple(std::vector<t2::TDelete>& _return,
                                         const std::string& table,
                                         const std::vector<t2::TDelete>& tdeletes) {
  const std::string name = DataTable(table);
  std::vector<Delete> deletes;
  deletes.reserve(tdeletes.size());
  for (const t2::TDelete& d : tdeletes) deletes.push_back(ValueOrThrow(DeleteFromThrift(d)));
  OkOrThrow(store_.DeleteBatch(name, deletes));
  // Any failure fails the call, so nothing is left to report back.
  _return.clear();
}

void StoreServiceHandler::increment(t2::TResult& _return, const std::string& table,
                                    const t2::TIncrement& tincrement) {
  const std::string name = DataTable(table);
  Increment increment = ValueOrThrow(IncrementFromThrift(tincrement));
  RowResult result = ValueOrThrow(store_.Increment(name, increment));
  if (tincrement.__isset.returnResults && !tincrement.returnResults) result.cells.clear();
  _return = ResultToThrift(result);
}

void StoreServiceHandler::mutateRow(const std::string& table,
                                    const t2::TRowMutations& trowMutations) {
  const std::string name = DataTable(table);
  RowMutations mutations = ValueOrThrow(RowMutationsFromThrift(trowMutations));
  OkOrThrow(MutateRowAtomically(store_, name, std::move(mutations)));
}

bool StoreServiceHandler::checkAndMutate(const std::string& table, const std::string& row,
                                         const std::string& family, const std::string& qualifier,
                                         t2::TCompareOperator::type compareOperator,
                                         const std::string& value,
                                         const t2::TRowMutations& rowMutations) {
  const std::string name = DataTable(table);
  CheckAndMutate cam = ValueOrThrow(
      CheckAndMutateFromThrift(row, family, qualifier, compareOperator, value, rowMutations));
  return ValueOrThrow(store_.CheckAndMutate(name, cam));
}

// ---- Scans -----------------------------------------------------------------

int32_t StoreServiceHandler::openScanner(const std::string& table, const t2::TScan& tscan) {
  const std::string name = DataTable(table);
  ScanRequest request = ValueOrThrow(ScanFromThrift(tscan));
  std::unique_ptr<Scanner> scanner;
  if (request.matches_nothing) {
    // The table must exist all the same, as HBase checks it.
    if (!ValueOrThrow(store_.TableExists(name))) ThrowIOError(kTableNotFound, name, false);
    scanner = std::make_unique<EmptyScanner>();
  } else {
    scanner = ValueOrThrow(store_.OpenScanner(name, request.scan));
  }
  return ValueOrThrow(scanners_.Add(std::move(scanner)));
}

void StoreServiceHandler::getScannerRows(std::vector<t2::TResult>& _return, int32_t scannerId,
                                         int32_t numRows) {
  absl::StatusOr<std::vector<RowResult>> next =
      scanners_.Next(scannerId, std::min<int>(numRows, options_.max_rows_per_call));
  if (absl::IsNotFound(next.status())) {
    // HBase's answer, word for word, for an unknown or expired scanner.
    ThrowStatus(absl::InvalidArgumentError("Invalid scanner Id"), IllegalArgument::kDeclared);
  }
  ResultsToThrift(ValueOrThrow(std::move(next), IllegalArgument::kDeclared), &_return);
}

void StoreServiceHandler::closeScanner(int32_t scannerId) {
  // An unknown id is not an error: the scanner may have expired (HBase 2.x).
  scanners_.Close(scannerId);
}

void StoreServiceHandler::getScannerResults(std::vector<t2::TResult>& _return,
                                            const std::string& table, const t2::TScan& tscan,
                                            int32_t numRows) {
  const std::string name = DataTable(table);
  ScanRequest request = ValueOrThrow(ScanFromThrift(tscan));
  const int rows = std::min<int>(numRows, options_.max_rows_per_call);
  if (request.matches_nothing || rows <= 0) {
    if (!ValueOrThrow(store_.TableExists(name))) ThrowIOError(kTableNotFound, name, false);
    _return.clear();
    return;
  }
  request.scan.limit = request.scan.limit > 0 ? std::min(request.scan.limit, rows) : rows;
  ResultsToThrift(ValueOrThrow(store_.Scan(name, request.scan)), &_return);
}

// ---- Tables ----------------------------------------------------------------

void StoreServiceHandler::getTableDescriptor(t2::TTableDescriptor& _return,
                                             const t2::TTableName& table) {
  const std::string name = ValueOrThrow(TableFromThrift(table));
  std::vector<TableSchema> schemas = ValueOrThrow(store_.ListTables());
  auto it = std::find_if(schemas.begin(), schemas.end(),
                         [&](const TableSchema& s) { return s.name == name; });
  if (it == schemas.end()) ThrowIOError(kTableNotFound, name, false);
  _return = ValueOrThrow(DescriptorToThrift(*it));
}

bool StoreServiceHandler::tableExists(const t2::TTableName& tableName) {
  if (tableName.__isset.ns && tableName.ns == "hbase" && tableName.qualifier == "meta") {
    return true;
  }
  absl::StatusOr<std::string> name = TableFromThrift(tableName);
  // A table in another namespace cannot exist here.
  if (!name.ok()) return false;
  return ValueOrThrow(store_.TableExists(*name));
}

void StoreServiceHandler::createTable(const t2::TTableDescriptor& desc,
                                      const std::vector<std::string>& splitKeys) {
  TableSchema schema = ValueOrThrow(SchemaFromThrift(desc, splitKeys));
  if (ValueOrThrow(store_.TableExists(schema.name))) {
    ThrowIOError(kTableExists, schema.name, false);
  }
  OkOrThrow(store_.CreateTable(schema));
}

void StoreServiceHandler::deleteTable(const t2::TTableName& tableName) {
  const std::string name = ExistingTable(tableName);
  {
    absl::MutexLock lock(&disabled_mutex_);
    if (!disabled_.contains(name)) ThrowIOError(kTableNotDisabled, name, false);
  }
  OkOrThrow(store_.DeleteTable(name));
  absl::MutexLock lock(&disabled_mutex_);
  disabled_.erase(name);
  any_disabled_.store(!disabled_.empty(), std::memory_order_release);
}

void StoreServiceHandler::enableTable(const t2::TTableName& tableName) {
  const std::string name = ExistingTable(tableName);
  absl::MutexLock lock(&disabled_mutex_);
  if (!disabled_.erase(name)) ThrowIOError(kTableNotDisabled, name, false);
  any_disabled_.store(!disabled_.empty(), std::memory_order_release);
}

void StoreServiceHandler::disableTable(const t2::TTableName& tableName) {
  const std::string name = ExistingTable(tableName);
  absl::MutexLock lock(&disabled_mutex_);
  if (!disabled_.insert(name).second) ThrowIOError(kTableNotEnabled, name, false);
  any_disabled_.store(true, std::memory_order_release);
}

bool StoreServiceHandler::isTableEnabled(const t2::TTableName& tableName) {
  const std::string name = ExistingTable(tableName);
  return !IsDisabled(name);
}

}  // namespace rtb::storage::server
