// Leases: a name that one live process holds at a time, in the store all
// the processes of a fleet share (a worker id, a job that must run once per
// fleet). The lease is one cell of `leases` (storage/schemas.h): row = the
// name, l:h = the holder's value (a token unique to this process's run,
// then a description an operator can read), written with a cell TTL.
// CheckAndMutate makes each step atomic on every backend:
//
//   take     "l:h absent"      -> put the value, cell TTL ttl_ms
//   renew    "l:h == value"    -> put it again, cell TTL ttl_ms
//   release  "l:h == value"    -> delete it
//
// An expired cell reads as absent, so a name whose holder stopped renewing
// (killed, hung, cut off from the store) is free ttl_ms after its last
// renewal, and not before: nobody can take it while its holder may still
// be writing under it.
//
// The holder's own view is conservative: a lease counts as held until
// ttl_ms, less a safety margin (a tenth of it, at most a second), after the
// moment its last successful take or renewal was *sent*, which is earlier
// than the store's expiry (the cell's timestamp is set on arrival). A holder
// must stop acting under the name once Held() is false; on_lost says when,
// from a watchdog thread that fires at that moment even while a renewal is
// stuck in a store that does not answer. A renewal that finds another
// holder loses the lease at once; one the store refuses is tried again at
// the next period.
//
// Thread-safety: a Lease may be read (Held, name) from any thread; Held is
// one atomic load and a clock read. It is renewed on a thread of its own,
// named rtb-lease, and watched by another, rtb-lease-watch.
#ifndef RTB_LEASES_LEASE_H_
#define RTB_LEASES_LEASE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "storage/schemas.h"
#include "storage/store.h"

namespace rtb::leases {

struct LeaseOptions {
  // Default: storage::kLeasesTable. Tests point it at a table of their own.
  std::string table = std::string(storage::kLeasesTable);
  // How long a lease outlives its last renewal, ms. Default 15000.
  int64_t ttl_ms = 15000;
  // How often the lease is renewed, ms; below ttl_ms, so that a renewal
  // or two may fail without the lease being lost. Default 5000. 0: never
  // (the caller calls Renew).
  int64_t renew_every_ms = 5000;
  // Called once, on the renewing or the watchdog thread (or in Renew), when
  // the lease stops being held. May be empty; must not destroy the Lease.
  std::function<void()> on_lost;
};

class Lease {
 public:
  // Takes `name` for this process, described as `holder` (e.g.
  // "rtb-bidder 10.0.0.7:8080 pid 4121"); renewing starts at once.
  // FailedPrecondition naming the holder when a live process holds it;
  // InvalidArgument for an empty name or holder, or ttl_ms < 1000, or
  // renew_every_ms not in [0, ttl_ms); a store error as it came.
  static absl::StatusOr<std::unique_ptr<Lease>> Take(storage::Store& store, std::string name,
                                                     std::string holder, LeaseOptions options = {});
  // The first of `names` (in order) that no live process holds.
  // ResourceExhausted naming how many were held when none is free.
  static absl::StatusOr<std::unique_ptr<Lease>> TakeFirstFree(storage::Store& store,
                                                              const std::vector<std::string>& names,
                                                              std::string holder,
                                                              LeaseOptions options = {});
  // Who holds `name` now (its description), or "" when nobody does.
  static absl::StatusOr<std::string> HolderOf(storage::Store& store, std::string_view name,
                                              std::string_view table = storage::kLeasesTable);

  // Stops renewing and releases the lease if it is still held (a clean
  // stop frees the name at once instead of after ttl_ms).
  ~Lease();
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;

  const std::string& name() const;
  // Whether this process may still act under the name (see above).
  bool Held() const;
  // One renewal now. FailedPrecondition once the lease is lost.
  absl::Status Renew();
  // After a loss (the store did not answer in time): takes the name back
  // when the store holds this lease's own cell still, or nobody's, and
  // renews it again from then on. OK when held again (at once when held);
  // FailedPrecondition naming the holder when another process holds it; a
  // store error as it came. A name that was free meanwhile may have had
  // another holder in between: what it guards says whether that matters.
  absl::Status Reclaim();

 private:
  class State;
  explicit Lease(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace rtb::leases

#endif  // RTB_LEASES_LEASE_H_
