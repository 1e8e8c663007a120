// The bidder process put together: its configuration, the Store (with every
// table schema applied), the Prometheus registry, the HTTP server and the
// routes it serves. bidder/main.cc only parses flags, waits for a signal and
// reports; everything a test needs to run a whole bidder in-process is here.
//
// Routes:
//   GET /healthz, GET /readyz, GET <metrics.path>   bidder/admin/operational_endpoints.h
//   the bid path, one route per exchange             bidder/bid/bid_handler.h
//   the beacons (win, billing, imp, loss, click,     bidder/beacons/beacon_handler.h
//   conversion)
//   /api/login, /api/logout, /api/session, /console  bidder/admin/operator_access.h
//   /api/... when server.admin_api_enabled           bidder/admin/admin_api.h
//
// Campaigns: the `campaigns` table is the source of truth. On the first
// start (an empty table) the config's campaigns[] seed it; afterwards the
// file's list is ignored (logged). A follower thread reads the change log
// every campaign_store.follow_interval_ms and hands each change to the bid
// handler (a new index swapped in atomically), the pacing loop, the bid
// metrics and the beacons (bidder/campaigns/campaign_follower.h); /readyz
// fails once the table has been unreadable for
// campaign_store.unreadable_after_s.
//
// Background work: the pacing loop (pacing/pacer.h, started by Start and
// stopped, with a last spend flush, by Shutdown), the pricing loop
// (pricing/pricing_loop.h: fits the shading model in sidecar mode, reads the
// one rtb-pacer publishes in pacer mode; started and stopped with pacing), the bidder's own time
// series every telemetry.write_interval_s (bidder/telemetry/self_telemetry.h,
// when telemetry.enabled), and a maintenance thread
// that reconciles event index rows with the timeline every minute and moves
// pending privacy erasures on every hour.
//
// Thread-safety: Create, Start and Shutdown from one thread. The accessors
// return objects that are themselves thread-safe.
#ifndef RTB_BIDDER_APP_H_
#define RTB_BIDDER_APP_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bidder/admin/memory_gauges.h"
#include "bidder/admin/readiness.h"
#include "bidder/http/http_server.h"
#include "config/config.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "storage/store.h"

namespace rtb::pacing {
class Pacer;
}  // namespace rtb::pacing

namespace rtb::pricing {
class Pricer;
class PricingFeedback;
class PricingLoop;
}  // namespace rtb::pricing

namespace rtb::beaconlog {
class LogReader;
class LogWriter;
}  // namespace rtb::beaconlog

namespace rtb::bidder {

namespace stream {
class StreamWorker;
}  // namespace stream

class AdminApi;
class BeaconHandler;
class OperatorAccess;
class BidHandler;
class BidMetrics;
class PacingSnapshot;
class MaintenanceLoop;
}  // namespace rtb::bidder
namespace rtb::leases {
class Leadership;
}  // namespace rtb::leases
namespace rtb::bidder {

namespace campaigns {
class CampaignFollower;
class CampaignStore;
struct LiveCampaigns;
}  // namespace campaigns

namespace events {
class DeviceEraser;
class EventStore;
}  // namespace events

namespace telemetry {
class SelfTelemetry;
class Telemetry;
}  // namespace telemetry

class BidderApp {
 public:
  // Opens the store, applies storage::BidderTables, builds the server and
  // registers every route. Nothing listens yet. Errors name what failed
  // (the store path or endpoint, the table, the listen address).
  static absl::StatusOr<std::unique_ptr<BidderApp>> Create(config::BidderConfig config);
  static absl::StatusOr<std::unique_ptr<BidderApp>> Create(config::BidderConfig config,
                                                           const HttpServerTuning& tuning);
  // Takes the opened store (tables applied) and returns the one every part
  // of the bidder uses: a seam for tests that watch or fail store calls.
  using StoreDecorator =
      std::function<std::unique_ptr<storage::Store>(std::unique_ptr<storage::Store>)>;
  static absl::StatusOr<std::unique_ptr<BidderApp>> Create(config::BidderConfig config,
                                                           const HttpServerTuning& tuning,
                                                           const StoreDecorator& decorate);
  // Stops the server at once when Shutdown() was not called.
  ~BidderApp();
  BidderApp(const BidderApp&) = delete;
  BidderApp& operator=(const BidderApp&) = delete;

  // Starts the pacing loop (its first decisions are computed before this
  // returns), binds and starts serving.
  absl::Status Start();
  // Graceful: stops accepting, lets requests in flight finish for at most
  // server.graceful_shutdown_timeout_ms, then stops the I/O threads, the
  // maintenance thread and the pacing loop (which flushes its spend).
  void Shutdown();

  uint16_t port() const { return server_->port(); }
  const config::BidderConfig& config() const { return config_; }
  storage::Store& store() { return *store_; }
  prometheus::Registry& registry() { return registry_; }
  HttpServer& server() { return *server_; }
  pacing::Pacer& pacer() { return *pacer_; }
  campaigns::CampaignStore& campaign_store() { return *campaign_store_; }
  campaigns::CampaignFollower& campaign_follower() { return *follower_; }
  // Waits until every beacon answered so far is applied to the store by the
  // in-process stream worker (OK at once without one).
  absl::Status AwaitBeaconsApplied(absl::Duration timeout);

 private:
  explicit BidderApp(config::BidderConfig config);
  // The bid path: a POST route at each exchange's bid_path, served by the
  // bid handler, which is built here from config_, *store_ and registry_.
  absl::Status RegisterBidRoutes();
  // Beacons, the event store behind them, erasure and the admin API.
  absl::Status RegisterBeaconRoutes();
  // Contends for the fleet's once-per-fleet jobs (shared stores only).
  absl::Status LeadFleetJobs();
  // Whether this process runs those jobs now.
  std::function<bool()> LeadsFleetJobs() const;
  // telemetry.instance, or "<host name>:<listening port>".
  std::string TelemetryInstance() const;
  // Seeds an empty campaigns table from the config (or says the file's list
  // is ignored) and builds the follower that keeps the bid path current.
  void SetUpCampaignStore();
  // The follower's listener, on its thread: everything that depends on the
  // campaigns is updated, the bid index last.
  void OnCampaignsChanged(const campaigns::LiveCampaigns& live);

  // Members are destroyed bottom-up, after ~BidderApp has stopped the I/O
  // threads: route handlers and their state first, then what they read (the
  // readiness thread, the store), then the server (whose io_contexts take
  // any answers the store still posts), the registry last.
  const config::BidderConfig config_;
  prometheus::Registry registry_;
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<StorageReadiness> readiness_;
  std::unique_ptr<MemoryGauges> memory_gauges_;
  std::unique_ptr<campaigns::CampaignStore> campaign_store_;
  // Components of the bid path are declared below this line.
  std::unique_ptr<BidMetrics> bid_metrics_;
  std::unique_ptr<pacing::Pacer> pacer_;
  std::unique_ptr<PacingSnapshot> pacing_;
  std::unique_ptr<pricing::Pricer> pricer_;
  std::unique_ptr<pricing::PricingLoop> pricing_loop_;
  std::unique_ptr<pricing::PricingFeedback> pricing_feedback_;
  std::unique_ptr<BidHandler> bid_handler_;
  std::unique_ptr<events::EventStore> events_;
  std::unique_ptr<events::DeviceEraser> eraser_;
  // Beacons are answered once in the log; the handler flushes it when it
  // goes, so the log outlives the handler.
  std::unique_ptr<beaconlog::LogWriter> beacon_log_;
  std::unique_ptr<BeaconHandler> beacon_handler_;
  // Null when beacon_log.stream.in_process is false (rtb-stream applies the
  // log). The worker calls the handler, the pacer and the store: it is
  // stopped first (Shutdown, ~BidderApp).
  std::unique_ptr<beaconlog::LogReader> beacon_log_reader_;
  std::unique_ptr<stream::StreamWorker> stream_worker_;
  // Null when telemetry.enabled is false.
  std::unique_ptr<telemetry::Telemetry> telemetry_;
  std::unique_ptr<OperatorAccess> operator_access_;
  std::unique_ptr<AdminApi> admin_api_;
  // The lease of the fleet's once-per-fleet jobs (packer, index reconcile,
  // erasure steps); null on the embedded store, whose process is alone.
  std::unique_ptr<leases::Leadership> fleet_jobs_;
  std::unique_ptr<MaintenanceLoop> maintenance_;
  std::unique_ptr<telemetry::SelfTelemetry> self_telemetry_;
  // Last: its thread calls into the components above, so it stops first.
  std::unique_ptr<campaigns::CampaignFollower> follower_;
  // Refusals already logged (the follower's thread only), so a campaign the
  // bid path cannot serve is logged once, not at every rebuild.
  std::vector<std::string> logged_refusals_;
  prometheus::Gauge* index_build_seconds_ = nullptr;
  prometheus::Counter* index_builds_ = nullptr;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_APP_H_
