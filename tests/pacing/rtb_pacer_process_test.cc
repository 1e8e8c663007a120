// The rtb-pacer binary as a process: it refuses a sidecar configuration, and
// with pacing.mode "pacer" on a storage-server it publishes decisions that
// an in-process worker follows and a shading model its pricing loop reads,
// serves /metrics, follows the campaigns table (a budget cut and a campaign
// created while it runs), and exits 0 on SIGTERM.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bidder/campaigns/campaign_store.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "pacing/pacer.h"
#include "pricing/internal/model_board.h"
#include "pricing/pricer.h"
#include "pricing/pricing_loop.h"
#include "storage/hbase_store.h"
#include "tests/config/sample_config.h"
#include "tests/pacing/pacing_test_support.h"
#include "tests/storage/server/server_process.h"

extern char** environ;

namespace rtb::pacing {
namespace {

namespace fs = std::filesystem;
using storage::testing::LoopbackHttpGet;

// One rtb-pacer process, stderr captured to a file; killed if still running.
class PacerProcess {
 public:
  explicit PacerProcess(fs::path dir) : dir_(std::move(dir)) { fs::create_directories(dir_); }
  ~PacerProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  bool Spawn(const std::vector<std::string>& args) {
    std::vector<std::string> strings = {RTB_PACER_BINARY};
    strings.insert(strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string err = (dir_ / "stderr.txt").string();
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) pid_ = -1;
    return rc == 0;
  }

  // The exit code, waiting at most 30 s; nullopt when it did not exit.
  std::optional<int> AwaitExit() {
    for (int i = 0; i < 3000 && pid_ > 0; ++i) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        if (WIFEXITED(status)) return WEXITSTATUS(status);
        return std::nullopt;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return std::nullopt;
  }
  std::optional<int> Stop() {
    if (pid_ > 0) ::kill(pid_, SIGTERM);
    return AwaitExit();
  }

  std::string Stderr() const {
    std::ifstream in(dir_ / "stderr.txt");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  fs::path dir_;
  pid_t pid_ = -1;
};

std::string WriteConfig(const fs::path& dir, nlohmann::json config) {
  config["beacon_log"]["embedded"]["path"] = (dir / "beacon-log").string();
  const fs::path path = dir / "config.json";
  std::ofstream(path) << config.dump(2);
  return path.string();
}

TEST(RtbPacerProcessTest, RefusesASidecarConfiguration) {
  const fs::path dir = testing::TempDir("pacer-sidecar");
  fs::create_directories(dir);
  const std::string config = WriteConfig(dir, config::testing::ConfigWithCampaigns(1));
  PacerProcess pacer(dir);
  ASSERT_TRUE(pacer.Spawn({"--config", config}));
  EXPECT_EQ(pacer.AwaitExit(), 1);
  EXPECT_NE(pacer.Stderr().find("sidecar"), std::string::npos) << pacer.Stderr();
  fs::remove_all(dir);
}

TEST(RtbPacerProcessTest, PublishesDecisionsWorkersFollowAndStopsOnSigterm) {
  const fs::path dir = testing::TempDir("pacer-process");
  storage::testing::StorageServerProcess server(dir / "server");
  ASSERT_TRUE(server.Start({})) << server.Stderr();

  nlohmann::json json = config::testing::ConfigWithCampaigns(2);
  json["storage"] = {{"backend", "storage-server"},
                     {"hbase", {{"endpoints", {server.endpoint()}}}}};
  json["pacing"] = {{"mode", "pacer"}, {"controller_interval_ms", 200}, {"worker_id", 3}};
  const std::string config_path = WriteConfig(dir, json);
  PacerProcess pacer(dir / "pacer");
  const fs::path port_file = dir / "metrics.port";
  ASSERT_TRUE(pacer.Spawn({"--config", config_path, "--metrics-address", "127.0.0.1:0",
                           "--port-file", port_file.string()}));

  int metrics_port = 0;
  for (int i = 0; i < 3000 && metrics_port == 0; ++i) {
    std::ifstream in(port_file);
    if (!(in >> metrics_port)) {
      metrics_port = 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ASSERT_GT(metrics_port, 0) << pacer.Stderr();

  storage::HBaseStoreOptions options;
  options.endpoints = {server.endpoint()};
  auto store = storage::OpenHBaseStore(options);
  ASSERT_TRUE(store.ok()) << store.status();

  // A worker of the same configuration follows what the process publishes.
  auto config = config::LoadConfigFile(config_path);
  ASSERT_TRUE(config.ok()) << config.status();
  PacerOptions worker_options;
  worker_options.campaign_capacity = 4;  // room for campaigns created below
  auto worker = Pacer::Create(*config, **store, nullptr, worker_options);
  ASSERT_TRUE(worker.ok()) << worker.status();
  bool followed = false;
  for (int i = 0; i < 300 && !followed; ++i) {
    (*worker)->RunDue();
    followed = (*worker)->decisions().MayBid(0, 0.0) && (*worker)->decisions().MayBid(1, 0.0);
    if (!followed) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(followed) << pacer.Stderr();

  // A worker's pricing loop reads the shading model the process fits and
  // publishes once its pacing has started.
  bool published = false;
  for (int i = 0; i < 300 && !published; ++i) {
    absl::StatusOr<std::optional<pricing::internal::PricingModel>> model =
        pricing::internal::ReadModel(**store, 0);
    published = model.ok() && model->has_value();
    if (!published) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(published) << pacer.Stderr();
  auto pricer = pricing::Pricer::Create(*config, nullptr);
  ASSERT_TRUE(pricer.ok()) << pricer.status();
  auto pricing_loop = pricing::PricingLoop::Create(*config, **store, pricer->get(),
                                                   pricing::PricingRole::kFollowStore, nullptr);
  ASSERT_TRUE(pricing_loop.ok()) << pricing_loop.status();
  (*pricing_loop)->RunDue();
  EXPECT_GT((*pricing_loop)->model_version(), 0);
  EXPECT_EQ((*pricer)->ModelComputedAtMs(), (*pricing_loop)->model_version());

  const std::string metrics = LoopbackHttpGet(metrics_port, "/metrics");
  EXPECT_NE(metrics.find("bidder_pacing_budget_micros{campaign=\"camp-1\"} 100000000"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("bidder_pacing_throttle_ratio{campaign=\"camp-0\"}"), std::string::npos);
  EXPECT_NE(metrics.find("bidder_pricing_fit_seconds"), std::string::npos);

  // The campaigns table changes while it runs: seeded as a bidder seeds it,
  // then camp-1's budget is cut and camp-new is created through the store.
  bidder::campaigns::CampaignStore campaigns(
      **store, storage::SystemClock(),
      [&config](std::string_view object) { return config::ParseCampaign(object, *config); });
  std::vector<std::string> seed;
  for (const config::CampaignConfig& campaign : config->campaigns) {
    seed.push_back(config::CampaignToJson(campaign));
  }
  ASSERT_TRUE(campaigns.SeedIfEmpty(seed, "test").ok());
  auto camp1 = campaigns.Get("camp-1");
  ASSERT_TRUE(camp1.ok() && camp1->has_value());
  ASSERT_TRUE(
      campaigns.Patch("camp-1", R"({"daily_budget_micros": 50000000})", (*camp1)->version, "test")
          .ok());
  nlohmann::json created = nlohmann::json::parse(seed[0]);
  created["id"] = "camp-new";
  auto made = campaigns.Create(created.dump(), "test");
  ASSERT_TRUE(made.ok()) << made.status();
  bool followed_table = false;
  std::string seen;
  for (int i = 0; i < 100 && !followed_table; ++i) {
    seen = LoopbackHttpGet(metrics_port, "/metrics");
    followed_table =
        seen.find("bidder_pacing_budget_micros{campaign=\"camp-1\"} 50000000") !=
            std::string::npos &&
        seen.find("bidder_pacing_throttle_ratio{campaign=\"camp-new\"}") != std::string::npos;
    if (!followed_table) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(followed_table) << seen << pacer.Stderr();
  // A worker handed the same list follows the new campaign's decisions.
  std::vector<config::CampaignConfig> live = config->campaigns;
  auto made_config = config::ParseCampaign(made->json, *config);
  ASSERT_TRUE(made_config.ok()) << made_config.status();
  live.push_back(*made_config);
  absl::Status updated = (*worker)->UpdateCampaigns(live);
  ASSERT_TRUE(updated.ok()) << updated;
  bool followed_new = false;
  for (int i = 0; i < 100 && !followed_new; ++i) {
    (*worker)->RunDue();
    followed_new = (*worker)->decisions().MayBid(2, 0.0);
    if (!followed_new) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(followed_new) << pacer.Stderr();

  EXPECT_EQ(pacer.Stop(), 0) << pacer.Stderr();
  pricing_loop->reset();
  pricer->reset();
  worker->reset();
  store->reset();
  EXPECT_EQ(server.Stop(), 0) << server.Stderr();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rtb::pacing
