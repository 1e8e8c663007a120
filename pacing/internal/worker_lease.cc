#include "pacing/internal/worker_lease.h"

#include <algorithm>
#include <chrono>
#include <string_view>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "config/pacing_config.h"
#include "pacing/internal/spend_journal_layout.h"
#include "storage/schemas.h"

namespace rtb::pacing::internal {
namespace {

constexpr char kWorkerLeasePrefix[] = "worker/";
constexpr size_t kWorkerLeasePrefixSize = sizeof(kWorkerLeasePrefix) - 1;

absl::StatusOr<std::unique_ptr<leases::Lease>> LeaseLowestFreeId(
    storage::Store& store, const WorkerLeaseOptions& options) {
  std::vector<std::string> names;
  names.reserve(kMaxWorkerId + 1);
  for (int id = 0; id <= kMaxWorkerId; ++id) names.push_back(WorkerLeaseName(id));
  return leases::Lease::TakeFirstFree(store, names, options.holder, LeaseOptionsOf(options));
}

// Waits out a dead holder's lease: it cannot outlive one TTL (plus the
// margin of a slow clock tick) unless its holder renews it, i.e. is alive.
absl::StatusOr<std::unique_ptr<leases::Lease>> LeaseConfiguredId(
    storage::Store& store, int worker_id, const WorkerLeaseOptions& options) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point give_up =
      Clock::now() + std::chrono::milliseconds(options.ttl_ms + options.ttl_ms / 10);
  const auto pause = std::chrono::milliseconds(std::clamp<int64_t>(options.ttl_ms / 20, 50, 1000));
  while (true) {
    absl::StatusOr<std::unique_ptr<leases::Lease>> lease = leases::Lease::Take(
        store, WorkerLeaseName(worker_id), options.holder, LeaseOptionsOf(options));
    if (lease.ok() || lease.status().code() != absl::StatusCode::kFailedPrecondition) {
      return lease;
    }
    if (Clock::now() >= give_up) {
      return absl::FailedPreconditionError(
          absl::StrCat("pacing.worker_id ", worker_id, " is in use by a live process: ",
                       lease.status().message(), "; give each process its own id, or \"auto\""));
    }
    std::this_thread::sleep_for(pause);
  }
}

}  // namespace

leases::LeaseOptions LeaseOptionsOf(const WorkerLeaseOptions& options) {
  leases::LeaseOptions lease;
  lease.ttl_ms = options.ttl_ms;
  lease.renew_every_ms = options.ttl_ms / 3;
  lease.on_lost = options.on_lost;
  return lease;
}

std::string WorkerLeaseName(int worker_id) { return absl::StrCat(kWorkerLeasePrefix, worker_id); }

absl::StatusOr<std::unique_ptr<leases::Lease>> LeaseWorkerId(storage::Store& store, int worker_id,
                                                             const WorkerLeaseOptions& options) {
  if (worker_id == config::kAutoWorkerId) return LeaseLowestFreeId(store, options);
  if (worker_id < 0 || worker_id > kMaxWorkerId) {
    return absl::InvalidArgumentError(
        absl::StrCat("worker id ", worker_id, " is outside [0, ", kMaxWorkerId, "]"));
  }
  return LeaseConfiguredId(store, worker_id, options);
}

int LeasedWorkerId(const leases::Lease& lease) {
  int id = -1;
  const std::string& name = lease.name();
  if (name.compare(0, kWorkerLeasePrefixSize, kWorkerLeasePrefix) != 0 ||
      !absl::SimpleAtoi(name.substr(kWorkerLeasePrefixSize), &id)) {
    return -1;
  }
  return id;
}

absl::StatusOr<std::vector<int>> OrphanedWorkerIds(storage::Store& store, size_t max_ids) {
  std::vector<int> orphaned;
  int from = 0;
  while (from <= kMaxWorkerId && orphaned.size() < max_ids) {
    // The first entry row at or after worker `from`'s: it names the next id
    // with entries (counter rows, 2 bytes long, are skipped by the start key).
    storage::Scan scan;
    scan.start_row = JournalEntryRow(from, 0);
    scan.columns = {storage::Column{std::string(kJournalEntryFamily), std::nullopt}};
    scan.limit = 1;
    scan.caching = 1;
    absl::StatusOr<std::vector<storage::RowResult>> rows =
        store.Scan(storage::kSpendJournalTable, scan);
    if (!rows.ok()) return rows.status();
    if (rows->empty()) break;
    std::optional<JournalEntryKey> key = ParseJournalEntryRow(rows->front().row);
    const int id = key.has_value() ? key->worker_id : from;
    if (key.has_value()) {
      absl::StatusOr<std::string> holder = leases::Lease::HolderOf(store, WorkerLeaseName(id));
      if (!holder.ok()) return holder.status();
      if (holder->empty()) orphaned.push_back(id);
    }
    from = id + 1;
  }
  return orphaned;
}

}  // namespace rtb::pacing::internal
