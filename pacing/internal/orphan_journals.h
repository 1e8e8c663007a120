// The spend journals of workers that died under an id nobody holds now (a
// process restarted under "auto" takes another id; a fleet that shrank
// leaves ids unused). Each pacing flush looks for such ids
// (OrphanedWorkerIds), leases them for this process, recovers their entries
// exactly as a restarted worker would (spend_flusher.h: positions read,
// claimed entries counted on the orphan's shard with its position moved,
// unclaimed ones read again a flush later and then deleted), and releases
// each id once nothing of it is left. The lease keeps two processes from
// adopting one id, and a process starting under that id from writing it
// meanwhile.
//
// Thread-safety: one thread (the pacing loop) calls everything.
#ifndef RTB_PACING_INTERNAL_ORPHAN_JOURNALS_H_
#define RTB_PACING_INTERNAL_ORPHAN_JOURNALS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "leases/lease.h"
#include "pacing/internal/campaign_budget.h"
#include "pacing/internal/pacing_metrics.h"
#include "pacing/internal/spend_flusher.h"
#include "pacing/internal/spend_journal.h"
#include "pacing/internal/worker_lease.h"
#include "pacing/pacer.h"
#include "storage/store.h"

namespace rtb::pacing::internal {

class OrphanJournals {
 public:
  // Orphans adopted at a time; more wait for a later flush.
  static constexpr size_t kMaxAdopted = 4;

  // `campaigns`, `store` and `metrics` must outlive this. `lease_options`
  // describe this process as the adopter.
  OrphanJournals(const std::vector<CampaignBudget>& campaigns, storage::Store& store,
                 PacingMetrics& metrics, WorkerLeaseOptions lease_options);
  ~OrphanJournals();

  // Adopts the orphans found now, flushes every adopted journal at
  // `as_of_ms`, and lets go of those with nothing left.
  void Flush(int64_t as_of_ms);
  // The campaigns list grew (Pacer::UpdateCampaigns).
  void TrackAppendedCampaigns();

  // Ids adopted and not yet released.
  std::vector<int> adopted_ids() const;
  // Journal entries recovered for orphans so far (counted or deleted).
  int64_t recovered_micros() const { return recovered_micros_; }

 private:
  struct Adopted;
  void AdoptNewOrphans();

  const std::vector<CampaignBudget>& campaigns_;
  storage::Store& store_;
  PacingMetrics& metrics_;
  WorkerLeaseOptions lease_options_;
  std::vector<std::unique_ptr<Adopted>> adopted_;
  int64_t recovered_micros_ = 0;
};

}  // namespace rtb::pacing::internal

#endif  // RTB_PACING_INTERNAL_ORPHAN_JOURNALS_H_
