#include "bidder/events/internal/reconcile_cursors.h"

#include <optional>
#include <string_view>

#include "storage/schemas.h"

namespace rtb::bidder::events::internal {
namespace {

constexpr std::string_view kRow = "events-reconcile";
constexpr std::string_view kTimelineColumn = "timeline";
constexpr std::string_view kIndexColumn = "index";

}  // namespace

absl::StatusOr<ReconcileCursors> LoadReconcileCursors(storage::Store& store,
                                                      const std::string& table) {
  storage::Get get;
  get.row = std::string(kRow);
  get.columns = {{std::string(storage::kFleetJobsFamily), std::nullopt}};
  absl::StatusOr<storage::RowResult> row = store.Get(table, get);
  if (!row.ok()) return row.status();
  ReconcileCursors cursors;
  if (auto v = row->Value(storage::kFleetJobsFamily, kTimelineColumn)) cursors.timeline = *v;
  if (auto v = row->Value(storage::kFleetJobsFamily, kIndexColumn)) cursors.index = *v;
  return cursors;
}

absl::Status SaveReconcileCursors(storage::Store& store, const std::string& table,
                                  const ReconcileCursors& cursors) {
  storage::Put put;
  put.row = std::string(kRow);
  const std::string family(storage::kFleetJobsFamily);
  put.values = {{family, std::string(kTimelineColumn), cursors.timeline, std::nullopt},
                {family, std::string(kIndexColumn), cursors.index, std::nullopt}};
  return store.Put(table, put);
}

}  // namespace rtb::bidder::events::internal
