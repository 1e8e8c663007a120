// Leadership: one process of a fleet at a time does a job (the telemetry
// packer, the index reconcile, the erasure steps), the others stand by. Each
// process keeps trying to take the lease `name` (lease.h); whoever holds it
// leads while its renewals succeed.
//
// Failover: a leader that is killed (or cut off from the store) stops
// renewing; its lease runs out ttl_ms after its last renewal, and a standby
// tries every retry_every_ms, so another process leads at most
// ttl_ms + retry_every_ms after the last renewal (measured in
// tests/leases/leadership_test.cc). A clean stop releases the lease, and a
// standby leads within retry_every_ms. A leader stops leading (Leads()
// false) a safety margin before its lease runs out in the store, so two
// processes never lead at once.
//
// Thread-safety: Leads may be called from any thread; a thread named
// rtb-leader does the taking.
#ifndef RTB_LEASES_LEADERSHIP_H_
#define RTB_LEASES_LEADERSHIP_H_

#include <cstdint>
#include <memory>
#include <string>

#include "leases/lease.h"
#include "storage/store.h"

namespace rtb::leases {

struct LeadershipOptions {
  // Default: storage::kLeasesTable.
  std::string table = std::string(storage::kLeasesTable);
  // The lease's TTL, ms; renewed every third of it. Default 15000.
  int64_t ttl_ms = 15000;
  // How often a standby tries to take the lease, ms. Default 2000.
  int64_t retry_every_ms = 2000;
};

class Leadership {
 public:
  // Starts trying at once (the first attempt is made before this returns,
  // so a lone process leads from the start). `store` must outlive this.
  // InvalidArgument for options a Lease would refuse, or retry_every_ms < 1.
  static absl::StatusOr<std::unique_ptr<Leadership>> Start(storage::Store& store, std::string name,
                                                           std::string holder,
                                                           LeadershipOptions options = {});
  // Stops trying and releases the lease if held.
  ~Leadership();
  Leadership(const Leadership&) = delete;
  Leadership& operator=(const Leadership&) = delete;

  // Whether this process leads now.
  bool Leads() const;
  // Times this process became the leader.
  int64_t terms() const;

 private:
  class State;
  explicit Leadership(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace rtb::leases

#endif  // RTB_LEASES_LEADERSHIP_H_
