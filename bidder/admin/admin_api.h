// The admin API over campaigns' pacing, the event timelines, privacy erasure
// (bidder/events/) and the telemetry store. Served when
// server.admin_api_enabled (default true). Every route needs an operator
// session (bidder/operator_access.h: the session cookie, and X-CSRF-Token on
// the calls that change something): 401 without one, 403 without the CSRF
// token or the privilege.
//
//   GET    /api/campaigns[?state=active|paused|archived][&advertiser=<domain>]
//          every campaign with its budget, today's spend, pacing state
//          ("state") and throttle, as the pacing loop last saw them; its
//          pricing as this process saw it ("pricing": goal, value, average
//          shading factor, first-price win rate and average clearing price,
//          pricing::CampaignPricingStatus); and (campaigns table served) its
//          stored state ("campaign_state"), version and last change, filtered
//          by stored state and advertiser; "bids" and "wins": the campaign's
//          bids made and impressions won and claimed since this process
//          started (bidder_bids_total, bidder_wins_total over every exchange)
//   GET    /api/campaigns/{id}          the stored campaign: 200, 404
//   GET    /api/campaigns/{id}/audit?limit=N
//          its audit records, newest first (operator, time, action, before
//          and after)
//   POST   /api/campaigns               create (body: the campaign object as
//                                       in the config's campaigns[]): 201;
//                                       409 for an id ever used
//   PUT    /api/campaigns/{id}?version=N   replace the whole object
//   PATCH  /api/campaigns/{id}?version=N   JSON merge patch (RFC 7386)
//   POST   /api/campaigns/{id}/pause|resume|archive?version=N
//          200 with the new record; 409 with "current_version" (and the
//          current record) when N is not the current version (a stale
//          edit), or the campaign is archived; 422 {"problems": [
//          "<path>: <what is wrong>", ...]} with every validation problem
//          (the config file's rules); 404 for an unknown id
//          The changes need the CSRF token and are audited under the
//          session's operator; every bidder sharing the store follows them
//          within 2 s (bidder/campaigns/campaign_follower.h).
//   GET    /api/devices/{id}/events?limit=N[&from=<ms>&to=<ms>]
//          a device's events, newest first (limit 1..10000, default 100); with
//          from/to only those with from <= event time < to
//   GET    /api/events?type=<impression|click|...>&from=<ms>&to=<ms>[&limit=N]
//          events of one type across all index buckets, newest first
//   DELETE /api/devices/{id}
//          erases the device (privilege "erase"): 202 with the erasure's status
//   GET    /api/devices/{id}/erasure
//          the erasure's steps (404 when the device was never erased)
//   POST   /api/put, POST /api/query, GET|POST /api/suggest,
//   GET|POST /api/search/lookup, GET /api/aggregators
//          the OpenTSDB-compatible telemetry API (bidder/telemetry/opentsdb.h),
//          when telemetry is on. The reads change nothing
//          and need no CSRF token; with telemetry.query_requires_login false
//          they need no session either (for a Grafana on a private network).
//          /api/put needs a session and the CSRF token.
//
// {id} is the raw device id (advertising id or our user id), percent-encoded;
// it is hashed into the device key at once and never stored or logged.
// Answers are JSON; errors are {"error": "..."} with 400, 401, 403, 404,
// 500 or 503.
// Storage calls run on the API's own threads, never on an I/O thread.
//
// Thread-safety: handlers are called concurrently from every I/O thread.
#ifndef RTB_BIDDER_ADMIN_ADMIN_API_H_
#define RTB_BIDDER_ADMIN_ADMIN_API_H_

#include <memory>

#include "bidder/http/http_server.h"
#include "config/config.h"

namespace prometheus {
class Registry;
}  // namespace prometheus

namespace rtb::pacing {
class Pacer;
}  // namespace rtb::pacing

namespace rtb::pricing {
class Pricer;
}  // namespace rtb::pricing

namespace rtb::bidder {

class OperatorAccess;

namespace campaigns {
class CampaignFollower;
class CampaignStore;
}  // namespace campaigns

namespace events {
class EventStore;
class DeviceEraser;
}  // namespace events

namespace telemetry {
class Telemetry;
}  // namespace telemetry

class AdminApi {
 public:
  // Everything must outlive the API.
  struct Dependencies {
    const config::BidderConfig* config = nullptr;
    OperatorAccess* access = nullptr;
    const pacing::Pacer* pacer = nullptr;
    // Null: /api/campaigns carries no pricing figures.
    const pricing::Pricer* pricer = nullptr;
    events::EventStore* events = nullptr;
    events::DeviceEraser* eraser = nullptr;
    // Null: no telemetry routes.
    telemetry::Telemetry* telemetry = nullptr;
    // Null: GET /api/campaigns lists the config's campaigns, and no other
    // campaign route is served.
    campaigns::CampaignStore* campaign_store = nullptr;
    // The worker's live campaigns (budgets, time zones of the list); may be
    // null.
    const campaigns::CampaignFollower* follower = nullptr;
    // The process's metrics: /api/campaigns reads each campaign's
    // bidder_bids_total and bidder_wins_total from it. Null: no "bids" and
    // "wins".
    const prometheus::Registry* registry = nullptr;
  };
  explicit AdminApi(const Dependencies& deps);
  // Waits for the calls still running.
  ~AdminApi();
  AdminApi(const AdminApi&) = delete;
  AdminApi& operator=(const AdminApi&) = delete;

  void Register(HttpServer& server);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_ADMIN_ADMIN_API_H_
