// Where the index reconcile (EventStore::Reconcile) goes on from, kept in
// the `fleet_jobs` table (row "events-reconcile", columns timeline and
// index), so that a restarted process, or the next leader of the fleet's
// jobs, continues the walk instead of starting again at the first user.
#ifndef RTB_BIDDER_EVENTS_INTERNAL_RECONCILE_CURSORS_H_
#define RTB_BIDDER_EVENTS_INTERNAL_RECONCILE_CURSORS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "storage/store.h"

namespace rtb::bidder::events::internal {

struct ReconcileCursors {
  std::string timeline;  // a user prefix successor; "" is the start
  std::string index;     // an index row key successor; "" is the start
};

// The stored cursors; both "" when none are stored yet.
absl::StatusOr<ReconcileCursors> LoadReconcileCursors(storage::Store& store,
                                                      const std::string& table);
absl::Status SaveReconcileCursors(storage::Store& store, const std::string& table,
                                  const ReconcileCursors& cursors);

}  // namespace rtb::bidder::events::internal

#endif  // RTB_BIDDER_EVENTS_INTERNAL_RECONCILE_CURSORS_H_
