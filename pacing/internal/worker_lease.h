// Worker ids leased in the shared store (leases/lease.h), so that no two live
// processes write one budget position or one journal as the same worker, and
// the journals of workers that died are found and recovered.
//
//   lease name   "worker/<id>"   id in [0, 65535] (the journal's 2-byte key)
//
// A configured id is taken when free; a dead holder's lease is waited out
// (it runs out one TTL after its last renewal), and a live holder's refuses
// the start. "auto" (config::kAutoWorkerId) takes the lowest free id, so a
// process restarted at once takes another id than the one its dead
// predecessor still holds; OrphanedWorkerIds finds such ids once their
// lease has run out, for another worker to recover (orphan_journals.h).
//
// Thread-safety: free functions; see leases/lease.h for the Lease.
#ifndef RTB_PACING_INTERNAL_WORKER_LEASE_H_
#define RTB_PACING_INTERNAL_WORKER_LEASE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "leases/lease.h"
#include "storage/store.h"

namespace rtb::pacing::internal {

inline constexpr int kMaxWorkerId = 65535;

struct WorkerLeaseOptions {
  // How long the lease outlives its last renewal; renewed every third.
  int64_t ttl_ms = 15000;
  // Who holds it, for an operator reading a refusal ("rtb-bidder host:port").
  std::string holder = "rtb worker";
  // Called once when the lease is lost (leases::LeaseOptions::on_lost).
  std::function<void()> on_lost;
};

std::string WorkerLeaseName(int worker_id);

// The Lease's options for these: TTL, renewal every third, on_lost.
leases::LeaseOptions LeaseOptionsOf(const WorkerLeaseOptions& options);

// Leases `worker_id` (or, for kAutoWorkerId, the lowest free id) for this
// process. A configured id held by another is tried again for one TTL (a
// killed holder's lease runs out by then); FailedPrecondition naming the
// holder after that. ResourceExhausted when every id is held.
absl::StatusOr<std::unique_ptr<leases::Lease>> LeaseWorkerId(storage::Store& store, int worker_id,
                                                             const WorkerLeaseOptions& options);

// The id a lease of LeaseWorkerId holds.
int LeasedWorkerId(const leases::Lease& lease);

// Ids that have spend journal entries and whose lease nobody holds: workers
// that died (or a fleet that shrank) and left spend to recover. At most
// `max_ids`, lowest first. One short scan per id with entries, and one
// lease read.
absl::StatusOr<std::vector<int>> OrphanedWorkerIds(storage::Store& store, size_t max_ids);

}  // namespace rtb::pacing::internal

#endif  // RTB_PACING_INTERNAL_WORKER_LEASE_H_
