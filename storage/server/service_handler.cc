#include "storage/server/service_handler.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "storage/server/convert.h"
#include "storage/server/errors.h"
#include "storage/server/filter_language.h"
#include "storage/server/filtered_scanner.h"

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

// HBase's client opens a scanner without looking at the table; a missing
// one fails the first read.
class FailingScanner final : public Scanner {
 public:
  explicit FailingScanner(absl::Status status) : status_(std::move(status)) {}
  absl::StatusOr<std::vector<RowResult>> Next(int) override { return status_; }

 private:
  absl::Status status_;
};

// Parse errors of the filter language reach the client as HBase's
// IllegalArgumentException.
absl::StatusOr<std::unique_ptr<Filter>> ParseFilter(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Filter>> filter = ParseFilterString(text);
  if (!filter.ok()) {
    ThrowIOError("java.lang.IllegalArgumentException", std::string(filter.status().message()),
                 false);
  }
  return filter;
}

// HBase's gateway turns the request into the client's Get or Scan, parsing
// the filter string, before anything looks at the table: a filter that does
// not parse fails the call even on a missing or disabled table.
void CheckFilter(const std::string& text) {
  if (!text.empty()) ParseFilter(text).IgnoreError();  // throws when it does not parse
}

// The store's scanner, behind the request's filter when it has one.
std::unique_ptr<Scanner> OpenFiltered(Store& store, const std::string& table,
                                      const ScanRequest& request) {
  std::unique_ptr<Scanner> scanner = ValueOrThrow(store.OpenScanner(table, request.scan));
  if (request.filter_string.empty()) return scanner;
  RowFiltering filtering(ValueOrThrow(ParseFilter(request.filter_string)),
                         request.filter_max_versions, request.scan.reversed);
  return std::make_unique<FilteredScanner>(std::move(scanner), std::move(filtering),
                                           request.filter_limit);
}

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
      clock_(options_.clock ? options_.clock : SystemClock()),
      scanners_(options_.max_open_scanners, options_.scanner_idle_timeout_ms, clock_) {}

bool StoreServiceHandler::IsDisabled(const std::string& table) {
  if (!any_disabled_.load(std::memory_order_acquire)) return false;
  absl::MutexLock lock(&disabled_mutex_);
  return disabled_.contains(table);
}

std::string StoreServiceHandler::DataTable(const std::string& name) {
  std::string table = TableFromThrift(name);
  // HBase's client refuses it before sending, in these words.
  if (IsDisabled(table)) ThrowTableNotFound(absl::StrCat(table, " is disabled."));
  return table;
}

std::string StoreServiceHandler::ExistingTable(const t2::TTableName& name) {
  std::string table = TableFromThrift(name);
  if (!ValueOrThrow(store_.TableExists(table))) ThrowTableNotFound(table);
  return table;
}

// ---- Data ------------------------------------------------------------------

void StoreServiceHandler::get(t2::TResult& _return, const std::string& table,
                              const t2::TGet& tget) {
  if (tget.__isset.filterString) CheckFilter(tget.filterString);
  const std::string name = DataTable(table);
  Get get = ValueOrThrow(GetFromThrift(tget));
  if (!tget.__isset.filterString || tget.filterString.empty()) {
    _return = ResultToThrift(ValueOrThrow(store_.Get(name, get)));
    return;
  }
  // The filter sees every version; the reader's limit applies after it.
  RowFiltering filtering(ValueOrThrow(ParseFilter(tget.filterString)), get.max_versions, false);
  get.max_versions = std::numeric_limits<int>::max();
  std::optional<RowResult> kept = filtering.Apply(ValueOrThrow(store_.Get(name, get)));
  _return = ResultToThrift(kept ? *std::move(kept) : RowResult{get.row, {}, false});
}

void StoreServiceHandler::getMultiple(std::vector<t2::TResult>& _return, const std::string& table,
                                      const std::vector<t2::TGet>& tgets) {
  const std::string name = DataTable(table);
  if (std::any_of(tgets.begin(), tgets.end(), [](const t2::TGet& g) {
        return g.__isset.filterString && !g.filterString.empty();
      })) {
    _return.clear();
    for (const t2::TGet& g : tgets) {
      _return.emplace_back();
      get(_return.back(), table, g);
    }
    return;
  }
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

bool StoreServiceHandler::exists(const std::string& table, const t2::TGet& tget) {
  t2::TResult result;
  get(result, table, tget);
  return !result.columnValues.empty();
}

void StoreServiceHandler::existsAll(std::vector<bool>& _return, const std::string& table,
                                    const std::vector<t2::TGet>& tgets) {
  std::vector<t2::TResult> results;
  getMultiple(results, table, tgets);
  _return.clear();
  for (const t2::TResult& r : results) _return.push_back(!r.columnValues.empty());
}

bool StoreServiceHandler::checkAndPut(const std::string& table, const std::string& row,
                                      const std::string& family, const std::string& qualifier,
                                      const std::string& value, const t2::TPut& tput) {
  t2::TRowMutations mutations;
  mutations.row = row;
  mutations.mutations.emplace_back();
  mutations.mutations.back().__set_put(tput);
  return checkAndMutate(table, row, family, qualifier, t2::TCompareOperator::EQUAL, value,
                        mutations);
}

bool StoreServiceHandler::checkAndDelete(const std::string& table, const std::string& row,
                                         const std::string& family, const std::string& qualifier,
                                         const std::string& value, const t2::TDelete& tdelete) {
  t2::TRowMutations mutations;
  mutations.row = row;
  mutations.mutations.emplace_back();
  mutations.mutations.back().__set_deleteSingle(tdelete);
  return checkAndMutate(table, row, family, qualifier, t2::TCompareOperator::EQUAL, value,
                        mutations);
}

// Read, concatenate, and write back only if the first column still holds
// what was read; a writer in between makes it read again.
void StoreServiceHandler::append(t2::TResult& _return, const std::string& table,
                                 const t2::TAppend& tappend) {
  const std::string name = DataTable(table);
  Get current;
  current.row = tappend.row;
  for (const t2::TColumnValue& c : tappend.columns) {
    current.columns.push_back(Column{c.family, c.qualifier});
  }
  if (tappend.columns.empty()) {
    ThrowStatus(absl::InvalidArgumentError("an append names no column"), kNotDeclared);
  }
  constexpr int kRounds = 16;
  for (int round = 0; round < kRounds; ++round) {
    RowResult before = ValueOrThrow(store_.Get(name, current));
    CheckAndMutate cam;
    cam.row = tappend.row;
    cam.family = tappend.columns.front().family;
    cam.qualifier = tappend.columns.front().qualifier;
    std::optional<std::string_view> first = before.Value(cam.family, cam.qualifier);
    cam.value = first ? std::string(*first) : std::string();
    if (first && first->empty()) cam.value.reset();
    Put put;
    put.row = tappend.row;
    if (tappend.__isset.durability) put.durability = DurabilityFromThrift(tappend.durability);
    RowResult after;
    after.row = tappend.row;
    for (const t2::TColumnValue& c : tappend.columns) {
      std::optional<std::string_view> old = before.Value(c.family, c.qualifier);
      std::string value = std::string(old ? *old : std::string_view()) + c.value;
      put.values.push_back(PutValue{c.family, c.qualifier, value, std::nullopt});
    }
    cam.puts.push_back(put);
    if (!ValueOrThrow(store_.CheckAndMutate(name, cam))) continue;
    if (tappend.__isset.returnResults && !tappend.returnResults) {
      _return = ResultToThrift(RowResult{tappend.row, {}, false});
      return;
    }
    _return = ResultToThrift(ValueOrThrow(store_.Get(name, current)));
    return;
  }
  ThrowStatus(absl::AbortedError("append raced with other writers of the row; retry"),
              kNotDeclared);
}

// ---- Scans -----------------------------------------------------------------

int32_t StoreServiceHandler::openScanner(const std::string& table, const t2::TScan& tscan) {
  if (tscan.__isset.filterString) CheckFilter(tscan.filterString);
  const std::string name = TableFromThrift(table);
  ScanRequest request = ValueOrThrow(ScanFromThrift(tscan));
  std::unique_ptr<Scanner> scanner;
  if (IsDisabled(name)) {
    // As for a missing table, HBase's client finds out at the first read.
    scanner = std::make_unique<FailingScanner>(absl::FailedPreconditionError(
        absl::StrCat(kTableDisabledPrefix, name, kTableDisabledSuffix)));
  } else if (!ValueOrThrow(store_.TableExists(name))) {
    scanner = std::make_unique<FailingScanner>(
        absl::InvalidArgumentError(absl::StrCat("unknown table '", name, "'")));
  } else if (request.matches_nothing) {
    scanner = std::make_unique<EmptyScanner>();
  } else {
    scanner = OpenFiltered(store_, name, request);
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
  if (tscan.__isset.filterString) CheckFilter(tscan.filterString);
  const std::string name = DataTable(table);
  ScanRequest request = ValueOrThrow(ScanFromThrift(tscan));
  const int rows = std::min<int>(numRows, options_.max_rows_per_call);
  if (request.matches_nothing || rows <= 0) {
    if (!ValueOrThrow(store_.TableExists(name))) ThrowTableNotFound(name);
    _return.clear();
    return;
  }
  if (!request.filter_string.empty()) {
    std::unique_ptr<Scanner> scanner = OpenFiltered(store_, name, request);
    ResultsToThrift(ValueOrThrow(scanner->Next(rows)), &_return);
    return;
  }
  request.scan.limit = request.scan.limit > 0 ? std::min(request.scan.limit, rows) : rows;
  ResultsToThrift(ValueOrThrow(store_.Scan(name, request.scan)), &_return);
}

}  // namespace rtb::storage::server
