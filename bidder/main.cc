// rtb-bidder: the bidder process.
//
//   rtb-bidder --config <file> [--port-file <file>]
//
// Loads and validates the configuration, opens the store, serves until
// SIGTERM or SIGINT, then drains (server.graceful_shutdown_timeout_ms) and
// exits 0. Any start-up error is one line on stderr naming the problem, and
// exit code 1. Every start and stop event is one line on stderr; secrets are
// never printed.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bidder/app.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/signal_set.hpp"
#include "config/config.h"

namespace {

constexpr char kUsage[] =
    "usage: rtb-bidder --config <file> [--port-file <file>]\n"
    "  --config <file>     bidder configuration (JSON, see config/config.h)\n"
    "  --port-file <file>  write the bound port there once listening (for port 0)\n";

void Log(const std::string& line) {
  const std::string stamp =
      absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone());
  std::fprintf(stderr, "%s rtb-bidder: %s\n", stamp.c_str(), line.c_str());
}

int Fail(const std::string& message) {
  Log("error: " + message);
  return 1;
}

struct Flags {
  std::string config;
  std::string port_file;
};

// nullopt after printing the problem (or the usage for --help).
std::optional<Flags> ParseFlags(int argc, char** argv, bool& help) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      help = true;
      return std::nullopt;
    }
    std::string* target = nullptr;
    std::string_view name;
    for (auto [flag, field] : {std::pair<std::string_view, std::string*>{"--config", &flags.config},
                               {"--port-file", &flags.port_file}}) {
      if (arg == flag ||
          (arg.starts_with(flag) && arg.size() > flag.size() && arg[flag.size()] == '=')) {
        target = field;
        name = flag;
      }
    }
    if (target == nullptr) {
      std::fprintf(stderr, "rtb-bidder: unknown argument \"%s\"\n%s", argv[i], kUsage);
      return std::nullopt;
    }
    if (arg.size() > name.size()) {
      *target = std::string(arg.substr(name.size() + 1));
    } else if (i + 1 < argc) {
      *target = argv[++i];
    } else {
      std::fprintf(stderr, "rtb-bidder: %s needs a value\n%s", argv[i], kUsage);
      return std::nullopt;
    }
    if (target->empty()) {
      std::fprintf(stderr, "rtb-bidder: %s needs a non-empty value\n%s", std::string(name).c_str(),
                   kUsage);
      return std::nullopt;
    }
  }
  if (flags.config.empty()) {
    std::fprintf(stderr, "rtb-bidder: --config is required\n%s", kUsage);
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

std::string StorageDescription(const rtb::config::StorageConfig& storage) {
  std::string where = rtb::config::StorageBackendName(storage.backend);
  if (storage.backend == rtb::config::StorageBackend::kEmbedded) {
    absl::StrAppend(&where, " at ", storage.embedded.path);
  } else {
    absl::StrAppend(&where, " via ", storage.hbase.endpoints.size(), " gateway(s)");
  }
  return where;
}

int Run(int argc, char** argv) {
  bool help = false;
  std::optional<Flags> flags = ParseFlags(argc, argv, help);
  if (help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!flags) return 1;

  // Signals are caught from here on: one that arrives during start-up is
  // served as soon as the bidder is up, as a clean shutdown.
  std::signal(SIGPIPE, SIG_IGN);
  boost::asio::io_context signal_context(1);
  boost::asio::signal_set signals(signal_context, SIGTERM, SIGINT);

  absl::StatusOr<rtb::config::BidderConfig> config = rtb::config::LoadConfigFile(flags->config);
  if (!config.ok()) return Fail(std::string(config.status().message()));
  const std::string storage = StorageDescription(config->storage);
  const std::string address = config->server.listen_address;
  const int io_threads = config->server.io_threads;

  Log(absl::StrCat("starting: config ", flags->config, ", storage ", storage));
  absl::StatusOr<std::unique_ptr<rtb::bidder::BidderApp>> app =
      rtb::bidder::BidderApp::Create(*std::move(config));
  if (!app.ok()) return Fail(std::string(app.status().message()));
  if (absl::Status s = (*app)->Start(); !s.ok()) return Fail(std::string(s.message()));
  const uint16_t port = (*app)->port();
  if (!flags->port_file.empty() && !WritePortFile(flags->port_file, port)) {
    (*app)->Shutdown();
    return Fail("cannot write the port file " + flags->port_file);
  }
  Log(absl::StrCat("listening on ", address.find(':') != std::string::npos ? "[" : "", address,
                   address.find(':') != std::string::npos ? "]" : "", ":", port,
                   " (io_threads=", io_threads, ")"));

  int received = 0;
  signals.async_wait([&received](const boost::system::error_code& ec, int signal_number) {
    if (!ec) received = signal_number;
  });
  signal_context.run();

  Log(absl::StrCat("received ", received == SIGINT ? "SIGINT" : "SIGTERM", ", draining for up to ",
                   (*app)->config().server.graceful_shutdown_timeout_ms, " ms"));
  (*app)->Shutdown();
  app->reset();
  Log("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    // Exceptions stay out of the request path; one that reaches here came
    // from start-up or shutdown (e.g. out of memory or threads).
    return Fail(absl::StrCat("unexpected failure: ", e.what()));
  }
}
