#include "pacing/internal/orphan_journals.h"

#include <algorithm>
#include <utility>

namespace rtb::pacing::internal {
// One orphan's journal, recovered under its own id as if this process were
// that worker restarted; it records no spend of its own.
struct OrphanJournals::Adopted {
  std::unique_ptr<leases::Lease> lease;
  int worker_id = 0;
  SpendRecorder recorder;
  WorkerSpendJournal journal;
  SpendFlusher flusher;

  Adopted(std::unique_ptr<leases::Lease> taken, int id,
          const std::vector<CampaignBudget>& campaigns, storage::Store& store,
          PacingMetrics& metrics)
      : lease(std::move(taken)),
        worker_id(id),
        recorder(std::max<size_t>(campaigns.size(), 1)),
        journal(id, campaigns, store, metrics),
        flusher(id, campaigns, recorder, store, metrics, RandomNonceSeed(), &journal) {}
};

OrphanJournals::OrphanJournals(const std::vector<CampaignBudget>& campaigns, storage::Store& store,
                               PacingMetrics& metrics, WorkerLeaseOptions lease_options)
    : campaigns_(campaigns),
      store_(store),
      metrics_(metrics),
      lease_options_(std::move(lease_options)) {
  lease_options_.holder += " (recovering an orphaned journal)";
  // Losing an adopted id only ends its adoption (Flush checks Held).
  lease_options_.on_lost = nullptr;
}

OrphanJournals::~OrphanJournals() = default;

void OrphanJournals::AdoptNewOrphans() {
  if (adopted_.size() >= kMaxAdopted) return;
  absl::StatusOr<std::vector<int>> orphans = OrphanedWorkerIds(store_, kMaxAdopted);
  if (!orphans.ok()) {
    metrics_.CountStoreError(StoreOperation::kJournal);
    return;
  }
  for (int id : *orphans) {
    if (adopted_.size() >= kMaxAdopted) break;
    // Held by another process since the read (it starts under that id, or
    // adopts it): that one recovers it.
    absl::StatusOr<std::unique_ptr<leases::Lease>> lease = leases::Lease::Take(
        store_, WorkerLeaseName(id), lease_options_.holder,
        {.ttl_ms = lease_options_.ttl_ms, .renew_every_ms = lease_options_.ttl_ms / 3});
    if (!lease.ok()) continue;
    adopted_.push_back(
        std::make_unique<Adopted>(*std::move(lease), id, campaigns_, store_, metrics_));
  }
}

void OrphanJournals::Flush(int64_t as_of_ms) {
  AdoptNewOrphans();
  for (auto& adopted : adopted_) {
    if (!adopted->lease->Held()) continue;
    const FlushResult result = adopted->flusher.Flush(as_of_ms);
    recovered_micros_ += result.micros_flushed;
  }
  // A lost lease's adoption ends (another process holds the id now and
  // recovers what is left); a finished one releases the id.
  std::erase_if(adopted_, [](const std::unique_ptr<Adopted>& adopted) {
    return !adopted->lease->Held() || adopted->flusher.Idle();
  });
}

void OrphanJournals::TrackAppendedCampaigns() {
  for (auto& adopted : adopted_) adopted->flusher.TrackAppendedCampaigns();
}

std::vector<int> OrphanJournals::adopted_ids() const {
  std::vector<int> ids;
  for (const auto& adopted : adopted_) ids.push_back(adopted->worker_id);
  return ids;
}

}  // namespace rtb::pacing::internal
