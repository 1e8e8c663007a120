// Privacy erasure of one device (ad-tech seed, "Privacy deletion"; event-
// tracking seed, "Deletes have a related trap").
//
// A Delete only writes a tombstone: the cells stay in store files until a
// major compaction rewrites them, and in every snapshot or backup taken
// before that. So an erasure is a sequence of steps, each recorded as a cell
// of the device's row in `erasures` and readable through Status():
//   1. requested         the erasure is recorded FIRST, so from then on
//                        EventStore::Record (and every beacon handler that
//                        asks EventStore::IsErased) skips the device;
//   2. tombstoned        every row is deleted: the `profiles` row; the
//                        device's impressions found through
//                        `device_impressions`, and those index rows; the
//                        timeline rows in the device's key range, the index
//                        row of each (before the timeline row, so a crash
//                        never strands an index row nobody can find); the
//                        rollup rows. Every scan is a prefix with a limit,
//                        read in pages;
//   3. major_compacted   Store::MajorCompact ran on every table touched, after
//                        the tombstones (one compaction serves every erasure
//                        pending at the time). A backend that cannot compact
//                        on demand (HBase through Thrift2) relies on HBase's
//                        periodic major compaction: the step completes when
//                        `periodic_major_compaction_ms` has passed since the
//                        tombstones;
//   4. prior_snapshots_expired
//                        every snapshot or backup that could still hold the
//                        cells (any taken before the compaction) has passed
//                        its retention: compaction time + snapshot retention.
// Steps 3 and 4 complete in AdvancePending, which a periodic task calls.
//
// The erasure record is kept for good: replayed beacons for the device keep
// being skipped at ingest, because re-put cells would either be masked by the
// delete markers (until compaction) or bring the data back (after).
//
// Thread-safety: a DeviceEraser is safe to call from any number of threads;
// erasing the same device twice at once does the same deletes twice.
#ifndef RTB_BIDDER_EVENTS_ERASURE_H_
#define RTB_BIDDER_EVENTS_ERASURE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bidder/events/events.h"
#include "prometheus/registry.h"
#include "storage/clock.h"
#include "storage/schemas.h"
#include "storage/store.h"

namespace rtb::bidder::events {

namespace internal {
struct ErasureMetrics;
}  // namespace internal

struct ErasureOptions {
  // The event tables (and `erasures`); defaults are storage/schemas.h's.
  EventTables events;
  std::string profiles = std::string(storage::kProfilesTable);
  std::string impressions = std::string(storage::kImpressionsTable);
  // Row = device key(16) + reverse ms(8) + impression id.
  std::string device_impressions = std::string(storage::kDeviceImpressionsTable);
  // How long snapshots and backups of the tables are kept, ms. Default 30 days.
  int64_t snapshot_retention_ms = 30LL * 24 * 3600 * 1000;
  // When the store cannot major-compact on demand: time after the tombstones
  // by which HBase's periodic major compaction has rewritten every region, ms.
  // Default 10.5 days: hbase.hregion.majorcompaction (7 days) with its
  // default jitter of 0.5.
  int64_t periodic_major_compaction_ms = 252LL * 3600 * 1000;
  // Rows read per page while deleting. Default 500.
  int page_rows = 500;
  // Pending erasures one AdvancePending call handles at most. Default 1000.
  int max_pending_per_advance = 1000;
};

enum class ErasureStep { kRequested, kTombstoned, kMajorCompacted, kPriorSnapshotsExpired };
// "requested", "tombstoned", "major_compacted", "prior_snapshots_expired".
std::string_view ErasureStepName(ErasureStep step);

// Rows deleted per table, summed over every sweep of the erasure.
struct ErasedRows {
  int64_t profiles = 0;
  int64_t impressions = 0;
  int64_t device_impressions = 0;
  int64_t timeline = 0;
  int64_t index = 0;
  int64_t rollups = 0;

  bool operator==(const ErasedRows&) const = default;
};

struct ErasureStatus {
  std::string user_key;
  // Times are ms since the epoch, from the eraser's clock.
  int64_t requested_ms = 0;
  std::optional<int64_t> tombstoned_ms;
  std::optional<int64_t> major_compacted_ms;
  // True when the store could not compact on demand and step 3 waits for the
  // periodic compaction, due at major_compaction_due_ms.
  bool periodic_compaction = false;
  std::optional<int64_t> major_compaction_due_ms;
  // Set with major_compacted_ms: when the last snapshot that could hold the
  // cells expires.
  std::optional<int64_t> prior_snapshots_expire_ms;
  std::optional<int64_t> prior_snapshots_expired_ms;
  ErasedRows rows_deleted;

  // The last step completed.
  ErasureStep step() const;
  bool complete() const { return prior_snapshots_expired_ms.has_value(); }
};

// {"device_key":"<hex>","step":"tombstoned","complete":false,"requested_ms":...,
//  "tombstoned_ms":...,"major_compacted_ms":null,"periodic_compaction":false,
//  "major_compaction_due_ms":null,"prior_snapshots_expire_ms":null,
//  "prior_snapshots_expired_ms":null,"rows_deleted":{"profiles":1,...}}
std::string ErasureStatusJson(const ErasureStatus& status);

class DeviceEraser {
 public:
  // `store` and `clock` must outlive this. `registry` may be null (metrics
  // are then kept in a registry of the eraser's own).
  DeviceEraser(storage::Store& store, storage::Clock& clock, prometheus::Registry* registry,
               ErasureOptions options = {});
  ~DeviceEraser();
  DeviceEraser(const DeviceEraser&) = delete;
  DeviceEraser& operator=(const DeviceEraser&) = delete;

  // Records the erasure, deletes every row of the device and returns the
  // status (tombstoned). An erasure already tombstoned is returned as it is.
  // On an error the erasure stays recorded and pending: AdvancePending (or
  // calling Erase again) finishes the deletes.
  absl::StatusOr<ErasureStatus> Erase(std::string_view user_key);

  // Nullopt when the device was never erased.
  absl::StatusOr<std::optional<ErasureStatus>> Status(std::string_view user_key);

  // Moves every pending erasure on as far as it can go now: finishes deletes
  // interrupted by an error, deletes once more and major-compacts for the
  // erasures that are tombstoned, completes the snapshot step for those whose
  // snapshots have expired. Call it periodically (hourly is plenty).
  struct AdvanceReport {
    int pending = 0;  // erasures looked at
    int tombstoned = 0;
    int major_compacted = 0;
    int prior_snapshots_expired = 0;
  };
  absl::StatusOr<AdvanceReport> AdvancePending();

 private:
  absl::StatusOr<ErasedRows> Sweep(std::string_view user_key);
  absl::Status SweepImpressions(std::string_view user_key, ErasedRows* rows);
  absl::Status SweepEvents(std::string_view user_key, ErasedRows* rows);
  absl::Status SweepRollups(std::string_view user_key, ErasedRows* rows);
  absl::Status RecordRequest(std::string_view user_key);
  absl::Status RecordTombstoned(std::string_view user_key, const ErasedRows& rows);
  absl::Status AddRows(std::string_view user_key, const ErasedRows& rows);
  absl::Status PutTimes(std::string_view user_key,
                        std::vector<std::pair<std::string_view, int64_t>> times);
  // Flush + MajorCompact of every table an erasure deletes from.
  absl::Status CompactTables();
  // The steps of AdvancePending, in order: the pending erasures, each
  // tombstoned if it is not yet, split into those waiting for a major
  // compaction and those past it; the compaction (or, without compaction on
  // demand, the periodic one's due time); prior snapshots expired.
  absl::Status TombstonePending(AdvanceReport* report, std::vector<ErasureStatus>* to_compact,
                                std::vector<ErasureStatus>* compacted);
  absl::Status CompactErased(std::vector<ErasureStatus> to_compact, AdvanceReport* report,
                             std::vector<ErasureStatus>* compacted);
  absl::Status ExpireSnapshots(const std::vector<ErasureStatus>& compacted, AdvanceReport* report);
  // Counts `status` as a failed advance and returns it.
  absl::Status Failed(absl::Status status);

  storage::Store& store_;
  storage::Clock& clock_;
  ErasureOptions options_;
  std::unique_ptr<prometheus::Registry> own_registry_;
  std::unique_ptr<internal::ErasureMetrics> metrics_;
};

}  // namespace rtb::bidder::events

#endif  // RTB_BIDDER_EVENTS_ERASURE_H_
