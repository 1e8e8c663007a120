#include "bidder/app.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "beaconlog/beacon_log.h"
#include "bidder/admin/admin_api.h"
#include "bidder/admin/operational_endpoints.h"
#include "bidder/admin/operator_access.h"
#include "bidder/beacons/beacon_handler.h"
#include "bidder/bid/bid_handler.h"
#include "bidder/bid/bid_metrics.h"
#include "bidder/bid/pacing_snapshot.h"
#include "bidder/campaigns/campaign_follower.h"
#include "bidder/campaigns/campaign_store.h"
#include "bidder/events/erasure.h"
#include "bidder/events/events.h"
#include "bidder/stream/beacon_log_config.h"
#include "bidder/stream/stream_worker.h"
#include "bidder/telemetry/self_telemetry.h"
#include "bidder/telemetry/telemetry.h"
#include "leases/leadership.h"
#include "pacing/pacer.h"
#include "pricing/feedback.h"
#include "pricing/pricer.h"
#include "pricing/pricing_loop.h"
#include "storage/schemas.h"
#include "storage/startup/startup.h"

namespace rtb::bidder {

namespace {

absl::Status Annotate(const absl::Status& status, const std::string& what) {
  return absl::Status(status.code(), absl::StrCat(what, ": ", std::string(status.message())));
}

}  // namespace

// Periodic upkeep off the request path: event index reconcile (every
// minute, a sample of users) and pending erasures (every hour), in the one
// process of the fleet that leads its jobs (`leads`). Failures are logged
// and retried at the next period; the storage layer counts them.
class MaintenanceLoop {
 public:
  MaintenanceLoop(events::EventStore& events, events::DeviceEraser& eraser,
                  std::function<bool()> leads)
      : events_(events), eraser_(eraser), leads_(std::move(leads)) {
    thread_ = std::thread([this] { Run(); });
  }
  ~MaintenanceLoop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

 private:
  static constexpr auto kReconcileEvery = std::chrono::minutes(1);
  static constexpr int kReconcileUsers = 32;
  static constexpr int kMinutesBetweenErasureRuns = 60;

  void Run() {
    int minutes = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, kReconcileEvery, [this] { return stopping_; })) {
      if (!leads_()) continue;
      lock.unlock();
      if (absl::StatusOr<events::EventStore::ReconcileReport> r =
              events_.Reconcile(kReconcileUsers);
          !r.ok()) {
        Log("event reconcile", r.status());
      }
      if (++minutes % kMinutesBetweenErasureRuns == 0) {
        if (auto r = eraser_.AdvancePending(); !r.ok()) Log("pending erasures", r.status());
      }
      lock.lock();
    }
  }

  static void Log(const char* what, const absl::Status& status) {
    startup::Log("rtb-bidder", absl::StrCat(what, " failed: ", status.message()));
  }

  events::EventStore& events_;
  events::DeviceEraser& eraser_;
  std::function<bool()> leads_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

BidderApp::BidderApp(config::BidderConfig config) : config_(std::move(config)) {}

BidderApp::~BidderApp() {
  if (follower_ != nullptr) follower_->Stop();
  if (server_ != nullptr) server_->Shutdown(std::chrono::milliseconds(0));
  // The log's callbacks wake the worker: none may run once it is gone.
  if (beacon_log_ != nullptr) (void)beacon_log_->Flush(absl::Seconds(10));
  stream_worker_.reset();
  self_telemetry_.reset();
  maintenance_.reset();
}

absl::StatusOr<std::unique_ptr<BidderApp>> BidderApp::Create(config::BidderConfig config) {
  return Create(std::move(config), HttpServerTuning{});
}

absl::StatusOr<std::unique_ptr<BidderApp>> BidderApp::Create(config::BidderConfig config,
                                                             const HttpServerTuning& tuning) {
  return Create(std::move(config), tuning, nullptr);
}

absl::StatusOr<std::unique_ptr<BidderApp>> BidderApp::Create(config::BidderConfig config,
                                                             const HttpServerTuning& tuning,
                                                             const StoreDecorator& decorate) {
  std::unique_ptr<BidderApp> app(new BidderApp(std::move(config)));
  const config::BidderConfig& cfg = app->config_;

  absl::StatusOr<std::unique_ptr<storage::Store>> store = startup::OpenBidderStore(cfg);
  if (!store.ok()) return store.status();
  app->store_ = decorate ? decorate(*std::move(store)) : *std::move(store);

  absl::StatusOr<std::unique_ptr<HttpServer>> server =
      [&]() -> absl::StatusOr<std::unique_ptr<HttpServer>> {
    // prometheus-cpp throws on a metric name clash; at start-up that is an
    // error to report, not a crash.
    try {
      return HttpServer::Create(cfg.server, app->registry_, tuning);
    } catch (const std::exception& e) {
      return absl::InternalError(absl::StrCat("cannot declare the server metrics: ", e.what()));
    }
  }();
  if (!server.ok()) return server.status();
  app->server_ = *std::move(server);

  app->readiness_ = std::make_unique<StorageReadiness>(*app->store_);
  int campaigns_bidding_without_profiles = 0;
  for (const config::CampaignConfig& campaign : cfg.campaigns) {
    if (config::BidsWithoutProfile(campaign)) ++campaigns_bidding_without_profiles;
  }
  app->memory_gauges_ = std::make_unique<MemoryGauges>(app->registry_, *app->store_);
  AddOperationalEndpoints(*app->server_, *app->readiness_, app->registry_, cfg.metrics.path,
                          campaigns_bidding_without_profiles, app->memory_gauges_.get());
  app->campaign_store_ = std::make_unique<campaigns::CampaignStore>(
      *app->store_, storage::SystemClock(), [config = &app->config_](std::string_view json) {
        return config::ParseCampaign(json, *config);
      });
  if (absl::Status s = app->RegisterBidRoutes(); !s.ok()) return s;
  if (absl::Status s = app->RegisterBeaconRoutes(); !s.ok()) return s;
  return app;
}

absl::Status BidderApp::RegisterBidRoutes() {
  try {
    bid_metrics_ =
        std::make_unique<BidMetrics>(registry_, config_.server.exchanges, config_.campaigns,
                                     static_cast<size_t>(config_.campaign_store.max_campaigns));
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("cannot declare the bid metrics: ", e.what()));
  }
  pacing::PacerOptions pacer_options;
  pacer_options.campaign_capacity = static_cast<size_t>(config_.campaign_store.max_campaigns);
  // The embedded store is this process's alone (RocksDB's lock): no other
  // process can share an id there, and a lease a crash left in it would only
  // delay the restart.
  pacer_options.lease_worker_id = config_.storage.backend != config::StorageBackend::kEmbedded;
  pacer_options.lease_holder = absl::StrCat("rtb-bidder ", config_.server.listen_address, ":",
                                            config_.server.port, " pid ", ::getpid());
  pacer_options.on_worker_id_lost = startup::ExitWhenWorkerIdIsLost("rtb-bidder");
  absl::StatusOr<std::unique_ptr<pacing::Pacer>> pacer =
      pacing::Pacer::Create(config_, *store_, &registry_, pacer_options);
  if (!pacer.ok()) return Annotate(pacer.status(), "cannot build the pacing loop");
  pacer_ = *std::move(pacer);
  pacing_ = std::make_unique<PacerSnapshot>(pacer_->decisions());
  absl::StatusOr<std::unique_ptr<pricing::Pricer>> pricer =
      pricing::Pricer::Create(config_, &registry_, pacer_options.campaign_capacity);
  if (!pricer.ok()) return Annotate(pricer.status(), "cannot build the pricer");
  pricer_ = *std::move(pricer);
  absl::StatusOr<std::unique_ptr<pricing::PricingLoop>> pricing_loop = pricing::PricingLoop::Create(
      config_, *store_, pricer_.get(), pricing::BidderPricingRole(config_.pacing), &registry_);
  if (!pricing_loop.ok()) return Annotate(pricing_loop.status(), "cannot build the pricing loop");
  pricing_loop_ = *std::move(pricing_loop);
  BidHandler::Dependencies deps;
  deps.config = &config_;
  deps.store = store_.get();
  deps.pacing = pacing_.get();
  deps.pricer = pricer_.get();
  deps.metrics = bid_metrics_.get();
  const HttpServer* server = server_.get();
  deps.bound_port = [server] { return server->port(); };
  const StorageReadiness* readiness = readiness_.get();
  deps.store_healthy = [readiness] { return readiness->healthy(); };
  absl::StatusOr<std::unique_ptr<BidHandler>> handler = BidHandler::Create(std::move(deps));
  if (!handler.ok()) return Annotate(handler.status(), "cannot build the bid handler");
  bid_handler_ = *std::move(handler);
  for (const config::ExchangeConfig& exchange : config_.server.exchanges) {
    absl::StatusOr<HttpHandler> route = bid_handler_->ForExchange(exchange);
    if (!route.ok()) return route.status();
    server_->Route(boost::beast::http::verb::post, exchange.bid_path, *std::move(route));
  }
  return absl::OkStatus();
}

absl::Status BidderApp::RegisterBeaconRoutes() {
  events_ = std::make_unique<events::EventStore>(*store_, *storage::SystemClock(), &registry_,
                                                 events::EventStoreOptionsOf(config_.events));
  eraser_ = std::make_unique<events::DeviceEraser>(*store_, *storage::SystemClock(), &registry_);
  BeaconHandler::Dependencies deps;
  deps.config = &config_;
  deps.store = store_.get();
  deps.events = events_.get();
  deps.spend = &pacer_->spend();
  deps.journal = pacer_->journal();
  try {
    pricing_feedback_ =
        std::make_unique<pricing::PricingFeedback>(config_, *store_, pricer_.get(), &registry_);
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("cannot declare the pricing metrics: ", e.what()));
  }
  deps.pricing = pricing_feedback_.get();
  deps.registry = &registry_;
  const HttpServer* server = server_.get();
  deps.bound_port = [server] { return server->port(); };
  absl::StatusOr<std::unique_ptr<beaconlog::LogWriter>> log = stream::OpenBeaconLogWriter(config_);
  if (!log.ok()) return Annotate(log.status(), "cannot open the beacon log for writing");
  beacon_log_ = *std::move(log);
  deps.log = beacon_log_.get();
  if (config_.beacon_log.stream.in_process) {
    absl::StatusOr<std::unique_ptr<beaconlog::LogReader>> reader =
        stream::OpenBeaconLogReader(config_);
    if (!reader.ok()) return Annotate(reader.status(), "cannot open the beacon log for reading");
    beacon_log_reader_ = *std::move(reader);
    deps.appended = [this] {
      if (stream_worker_ != nullptr) stream_worker_->Wake();
    };
  }
  absl::StatusOr<std::unique_ptr<BeaconHandler>> beacons = BeaconHandler::Create(std::move(deps));
  if (!beacons.ok()) return Annotate(beacons.status(), "cannot build the beacon handler");
  beacon_handler_ = *std::move(beacons);
  beacon_handler_->Register(*server_);
  if (config_.telemetry.enabled) {
    telemetry::TelemetryOptions options =
        telemetry::TelemetryOptions::FromConfig(config_.telemetry);
    options.registry = &registry_;
    absl::StatusOr<std::unique_ptr<telemetry::Telemetry>> telemetry =
        telemetry::Telemetry::Create(*store_, std::move(options));
    if (!telemetry.ok()) return Annotate(telemetry.status(), "cannot build the telemetry store");
    telemetry_ = *std::move(telemetry);
  }
  try {
    operator_access_ = std::make_unique<OperatorAccess>(config_, *store_, registry_);
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("cannot declare the session metrics: ", e.what()));
  }
  operator_access_->Register(*server_);
  try {
    SetUpCampaignStore();
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("cannot declare the campaign metrics: ", e.what()));
  }
  if (config_.server.admin_api_enabled) {
    AdminApi::Dependencies admin;
    admin.config = &config_;
    admin.access = operator_access_.get();
    admin.pacer = pacer_.get();
    admin.pricer = pricer_.get();
    admin.events = events_.get();
    admin.eraser = eraser_.get();
    admin.telemetry = telemetry_.get();
    admin.campaign_store = campaign_store_.get();
    admin.follower = follower_.get();
    admin.registry = &registry_;
    admin_api_ = std::make_unique<AdminApi>(admin);
    admin_api_->Register(*server_);
  }
  return absl::OkStatus();
}

void BidderApp::SetUpCampaignStore() {
  const std::string program = "rtb-bidder";
  std::vector<std::string> seed;
  for (const config::CampaignConfig& campaign : config_.campaigns) {
    seed.push_back(config::CampaignToJson(campaign));
  }
  absl::StatusOr<bool> seeded = campaign_store_->SeedIfEmpty(seed, "config-file");
  if (!seeded.ok()) {
    startup::Log(program,
                 absl::StrCat("cannot seed the campaigns table: ", seeded.status().message(),
                              "; bidding on the config file's campaigns until it can "
                              "be read"));
  } else if (*seeded) {
    startup::Log(program, absl::StrCat("seeded the empty campaigns table with the config file's ",
                                       seed.size(), " campaigns"));
  } else if (!config_.campaigns.empty()) {
    startup::Log(program,
                 absl::StrCat("the campaigns table already holds campaigns: the config file's "
                              "campaigns[] (",
                              config_.campaigns.size(),
                              ") are ignored; change campaigns through the admin API or "
                              "rtb-campaigns import"));
  }
  index_build_seconds_ = &prometheus::BuildGauge()
                              .Name("bidder_campaign_index_build_seconds")
                              .Help("Time the last campaign index rebuild took")
                              .Register(registry_)
                              .Add({});
  index_builds_ = &prometheus::BuildCounter()
                       .Name("bidder_campaign_index_builds_total")
                       .Help("Campaign index rebuilds after a change of the campaigns table")
                       .Register(registry_)
                       .Add({});
  campaigns::CampaignFollowerOptions options;
  options.interval = std::chrono::milliseconds(config_.campaign_store.follow_interval_ms);
  options.unreadable_after =
      std::chrono::milliseconds(int64_t{config_.campaign_store.unreadable_after_s} * 1000);
  options.max_campaigns = static_cast<size_t>(config_.campaign_store.max_campaigns);
  options.registry = &registry_;
  follower_ = std::make_unique<campaigns::CampaignFollower>(
      *campaign_store_, config_.campaigns,
      [this](std::string_view json) { return config::ParseCampaign(json, config_); },
      [this](const campaigns::LiveCampaigns& live) { OnCampaignsChanged(live); }, options);
  campaigns::CampaignFollower* follower = follower_.get();
  readiness_->AddCheck([follower] { return follower->Readiness(); });
}

void BidderApp::OnCampaignsChanged(const campaigns::LiveCampaigns& live) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<config::CampaignConfig> configs = live.PacingConfigs();
  std::vector<std::shared_ptr<const config::CampaignConfig>> shared;
  for (const campaigns::LiveCampaign& campaign : live.by_position) {
    shared.push_back(campaign.config);
  }
  // What a new candidate needs exists before the index makes it one: its
  // series, its beacons, its pacing budget and its pricing.
  bid_metrics_->DeclareCampaigns(configs);
  beacon_handler_->SetCampaigns(shared);
  pricer_->SetCampaigns(configs);
  if (absl::Status s = pacer_->UpdateCampaigns(configs); !s.ok()) {
    startup::Log("rtb-bidder", absl::StrCat("pacing keeps its campaigns: ", s.message()));
  }
  for (const std::string& refused : bid_handler_->SetCampaigns(configs)) {
    if (std::find(logged_refusals_.begin(), logged_refusals_.end(), refused) !=
        logged_refusals_.end()) {
      continue;
    }
    startup::Log("rtb-bidder", absl::StrCat("campaign not bid on: ", refused));
    logged_refusals_.push_back(refused);
  }
  index_builds_->Increment();
  index_build_seconds_->Set(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

absl::Status BidderApp::Start() {
  // The table's campaigns are in place before the first request (and before
  // the pacing loop recovers its spend journal): a store that cannot be read
  // leaves the config file's, and is retried.
  (void)follower_->Start();
  if (absl::Status s = pacer_->Start(); !s.ok()) return Annotate(s, "cannot start the pacing loop");
  if (absl::Status s = pricing_loop_->Start(); !s.ok()) {
    return Annotate(s, "cannot start the pricing loop");
  }
  // After the pacer, whose journal the worker's impressions write to; a
  // backlog left by the last run is applied first thing.
  if (beacon_log_reader_ != nullptr) {
    absl::StatusOr<std::unique_ptr<stream::StreamWorker>> worker =
        stream::StreamWorker::Start(beacon_log_reader_.get(), &beacon_handler_->applier(),
                                    &registry_, stream::StreamWorkerOptionsOf(config_));
    if (!worker.ok()) return Annotate(worker.status(), "cannot start the stream worker");
    stream_worker_ = *std::move(worker);
  }
  if (absl::Status s = server_->Start(); !s.ok()) return s;
  if (absl::Status s = LeadFleetJobs(); !s.ok()) return s;
  maintenance_ = std::make_unique<MaintenanceLoop>(*events_, *eraser_, LeadsFleetJobs());
  if (telemetry_ != nullptr) {
    telemetry::SelfTelemetryOptions options =
        telemetry::SelfTelemetryOptions::FromConfig(config_.telemetry);
    options.instance = TelemetryInstance();
    options.runs_fleet_jobs = LeadsFleetJobs();
    self_telemetry_ = std::make_unique<telemetry::SelfTelemetry>(*telemetry_, registry_, options);
    self_telemetry_->Start();
  }
  return absl::OkStatus();
}

void BidderApp::Shutdown() {
  follower_->Stop();
  server_->Shutdown(std::chrono::milliseconds(config_.server.graceful_shutdown_timeout_ms));
  // What was acknowledged is applied now if the store allows (bounded); what
  // is not stays in the log for the next start.
  if (stream_worker_ != nullptr) {
    // Every append answered (its callback wakes the worker) before the
    // worker goes.
    (void)beacon_log_->Flush(absl::Seconds(10));
    (void)stream_worker_->AwaitCaughtUp(absl::Seconds(10));
    stream_worker_.reset();
  }
  self_telemetry_.reset();
  maintenance_.reset();
  fleet_jobs_.reset();  // a standby takes the jobs over at once
  pricing_loop_->Stop();
  pacer_->Stop();
}

absl::Status BidderApp::LeadFleetJobs() {
  // The embedded store is this process's alone: it always leads.
  if (config_.storage.backend == config::StorageBackend::kEmbedded) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<leases::Leadership>> leadership = leases::Leadership::Start(
      *store_, "job/fleet-jobs",
      absl::StrCat("rtb-bidder ", TelemetryInstance(), " pid ", ::getpid()),
      {.ttl_ms = config_.pacing.worker_lease_ttl_ms});
  if (!leadership.ok()) return Annotate(leadership.status(), "cannot contend for the fleet's jobs");
  fleet_jobs_ = *std::move(leadership);
  return absl::OkStatus();
}

std::function<bool()> BidderApp::LeadsFleetJobs() const {
  const leases::Leadership* leadership = fleet_jobs_.get();
  return [leadership] { return leadership == nullptr || leadership->Leads(); };
}

std::string BidderApp::TelemetryInstance() const {
  if (!config_.telemetry.instance.empty()) return config_.telemetry.instance;
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') {
    std::snprintf(host, sizeof(host), "localhost");
  }
  // Tag values are [A-Za-z0-9._/-]; a host name never has '_', so
  // "<host>_<port>" reads back unambiguously.
  std::string name = host;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '-';
  }
  const int port = server_ != nullptr ? server_->port() : config_.server.port;
  return absl::StrCat(name, "_", port);
}

absl::Status BidderApp::AwaitBeaconsApplied(absl::Duration timeout) {
  if (stream_worker_ == nullptr) return absl::OkStatus();
  return stream_worker_->AwaitCaughtUp(timeout);
}

}  // namespace rtb::bidder
