// rtb-bidder: the bidder process.
//
//   rtb-bidder --config <file> [--port-file <file>]
//
// Loads and validates the configuration, opens the store, serves until
// SIGTERM or SIGINT, then drains (server.graceful_shutdown_timeout_ms) and
// exits 0. Any start-up error is one line on stderr naming the problem, and
// exit code 1. Every start and stop event is one line on stderr; secrets are
// never printed.
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "bidder/app.h"
#include "config/config.h"
#include "storage/startup/startup.h"

namespace {

constexpr char kProgram[] = "rtb-bidder";
constexpr char kUsage[] =
    "usage: rtb-bidder --config <file> [--port-file <file>]\n"
    "  --config <file>     bidder configuration (JSON, see config/config.h)\n"
    "  --port-file <file>  write the bound port there once listening (for port 0)\n";

void Log(const std::string& line) { rtb::startup::Log(kProgram, line); }

int Fail(absl::string_view message) {
  return rtb::startup::FailStart(kProgram, std::string_view(message.data(), message.size()));
}

int Run(int argc, char** argv) {
  std::string config_path;
  std::string port_file;
  rtb::startup::FlagParser flags(kProgram, kUsage);
  flags.Text("--config", &config_path);
  flags.Text("--port-file", &port_file);
  flags.Require("--config");
  if (std::optional<int> exit_code = rtb::startup::ExitCodeAfter(flags.Parse(argc, argv)))
    return *exit_code;
  rtb::startup::TuneAllocatorForLongRuns();
  rtb::startup::BlockStopSignals();

  absl::StatusOr<rtb::config::BidderConfig> config = rtb::config::LoadConfigFile(config_path);
  if (!config.ok()) return Fail(config.status().message());
  const std::string storage = rtb::startup::DescribeStore(config->storage);
  const std::string address = config->server.listen_address;
  const int io_threads = config->server.io_threads;
  const rtb::startup::AllocatorTrimmer trimmer(
      std::chrono::milliseconds(config->server.memory_trim_interval_ms));

  Log(absl::StrCat("starting: config ", config_path, ", storage ", storage));
  absl::StatusOr<std::unique_ptr<rtb::bidder::BidderApp>> app =
      rtb::bidder::BidderApp::Create(*std::move(config));
  if (!app.ok()) return Fail(app.status().message());
  if (absl::Status s = (*app)->Start(); !s.ok()) return Fail(s.message());
  const uint16_t port = (*app)->port();
  if (!port_file.empty()) {
    if (absl::Status s = rtb::startup::WritePortFile(port_file, port); !s.ok()) {
      (*app)->Shutdown();
      return Fail(s.message());
    }
  }
  const bool v6 = address.find(':') != std::string::npos;
  Log(absl::StrCat("listening on ", v6 ? "[" : "", address, v6 ? "]" : "", ":", port,
                   " (io_threads=", io_threads, ")"));

  const std::string_view received = rtb::startup::WaitForStopSignal();
  Log(absl::StrCat("received ", std::string(received), ", draining for up to ",
                   (*app)->config().server.graceful_shutdown_timeout_ms, " ms"));
  (*app)->Shutdown();
  app->reset();
  Log("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  rtb::startup::ConfigureRuntime();
  return rtb::startup::RunMain(kProgram, [&] { return Run(argc, argv); });
}
