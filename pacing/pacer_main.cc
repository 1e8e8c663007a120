// rtb-pacer: the pacing controller as its own process (pacing.mode "pacer"):
// one controller for every bidder worker sharing the store.
//
//   rtb-pacer --config <file> [--metrics-address <host:port>] [--port-file <file>]
//
// Reads the bidders' own configuration file (campaigns, pacing, storage),
// which must say pacing.mode "pacer" and a shared store (storage.backend
// hbase or storage-server). Creates the bidder's tables when missing, then
// every pacing.controller_interval_ms scans each campaign's budget shards
// and publishes the decisions the workers' Pacers follow (see
// pacing/pacer.h). The campaigns are the campaigns table's, followed as the
// bidders follow it (bidder/campaigns/campaign_follower.h): a budget, mode
// or time zone changed through the admin API, or a campaign created, is
// decided on within campaign_store.follow_interval_ms plus a controller
// step. Until a bidder has seeded the table, the config file's campaigns. Every
// pricing.fit_interval_s it also fits the shading model and publishes it in the `pricing` table,
// where the workers read it (pricing/pricing_loop.h). Serves its metrics at
// http://<metrics-address>/metrics (default 127.0.0.1:9465; port 0 picks a free one, written to
// --port-file). Runs until SIGTERM or SIGINT, then exits 0; a start-up error is one line on stderr
// naming the problem (bad flags included), and exit code 1.
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bidder/campaigns/campaign_follower.h"
#include "bidder/campaigns/campaign_store.h"
#include "config/config.h"
#include "pacing/pacer.h"
#include "pricing/pricing_loop.h"
#include "prometheus/exposer.h"
#include "prometheus/registry.h"
#include "storage/startup/startup.h"

namespace {

constexpr char kProgram[] = "rtb-pacer";
constexpr char kUsage[] =
    "usage: rtb-pacer --config <file> [--metrics-address <host:port>] [--port-file <file>]\n"
    "  --config <file>            the bidders' configuration (JSON, see config/config.h);\n"
    "                             pacing.mode must be \"pacer\"\n"
    "  --metrics-address <h:p>    where /metrics is served (default 127.0.0.1:9465)\n"
    "  --port-file <file>         write the metrics port there once listening\n";

void Log(const std::string& line) { rtb::startup::Log(kProgram, line); }

int Fail(absl::string_view message) {
  return rtb::startup::FailStart(kProgram, std::string_view(message.data(), message.size()));
}

struct PacerFlags {
  std::string config_path;
  std::string metrics_address = "127.0.0.1:9465";
  std::string port_file;
};

// The exit code when the process stops here (--help, bad flags), nullopt
// when it runs.
std::optional<int> ParseFlags(int argc, char** argv, PacerFlags* out) {
  rtb::startup::FlagParser flags(kProgram, kUsage);
  flags.Text("--config", &out->config_path);
  flags.Text("--metrics-address", &out->metrics_address);
  flags.Text("--port-file", &out->port_file);
  flags.Require("--config");
  return rtb::startup::ExitCodeAfter(flags.Parse(argc, argv));
}

// The configuration file, which must say pacing.mode "pacer".
absl::StatusOr<rtb::config::BidderConfig> LoadPacerConfig(const std::string& path) {
  absl::StatusOr<rtb::config::BidderConfig> config = rtb::config::LoadConfigFile(path);
  if (!config.ok()) return config.status();
  if (config->pacing.mode != rtb::config::PacingProcessMode::kPacer) {
    return absl::InvalidArgumentError(
        absl::StrCat(path,
                     ": pacing.mode is \"sidecar\": each bidder controls its own budgets; "
                     "rtb-pacer serves pacing.mode \"pacer\" only"));
  }
  return config;
}

int Run(int argc, char** argv) {
  PacerFlags flags;
  if (std::optional<int> exit_code = ParseFlags(argc, argv, &flags); exit_code.has_value()) {
    return *exit_code;
  }
  rtb::startup::TuneAllocatorForLongRuns();
  rtb::startup::BlockStopSignals();

  absl::StatusOr<rtb::config::BidderConfig> config = LoadPacerConfig(flags.config_path);
  if (!config.ok()) return Fail(config.status().message());
  const rtb::startup::AllocatorTrimmer trimmer(
      std::chrono::milliseconds(config->server.memory_trim_interval_ms));
  // ValidateConfig has refused "pacer" with the embedded backend already.
  absl::StatusOr<std::unique_ptr<rtb::storage::Store>> store =
      rtb::startup::OpenBidderStore(*config);
  if (!store.ok()) return Fail(store.status().message());

  auto registry = std::make_shared<prometheus::Registry>();
  rtb::pacing::PacerOptions pacer_options;
  pacer_options.campaign_capacity = static_cast<size_t>(config->campaign_store.max_campaigns);
  absl::StatusOr<std::unique_ptr<rtb::pacing::PacerService>> service =
      rtb::pacing::PacerService::Create(*config, **store, registry.get(), pacer_options);
  if (!service.ok()) return Fail(service.status().message());
  namespace campaigns = rtb::bidder::campaigns;
  auto decode = [&config](std::string_view json) {
    return rtb::config::ParseCampaign(json, *config);
  };
  campaigns::CampaignStore campaign_store(**store, rtb::storage::SystemClock(), decode);
  campaigns::CampaignFollowerOptions follow_options;
  follow_options.interval = std::chrono::milliseconds(config->campaign_store.follow_interval_ms);
  follow_options.max_campaigns = pacer_options.campaign_capacity;
  follow_options.registry = registry.get();
  rtb::pacing::PacerService* pacer_service = service->get();
  campaigns::CampaignFollower follower(
      campaign_store, config->campaigns, decode,
      [pacer_service](const campaigns::LiveCampaigns& live) {
        if (absl::Status s = pacer_service->UpdateCampaigns(live.PacingConfigs()); !s.ok()) {
          Log(absl::StrCat("pacing keeps its campaigns: ", s.message()));
        }
      },
      follow_options);
  absl::StatusOr<std::unique_ptr<rtb::pricing::PricingLoop>> pricing =
      rtb::pricing::PricingLoop::Create(*config, **store, nullptr,
                                        rtb::pricing::PricingRole::kFitAndPublish, registry.get());
  if (!pricing.ok()) return Fail(pricing.status().message());
  absl::StatusOr<std::unique_ptr<prometheus::Exposer>> exposer =
      rtb::startup::ServeMetrics(flags.metrics_address, registry, flags.port_file);
  if (!exposer.ok()) return Fail(exposer.status().message());

  // The table's campaigns are in place before the first decisions; a table
  // that cannot be read leaves the config file's, and is retried.
  if (absl::Status s = follower.Start(); !s.ok()) {
    Log(absl::StrCat("cannot read the campaigns table yet: ", s.message()));
  }
  if (absl::Status s = (*service)->Start(); !s.ok()) return Fail(s.message());
  if (absl::Status s = (*pricing)->Start(); !s.ok()) return Fail(s.message());
  Log(absl::StrCat("controlling ", follower.current()->by_position.size(), " campaigns every ",
                   config->pacing.controller_interval_ms, " ms on ",
                   rtb::startup::DescribeStore(config->storage), "; metrics on port ",
                   rtb::startup::MetricsPort(**exposer)));

  Log("stopping on " + std::string(rtb::startup::WaitForStopSignal()));
  (*pricing)->Stop();
  follower.Stop();
  (*service)->Stop();
  Log("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  rtb::startup::ConfigureRuntime();
  return rtb::startup::RunMain(kProgram, [&] { return Run(argc, argv); });
}
