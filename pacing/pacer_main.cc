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
// pacing/pacer.h). Serves its metrics at http://<metrics-address>/metrics
// (default 127.0.0.1:9465; port 0 picks a free one, written to --port-file).
// Runs until SIGTERM or SIGINT, then exits 0; a start-up error is one line
// on stderr naming the problem, and exit code 1.
#include <signal.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "config/config.h"
#include "pacing/pacer.h"
#include "prometheus/exposer.h"
#include "prometheus/registry.h"
#include "storage/hbase_store.h"
#include "storage/schemas.h"

namespace {

constexpr char kUsage[] =
    "usage: rtb-pacer --config <file> [--metrics-address <host:port>] [--port-file <file>]\n"
    "  --config <file>            the bidders' configuration (JSON, see config/config.h);\n"
    "                             pacing.mode must be \"pacer\"\n"
    "  --metrics-address <h:p>    where /metrics is served (default 127.0.0.1:9465)\n"
    "  --port-file <file>         write the metrics port there once listening\n";

void Log(const std::string& line) {
  const std::string stamp =
      absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone());
  std::fprintf(stderr, "%s rtb-pacer: %s\n", stamp.c_str(), line.c_str());
}

int Fail(const std::string& message) {
  Log("error: " + message);
  return 1;
}

struct Flags {
  std::string config;
  std::string metrics_address = "127.0.0.1:9465";
  std::string port_file;
};

std::optional<Flags> ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return std::nullopt;
    }
    std::string* target = nullptr;
    std::string_view name;
    for (auto [flag, field] : {std::pair<std::string_view, std::string*>{"--config", &flags.config},
                               {"--metrics-address", &flags.metrics_address},
                               {"--port-file", &flags.port_file}}) {
      if (arg == flag ||
          (arg.starts_with(flag) && arg.size() > flag.size() && arg[flag.size()] == '=')) {
        target = field;
        name = flag;
      }
    }
    if (target == nullptr) {
      std::fprintf(stderr, "rtb-pacer: unknown argument \"%s\"\n%s", argv[i], kUsage);
      return std::nullopt;
    }
    if (arg.size() > name.size()) {
      *target = std::string(arg.substr(name.size() + 1));
    } else if (i + 1 < argc) {
      *target = argv[++i];
    } else {
      std::fprintf(stderr, "rtb-pacer: %s needs a value\n%s", argv[i], kUsage);
      return std::nullopt;
    }
    if (target->empty()) {
      std::fprintf(stderr, "rtb-pacer: %s needs a non-empty value\n%s", std::string(name).c_str(),
                   kUsage);
      return std::nullopt;
    }
  }
  if (flags.config.empty()) {
    std::fprintf(stderr, "rtb-pacer: --config is required\n%s", kUsage);
    return std::nullopt;
  }
  return flags;
}

// Written whole under a temporary name and renamed, so a reader never sees a
// partial number.
bool WritePortFile(const std::string& path, uint16_t port) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << port << "\n";
    if (!out.flush()) return false;
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  return !ec;
}

rtb::storage::HBaseStoreOptions StoreOptions(const rtb::config::HBaseStorageConfig& config) {
  rtb::storage::HBaseStoreOptions options;
  options.endpoints = config.endpoints;
  options.transport = config.transport == rtb::config::ThriftTransport::kFramed
                          ? rtb::storage::ThriftTransport::kFramed
                          : rtb::storage::ThriftTransport::kBuffered;
  options.connect_timeout_ms = config.connect_timeout_ms;
  options.call_timeout_ms = config.call_timeout_ms;
  options.pool_size_per_endpoint = config.pool_size;
  options.hedge_delay_ms = config.hedge_delay_ms;
  options.io_threads = config.io_threads;
  return options;
}

int Run(const Flags& flags) {
  absl::StatusOr<rtb::config::BidderConfig> config = rtb::config::LoadConfigFile(flags.config);
  if (!config.ok()) return Fail(std::string(config.status().message()));
  if (config->pacing.mode != rtb::config::PacingProcessMode::kPacer) {
    return Fail(absl::StrCat(flags.config,
                             ": pacing.mode is \"sidecar\": each bidder controls its own budgets; "
                             "rtb-pacer serves pacing.mode \"pacer\" only"));
  }
  // ValidateConfig has refused "pacer" with the embedded backend already.
  const std::string where = absl::StrJoin(config->storage.hbase.endpoints, ",");
  absl::StatusOr<std::unique_ptr<rtb::storage::Store>> store =
      rtb::storage::OpenHBaseStore(StoreOptions(config->storage.hbase));
  if (!store.ok()) {
    return Fail(absl::StrCat("cannot open the store at ", where, ": ",
                             std::string(store.status().message())));
  }
  rtb::storage::TableOptions tables;
  tables.attribution_window_seconds = config->bid.attribution_window_s;
  tables.session_lifetime_seconds = config->sessions.absolute_lifetime_s;
  if (absl::Status s = rtb::storage::ApplySchemas(**store, rtb::storage::BidderTables(tables));
      !s.ok()) {
    return Fail(absl::StrCat("cannot create the bidder's tables at ", where, ": ",
                             std::string(s.message())));
  }

  auto registry = std::make_shared<prometheus::Registry>();
  absl::StatusOr<std::unique_ptr<rtb::pacing::PacerService>> service =
      rtb::pacing::PacerService::Create(*config, **store, registry.get());
  if (!service.ok()) return Fail(std::string(service.status().message()));

  std::unique_ptr<prometheus::Exposer> exposer;
  try {
    exposer = std::make_unique<prometheus::Exposer>(flags.metrics_address);
  } catch (const std::exception& e) {
    return Fail(absl::StrCat("cannot serve metrics at ", flags.metrics_address, ": ", e.what()));
  }
  exposer->RegisterCollectable(registry);
  const uint16_t metrics_port =
      exposer->GetListeningPorts().empty() ? 0 : exposer->GetListeningPorts().front();
  if (!flags.port_file.empty() && !WritePortFile(flags.port_file, metrics_port)) {
    return Fail("cannot write " + flags.port_file);
  }

  if (absl::Status s = (*service)->Start(); !s.ok()) return Fail(std::string(s.message()));
  Log(absl::StrCat("controlling ", config->campaigns.size(), " campaigns every ",
                   config->pacing.controller_interval_ms, " ms on ",
                   rtb::config::StorageBackendName(config->storage.backend), " via ", where,
                   "; metrics on port ", metrics_port));

  // The signals were blocked before any thread started, so only this wait
  // receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  int received = 0;
  sigwait(&stop_signals, &received);
  Log(absl::StrCat("stopping on signal ", received));
  (*service)->Stop();
  Log("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<Flags> flags = ParseFlags(argc, argv);
  if (!flags) {
    for (int i = 1; i < argc; ++i) {
      if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") return 0;
    }
    return 2;
  }
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  try {
    return Run(*flags);
  } catch (const std::exception& e) {
    return Fail(absl::StrCat("unexpected: ", e.what()));
  }
}
