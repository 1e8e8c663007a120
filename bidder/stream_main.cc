// rtb-stream: the stream worker as a process of its own
// (beacon_log.stream.in_process false): applies the beacon log to the
// tables, as the worker inside the bidder does (bidder/stream/stream_worker.h).
//
//   rtb-stream --config <file> [--worker-id <n>] [--metrics-address <host:port>]
//              [--port-file <file>]
//
// Reads the bidders' own configuration file (storage, beacon_log, campaigns,
// pacing), which must name a shared store (storage.backend hbase or
// storage-server: the bidders read what this writes). With the embedded
// beacon log it reads the log directory of the bidder on the same machine
// (one reader per directory: the bidder's must have in_process false); with
// Kafka it joins the consumer group, and any number of rtb-stream processes
// share the topic's partitions. Spend goes through a spend journal and
// budget shards of its own, under a worker id leased in the store as the
// bidders' are (pacing.worker_id "auto"): the lowest free one, or --worker-id
// when given (refused while a live process holds it). The campaigns are the campaigns
// table's, followed as the bidders follow it. Serves its metrics at
// http://<metrics-address>/metrics (default 127.0.0.1:9467; port 0 picks a
// free one, written to --port-file). Runs until SIGTERM or SIGINT, applies
// what it can of the log within 10 s, then exits 0; a start-up error is one
// line on stderr naming the problem, and exit code 1.
#include <unistd.h>

#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "beaconlog/beacon_log.h"
#include "bidder/beacons/beacon_handler.h"
#include "bidder/campaigns/campaign_follower.h"
#include "bidder/campaigns/campaign_store.h"
#include "bidder/events/events.h"
#include "bidder/stream/beacon_log_config.h"
#include "bidder/stream/stream_worker.h"
#include "config/config.h"
#include "pacing/pacer.h"
#include "pricing/feedback.h"
#include "prometheus/exposer.h"
#include "prometheus/registry.h"
#include "storage/startup/startup.h"

namespace {

namespace campaigns = rtb::bidder::campaigns;

constexpr char kProgram[] = "rtb-stream";
constexpr char kUsage[] =
    "usage: rtb-stream --config <file> [--worker-id <n>] [--metrics-address <host:port>]\n"
    "                  [--port-file <file>]\n"
    "  --config <file>            the bidders' configuration (JSON, see config/config.h)\n"
    "  --worker-id <n>            lease this pacing worker id (default: the lowest free one)\n"
    "  --metrics-address <h:p>    where /metrics is served (default 127.0.0.1:9467)\n"
    "  --port-file <file>         write the metrics port there once listening\n";

void Log(const std::string& line) { rtb::startup::Log(kProgram, line); }

int Fail(absl::string_view message) {
  return rtb::startup::FailStart(kProgram, std::string_view(message.data(), message.size()));
}

struct StreamFlags {
  std::string config_path;
  int worker_id = rtb::config::kAutoWorkerId;
  std::string metrics_address = "127.0.0.1:9467";
  std::string port_file;
};

std::optional<int> ParseFlags(int argc, char** argv, StreamFlags* out) {
  rtb::startup::FlagParser flags(kProgram, kUsage);
  flags.Text("--config", &out->config_path);
  flags.Integer("--worker-id", &out->worker_id, 0);
  flags.Text("--metrics-address", &out->metrics_address);
  flags.Text("--port-file", &out->port_file);
  flags.Require("--config");
  return rtb::startup::ExitCodeAfter(flags.Parse(argc, argv));
}

// The configuration file with this process's worker id; a shared store.
absl::StatusOr<rtb::config::BidderConfig> LoadStreamConfig(const StreamFlags& flags) {
  absl::StatusOr<rtb::config::BidderConfig> config = rtb::config::LoadConfigFile(flags.config_path);
  if (!config.ok()) return config.status();
  if (config->storage.backend == rtb::config::StorageBackend::kEmbedded) {
    return absl::InvalidArgumentError(absl::StrCat(
        flags.config_path,
        ": storage.backend is \"embedded\": its tables live in the bidder's process; rtb-stream "
        "needs a shared store (hbase or storage-server), or keep beacon_log.stream.in_process"));
  }
  config->pacing.worker_id = flags.worker_id;
  if (absl::Status valid = rtb::config::ValidateConfig(*config); !valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--worker-id ", flags.worker_id, ": ", valid.message()));
  }
  return config;
}

// What applies the log: the beacon handler's writes, with the events, the
// pacing journal and the pricing counts behind them.
struct Applier {
  std::unique_ptr<rtb::bidder::events::EventStore> events;
  std::unique_ptr<rtb::pacing::Pacer> pacer;
  std::unique_ptr<rtb::pricing::PricingFeedback> pricing;
  std::unique_ptr<rtb::bidder::BeaconHandler> handler;
};

absl::StatusOr<Applier> BuildApplier(const rtb::config::BidderConfig& config,
                                     rtb::storage::Store& store, prometheus::Registry& registry) {
  Applier applier;
  applier.events = std::make_unique<rtb::bidder::events::EventStore>(
      store, *rtb::storage::SystemClock(), &registry,
      rtb::bidder::events::EventStoreOptionsOf(config.events));
  rtb::pacing::PacerOptions pacer_options;
  pacer_options.campaign_capacity = static_cast<size_t>(config.campaign_store.max_campaigns);
  pacer_options.lease_holder = absl::StrCat("rtb-stream pid ", ::getpid());
  pacer_options.on_worker_id_lost = rtb::startup::ExitWhenWorkerIdIsLost("rtb-stream");
  absl::StatusOr<std::unique_ptr<rtb::pacing::Pacer>> pacer =
      rtb::pacing::Pacer::Create(config, store, &registry, pacer_options);
  if (!pacer.ok()) return pacer.status();
  applier.pacer = *std::move(pacer);
  try {
    applier.pricing =
        std::make_unique<rtb::pricing::PricingFeedback>(config, store, nullptr, &registry);
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("cannot declare the pricing metrics: ", e.what()));
  }
  rtb::bidder::BeaconHandler::Dependencies deps;
  deps.config = &config;
  deps.store = &store;
  deps.events = applier.events.get();
  deps.spend = &applier.pacer->spend();
  deps.journal = applier.pacer->journal();
  deps.pricing = applier.pricing.get();
  deps.registry = &registry;
  absl::StatusOr<std::unique_ptr<rtb::bidder::BeaconHandler>> handler =
      rtb::bidder::BeaconHandler::Create(std::move(deps));
  if (!handler.ok()) return handler.status();
  applier.handler = *std::move(handler);
  return applier;
}

int Run(int argc, char** argv) {
  StreamFlags flags;
  if (std::optional<int> exit_code = ParseFlags(argc, argv, &flags); exit_code.has_value()) {
    return *exit_code;
  }
  rtb::startup::TuneAllocatorForLongRuns();
  rtb::startup::BlockStopSignals();
  absl::StatusOr<rtb::config::BidderConfig> config = LoadStreamConfig(flags);
  if (!config.ok()) return Fail(config.status().message());
  absl::StatusOr<std::unique_ptr<rtb::storage::Store>> store =
      rtb::startup::OpenBidderStore(*config);
  if (!store.ok()) return Fail(store.status().message());
  auto registry = std::make_shared<prometheus::Registry>();
  absl::StatusOr<Applier> applier = BuildApplier(*config, **store, *registry);
  if (!applier.ok()) return Fail(applier.status().message());

  campaigns::CampaignStore campaign_store(
      **store, rtb::storage::SystemClock(),
      [&config](std::string_view json) { return rtb::config::ParseCampaign(json, *config); });
  campaigns::CampaignFollowerOptions follow_options;
  follow_options.interval = std::chrono::milliseconds(config->campaign_store.follow_interval_ms);
  follow_options.max_campaigns = static_cast<size_t>(config->campaign_store.max_campaigns);
  follow_options.registry = registry.get();
  campaigns::CampaignFollower follower(
      campaign_store, config->campaigns,
      [&config](std::string_view json) { return rtb::config::ParseCampaign(json, *config); },
      [&applier](const campaigns::LiveCampaigns& live) {
        std::vector<std::shared_ptr<const rtb::config::CampaignConfig>> shared;
        for (const campaigns::LiveCampaign& c : live.by_position) shared.push_back(c.config);
        applier->handler->SetCampaigns(shared);
        if (absl::Status s = applier->pacer->UpdateCampaigns(live.PacingConfigs()); !s.ok()) {
          Log(absl::StrCat("pacing keeps its campaigns: ", s.message()));
        }
      },
      follow_options);
  absl::StatusOr<std::unique_ptr<rtb::beaconlog::LogReader>> reader =
      rtb::bidder::stream::OpenBeaconLogReader(*config);
  if (!reader.ok()) {
    return Fail(
        absl::StrCat("cannot open the beacon log for reading: ", reader.status().message()));
  }
  absl::StatusOr<std::unique_ptr<prometheus::Exposer>> exposer =
      rtb::startup::ServeMetrics(flags.metrics_address, registry, flags.port_file);
  if (!exposer.ok()) return Fail(exposer.status().message());

  if (absl::Status s = follower.Start(); !s.ok()) {
    Log(absl::StrCat("cannot read the campaigns table yet: ", s.message()));
  }
  if (absl::Status s = applier->pacer->Start(); !s.ok()) return Fail(s.message());
  absl::StatusOr<std::unique_ptr<rtb::bidder::stream::StreamWorker>> worker =
      rtb::bidder::stream::StreamWorker::Start(reader->get(), &applier->handler->applier(),
                                               registry.get(),
                                               rtb::bidder::stream::StreamWorkerOptionsOf(*config));
  if (!worker.ok()) return Fail(worker.status().message());
  Log(absl::StrCat("applying the beacon log as worker ", applier->pacer->worker_id(), " on ",
                   rtb::startup::DescribeStore(config->storage)));

  Log("stopping on " + std::string(rtb::startup::WaitForStopSignal()));
  (void)(*worker)->AwaitCaughtUp(absl::Seconds(10));
  worker->reset();
  follower.Stop();
  applier->pacer->Stop();
  Log("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  rtb::startup::ConfigureRuntime();
  return rtb::startup::RunMain(kProgram, [&] { return Run(argc, argv); });
}
