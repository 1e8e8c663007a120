// storage-server: the embedded engine served over HBase's Thrift2 protocol.
//
//   storage-server --path <dir> [--bind 127.0.0.1] [--port 9090]
//                  [--transport buffered|framed] [--threads 64] [--apply-schemas]
//                  [--port-file <file>] [...]
//
// Opens (or creates) the embedded store at --path, optionally creates the
// bidder's tables (storage/schemas.h), and serves THBaseService until SIGTERM
// or SIGINT; then it stops accepting, lets calls in progress finish, flushes
// every table and closes the store, and exits 0. A start-up error is one line
// on stderr naming the problem, and exit code 1.
#include <pthread.h>
#include <signal.h>

#include <charconv>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "storage/embedded_store.h"
#include "storage/schemas.h"
#include "storage/server/storage_server.h"
#include "thrift/TOutput.h"

namespace {

using rtb::storage::ThriftTransport;
using rtb::storage::server::StorageServerOptions;

constexpr char kUsage[] =
    "usage: storage-server --path <dir> [options]\n"
    "  --path <dir>                  embedded store directory (created when missing); required\n"
    "  --bind <address>              address to listen on (default 127.0.0.1)\n"
    "  --port <n>                    TCP port, 0 picks a free one (default 9090)\n"
    "  --transport buffered|framed   Thrift transport; clients must match (default buffered)\n"
    "  --threads <n>                 connections served at once, one thread each (default 64)\n"
    "  --apply-schemas               create the bidder's tables (storage/schemas.h) if missing\n"
    "  --port-file <file>            write the bound port there once listening\n"
    "  --max-message-bytes <n>       largest request accepted (default 67108864)\n"
    "  --idle-timeout-ms <n>         close connections idle this long, 0 never (default 60000)\n"
    "  --max-scanners <n>            scanners open at once (default 1000)\n"
    "  --scanner-idle-timeout-ms <n> close scanners unread this long (default 60000)\n"
    "  --block-cache-mb <n>          embedded block cache (default 256)\n";

void Log(const std::string& line) {
  const std::string stamp =
      absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone());
  std::fprintf(stderr, "%s storage-server: %s\n", stamp.c_str(), line.c_str());
}

int Fail(const std::string& message) {
  Log("error: " + message);
  return 1;
}

struct Flags {
  std::string path;
  std::string port_file;
  bool apply_schemas = false;
  int64_t block_cache_mb = 256;
  StorageServerOptions server;
};

template <typename Int>
bool ParseInt(std::string_view text, Int* out) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return error == std::errc() && end == text.data() + text.size();
}

// nullopt after printing the problem (or the usage for --help).
std::optional<Flags> ParseFlags(int argc, char** argv, bool& help) {
  Flags flags;
  using Setter = std::function<bool(std::string_view)>;
  auto integer = [](auto* field) {
    return Setter([field](std::string_view v) { return ParseInt(v, field); });
  };
  const std::vector<std::pair<std::string_view, Setter>> valued = {
      {"--path",
       [&](std::string_view v) {
         flags.path = v;
         return !v.empty();
       }},
      {"--port-file",
       [&](std::string_view v) {
         flags.port_file = v;
         return !v.empty();
       }},
      {"--bind",
       [&](std::string_view v) {
         flags.server.bind = v;
         return !v.empty();
       }},
      {"--port", integer(&flags.server.port)},
      {"--transport",
       [&](std::string_view v) {
         if (v == "buffered")
           flags.server.transport = ThriftTransport::kBuffered;
         else if (v == "framed")
           flags.server.transport = ThriftTransport::kFramed;
         else
           return false;
         return true;
       }},
      {"--threads", integer(&flags.server.threads)},
      {"--max-message-bytes", integer(&flags.server.max_message_bytes)},
      {"--idle-timeout-ms", integer(&flags.server.idle_timeout_ms)},
      {"--max-scanners", integer(&flags.server.handler.max_open_scanners)},
      {"--scanner-idle-timeout-ms", integer(&flags.server.handler.scanner_idle_timeout_ms)},
      {"--block-cache-mb", integer(&flags.block_cache_mb)},
  };
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      help = true;
      return std::nullopt;
    }
    if (arg == "--apply-schemas") {
      flags.apply_schemas = true;
      continue;
    }
    const Setter* setter = nullptr;
    std::string_view name;
    for (const auto& [flag, set] : valued) {
      if (arg == flag ||
          (arg.starts_with(flag) && arg.size() > flag.size() && arg[flag.size()] == '=')) {
        setter = &set;
        name = flag;
      }
    }
    if (setter == nullptr) {
      std::fprintf(stderr, "storage-server: unknown argument \"%s\"\n%s", argv[i], kUsage);
      return std::nullopt;
    }
    std::string_view value;
    if (arg.size() > name.size()) {
      value = arg.substr(name.size() + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      std::fprintf(stderr, "storage-server: %s needs a value\n%s", std::string(name).c_str(),
                   kUsage);
      return std::nullopt;
    }
    if (!(*setter)(value)) {
      std::fprintf(stderr, "storage-server: bad value \"%s\" for %s\n%s",
                   std::string(value).c_str(), std::string(name).c_str(), kUsage);
      return std::nullopt;
    }
  }
  if (flags.path.empty()) {
    std::fprintf(stderr, "storage-server: --path is required\n%s", kUsage);
    return std::nullopt;
  }
  if (flags.block_cache_mb < 1) {
    std::fprintf(stderr, "storage-server: --block-cache-mb must be >= 1\n%s", kUsage);
    return std::nullopt;
  }
  return flags;
}

// Written whole under a temporary name and renamed, so a reader never sees a
// partial number.
bool WritePortFile(const std::string& path, int port) {
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

// Every table's memtables to files, so the next start replays no log.
void FlushEveryTable(rtb::storage::Store& store) {
  absl::StatusOr<std::vector<rtb::storage::TableSchema>> tables = store.ListTables();
  if (!tables.ok()) {
    Log(absl::StrCat("cannot list tables to flush: ", tables.status().message()));
    return;
  }
  for (const rtb::storage::TableSchema& t : *tables) {
    if (absl::Status s = store.Flush(t.name); !s.ok()) {
      Log(absl::StrCat("flushing table '", t.name, "' failed: ", s.message()));
    }
  }
}

int Run(int argc, char** argv) {
  bool help = false;
  std::optional<Flags> flags = ParseFlags(argc, argv, help);
  if (help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!flags) return 1;
  if (absl::Status s = rtb::storage::server::ValidateStorageServerOptions(flags->server); !s.ok()) {
    return Fail(std::string(s.message()));
  }

  // Blocked before any thread starts, so every thread inherits the mask and
  // the signals wait for sigwait below; one that arrives during start-up is
  // served as a clean shutdown once the server is up.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  apache::thrift::GlobalOutput.setOutputFunction(
      [](const char* message) { Log(absl::StrCat("thrift: ", message)); });

  rtb::storage::EmbeddedStoreOptions store_options;
  store_options.path = flags->path;
  store_options.block_cache_bytes = flags->block_cache_mb << 20;
  absl::StatusOr<std::unique_ptr<rtb::storage::Store>> store =
      rtb::storage::OpenEmbeddedStore(store_options);
  if (!store.ok()) return Fail(std::string(store.status().message()));
  if (flags->apply_schemas) {
    const std::vector<rtb::storage::TableSchema> tables = rtb::storage::BidderTables();
    if (absl::Status s = rtb::storage::ApplySchemas(**store, tables); !s.ok()) {
      return Fail(std::string(s.message()));
    }
    Log(absl::StrCat("bidder tables present (", tables.size(), ")"));
  }

  absl::StatusOr<std::unique_ptr<rtb::storage::server::StorageServer>> server =
      rtb::storage::server::StorageServer::Start(**store, flags->server);
  if (!server.ok()) return Fail(std::string(server.status().message()));
  const int port = (*server)->port();
  if (!flags->port_file.empty() && !WritePortFile(flags->port_file, port)) {
    (*server)->Stop();
    return Fail("cannot write the port file " + flags->port_file);
  }
  const std::string& bind = flags->server.bind;
  const bool v6 = bind.find(':') != std::string::npos;
  Log(absl::StrCat("serving ", flags->path, " on ", v6 ? "[" : "", bind, v6 ? "]" : "", ":", port,
                   " (THBaseService, binary protocol, ",
                   flags->server.transport == ThriftTransport::kFramed ? "framed" : "buffered",
                   " transport, ", flags->server.threads, " threads)"));

  int received = 0;
  while (sigwait(&stop_signals, &received) != 0) {
  }
  Log(absl::StrCat("received ", received == SIGINT ? "SIGINT" : "SIGTERM",
                   ", finishing calls in progress"));
  (*server)->Stop();
  server->reset();
  FlushEveryTable(**store);
  store->reset();
  Log("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    return Fail(absl::StrCat("unexpected failure: ", e.what()));
  }
}
