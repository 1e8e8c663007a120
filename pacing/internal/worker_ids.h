// Worker ids held by the Pacers of this process. Two pacers flushing with
// one id would write one shard as one worker and break the per-shard rates
// and the overspend bound, so a second claim of an id fails.
//
// Thread-safety: Claim and the destructor may run on any thread.
#ifndef RTB_PACING_INTERNAL_WORKER_IDS_H_
#define RTB_PACING_INTERNAL_WORKER_IDS_H_

#include <memory>

#include "absl/status/statusor.h"

namespace rtb::pacing::internal {

// Holds one worker id for as long as it lives.
class WorkerIdClaim {
 public:
  // AlreadyExists naming the id when another claim of this process holds it.
  static absl::StatusOr<std::unique_ptr<WorkerIdClaim>> Claim(int worker_id);
  ~WorkerIdClaim();
  WorkerIdClaim(const WorkerIdClaim&) = delete;
  WorkerIdClaim& operator=(const WorkerIdClaim&) = delete;

  int worker_id() const { return worker_id_; }

 private:
  explicit WorkerIdClaim(int worker_id) : worker_id_(worker_id) {}
  int worker_id_;
};

}  // namespace rtb::pacing::internal

#endif  // RTB_PACING_INTERNAL_WORKER_IDS_H_
