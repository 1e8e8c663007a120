#include "bidder/sessions/internal/metrics.h"

#include "prometheus/family.h"

namespace rtb::bidder::sessions::internal {
namespace {

prometheus::Registry& Target(prometheus::Registry* given,
                             std::shared_ptr<prometheus::Registry>* own) {
  if (given != nullptr) return *given;
  *own = std::make_shared<prometheus::Registry>();
  return **own;
}

}  // namespace

SessionMetrics::SessionMetrics(prometheus::Registry* registry) {
  prometheus::Registry& r = Target(registry, &own_registry);
  created = &prometheus::BuildCounter()
                 .Name("bidder_sessions_created_total")
                 .Help("Operator sessions created (logins)")
                 .Register(r)
                 .Add({});
  revoked = &prometheus::BuildCounter()
                 .Name("bidder_sessions_revoked_total")
                 .Help("Operator sessions ended by logout or logout everywhere")
                 .Register(r)
                 .Add({});
  auto& expired = prometheus::BuildCounter()
                      .Name("bidder_sessions_expired_total")
                      .Help(
                          "Reads of a session that had expired (idle: inactivity; "
                          "lifetime: absolute lifetime)")
                      .Register(r);
  expired_idle = &expired.Add({{"reason", "idle"}});
  expired_lifetime = &expired.Add({{"reason", "lifetime"}});
  touches = &prometheus::BuildCounter()
                 .Name("bidder_sessions_touches_total")
                 .Help("Debounced activity writes (ASYNC_WAL)")
                 .Register(r)
                 .Add({});
  update_conflicts = &prometheus::BuildCounter()
                          .Name("bidder_sessions_update_conflicts_total")
                          .Help("CheckAndMutate attempts that lost to a concurrent update")
                          .Register(r)
                          .Add({});
  busy = &prometheus::BuildCounter()
              .Name("bidder_sessions_busy_total")
              .Help("Updates that ran out of retries (session busy)")
              .Register(r)
              .Add({});
  dangling_index_entries = &prometheus::BuildCounter()
                                .Name("bidder_sessions_dangling_index_entries_total")
                                .Help("user_sessions entries whose session row was missing")
                                .Register(r)
                                .Add({});
}

LoginMetrics::LoginMetrics(prometheus::Registry* registry) {
  prometheus::Registry& r = Target(registry, &own_registry);
  auto& logins = prometheus::BuildCounter()
                     .Name("bidder_logins_total")
                     .Help(
                         "Login attempts by result (ok, refused: bad user or password, "
                         "locked: refused by the rate limit)")
                     .Register(r);
  succeeded = &logins.Add({{"result", "ok"}});
  refused = &logins.Add({{"result", "refused"}});
  locked_out = &logins.Add({{"result", "locked"}});
}

}  // namespace rtb::bidder::sessions::internal
