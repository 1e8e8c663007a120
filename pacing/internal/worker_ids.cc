#include "pacing/internal/worker_ids.h"

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace rtb::pacing::internal {
namespace {

struct ClaimedIds {
  absl::Mutex mutex;
  absl::flat_hash_set<int> ids ABSL_GUARDED_BY(mutex);
};

ClaimedIds& Claimed() {
  // Never destroyed: claims may be released during static destruction.
  static ClaimedIds* claimed = new ClaimedIds;
  return *claimed;
}

}  // namespace

absl::StatusOr<std::unique_ptr<WorkerIdClaim>> WorkerIdClaim::Claim(int worker_id) {
  ClaimedIds& claimed = Claimed();
  absl::MutexLock lock(&claimed.mutex);
  if (!claimed.ids.insert(worker_id).second) {
    return absl::AlreadyExistsError(absl::StrCat(
        "pacing.worker_id ", worker_id, " is already used by another pacer of this process"));
  }
  return std::unique_ptr<WorkerIdClaim>(new WorkerIdClaim(worker_id));
}

WorkerIdClaim::~WorkerIdClaim() {
  ClaimedIds& claimed = Claimed();
  absl::MutexLock lock(&claimed.mutex);
  claimed.ids.erase(worker_id_);
}

}  // namespace rtb::pacing::internal
