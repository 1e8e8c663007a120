// The endpoints every bidder process serves besides bidding:
//   GET /healthz   200 "ok" while the process serves HTTP (liveness)
//   GET /readyz    200 "ready" when storage answers its health check and the
//                  server is not shutting down. With storage unhealthy it
//                  agrees with the campaigns' store_outage_policy: 200
//                  "ready: degraded ..." while some campaign still bids
//                  without profiles (a load balancer must not drain a bidder
//                  that is still bidding), 503 when none does; 503 with the
//                  reason when shutting down
//   GET <metrics>  Prometheus text exposition (format 0.0.4) of the registry,
//                  the memory gauges refreshed first (memory_gauges.h)
//
// Thread-safety: the handlers run on the I/O threads; they read the
// readiness result, the memory gauges and the registry, all thread-safe.
#ifndef RTB_BIDDER_ADMIN_OPERATIONAL_ENDPOINTS_H_
#define RTB_BIDDER_ADMIN_OPERATIONAL_ENDPOINTS_H_

#include <string>

#include "bidder/admin/memory_gauges.h"
#include "bidder/admin/readiness.h"
#include "bidder/http/http_server.h"
#include "prometheus/registry.h"

namespace rtb::bidder {

inline constexpr char kHealthzPath[] = "/healthz";
inline constexpr char kReadyzPath[] = "/readyz";

// Registers the three routes on `server`. `readiness`, `registry` and
// `memory` (null: none) must outlive the server's I/O threads.
// `campaigns_bidding_without_profiles`: how many campaigns
// config::BidsWithoutProfile lets bid while storage is down.
void AddOperationalEndpoints(HttpServer& server, const StorageReadiness& readiness,
                             prometheus::Registry& registry, std::string metrics_path,
                             int campaigns_bidding_without_profiles,
                             MemoryGauges* memory = nullptr);

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_ADMIN_OPERATIONAL_ENDPOINTS_H_
