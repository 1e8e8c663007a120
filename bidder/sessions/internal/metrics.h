// The metrics of bidder/sessions, resolved once (bidder_sessions_*,
// bidder_logins_*).
#ifndef RTB_BIDDER_SESSIONS_INTERNAL_METRICS_H_
#define RTB_BIDDER_SESSIONS_INTERNAL_METRICS_H_

#include <memory>

#include "prometheus/counter.h"
#include "prometheus/registry.h"

namespace rtb::bidder::sessions::internal {

struct SessionMetrics {
  // Registers on `registry`, or on a private one when it is null.
  explicit SessionMetrics(prometheus::Registry* registry);

  std::shared_ptr<prometheus::Registry> own_registry;
  prometheus::Counter* created = nullptr;
  prometheus::Counter* revoked = nullptr;
  prometheus::Counter* expired_idle = nullptr;
  prometheus::Counter* expired_lifetime = nullptr;
  prometheus::Counter* touches = nullptr;
  prometheus::Counter* update_conflicts = nullptr;
  prometheus::Counter* busy = nullptr;
  prometheus::Counter* dangling_index_entries = nullptr;
};

struct LoginMetrics {
  explicit LoginMetrics(prometheus::Registry* registry);

  std::shared_ptr<prometheus::Registry> own_registry;
  prometheus::Counter* succeeded = nullptr;
  prometheus::Counter* refused = nullptr;
  prometheus::Counter* locked_out = nullptr;
};

}  // namespace rtb::bidder::sessions::internal

#endif  // RTB_BIDDER_SESSIONS_INTERNAL_METRICS_H_
