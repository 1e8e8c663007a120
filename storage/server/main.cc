// storage-server: the embedded engine served over HBase's Thrift2 protocol.
//
//   storage-server --path <dir> [--bind 127.0.0.1] [--port 9090]
//                  [--transport buffered|framed] [--threads 64] [--apply-schemas]
//                  [--port-file <file>] [--metrics-address 127.0.0.1:9466|off]
//                  [--metrics-port-file <file>] [...]
//
// Opens (or creates) the embedded store at --path, optionally creates the
// bidder's tables (storage/schemas.h), and serves THBaseService until SIGTERM
// or SIGINT; then it stops accepting, lets calls in progress finish, flushes
// every table and closes the store, and exits 0. Serves its metrics
// (storage/server/server_metrics.h) at http://<metrics-address>/metrics
// (port 0 picks a free one, written to --metrics-port-file; "off" serves
// none and counts nothing). A start-up error (a bad --metrics-address
// included) is one line on stderr naming the problem, and exit code 1.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "prometheus/exposer.h"
#include "storage/embedded_store.h"
#include "storage/schemas.h"
#include "storage/server/storage_server.h"
#include "storage/startup/startup.h"
#include "thrift/TOutput.h"

namespace {

using rtb::storage::ThriftTransport;
using rtb::storage::server::StorageServerOptions;

constexpr char kProgram[] = "storage-server";
constexpr char kUsage[] =
    "usage: storage-server --path <dir> [options]\n"
    "  --path <dir>                  embedded store directory (created when missing); required\n"
    "  --bind <address>              address to listen on (default 127.0.0.1)\n"
    "  --port <n>                    TCP port, 0 picks a free one (default 9090)\n"
    "  --transport buffered|framed   Thrift transport; clients must match (default buffered)\n"
    "  --threads <n>                 connections served at once, one thread each (default 64)\n"
    "  --apply-schemas               create the bidder's tables (storage/schemas.h) if missing\n"
    "  --port-file <file>            write the bound port there once listening (and once\n"
    "                                /metrics is served)\n"
    "  --metrics-address <ip:port>   where /metrics is served, port 0 picks a free one;\n"
    "                                off serves none (default 127.0.0.1:9466)\n"
    "  --metrics-port-file <file>    write the metrics port there once listening\n"
    "  --max-message-bytes <n>       largest request accepted (default 67108864)\n"
    "  --idle-timeout-ms <n>         close connections idle this long, 0 never (default 60000)\n"
    "  --max-scanners <n>            scanners open at once (default 1000)\n"
    "  --scanner-idle-timeout-ms <n> close scanners unread this long (default 60000)\n"
    "  --block-cache-mb <n>          embedded block cache (default 256)\n"
    "  --memtable-budget-mb <n>      all memtables together, charged to the block cache; 0 off\n"
    "                                (default a quarter of the block cache)\n"
    "  --memory-trim-interval-ms <n> give free heap pages back to the system this often,\n"
    "                                0 never (default 10000)\n";

void Log(const std::string& line) { rtb::startup::Log(kProgram, line); }

int Fail(absl::string_view message) {
  return rtb::startup::FailStart(kProgram, std::string_view(message.data(), message.size()));
}

// --metrics-address that turns the endpoint (and the counting) off.
constexpr char kMetricsOff[] = "off";

struct Flags {
  std::string path;
  std::string port_file;
  std::string metrics_address = "127.0.0.1:9466";
  std::string metrics_port_file;
  bool apply_schemas = false;
  int64_t block_cache_mb = 256;
  int64_t memtable_budget_mb = -1;  // the store's default
  int64_t memory_trim_interval_ms = 10000;
  StorageServerOptions server;
};

rtb::startup::FlagParser::Outcome ParseFlags(int argc, char** argv, Flags& flags) {
  rtb::startup::FlagParser parser(kProgram, kUsage);
  parser.Text("--path", &flags.path);
  parser.Text("--port-file", &flags.port_file);
  parser.Text("--metrics-address", &flags.metrics_address);
  parser.Text("--metrics-port-file", &flags.metrics_port_file);
  parser.Text("--bind", &flags.server.bind);
  parser.Integer("--port", &flags.server.port);
  parser.Value("--transport", [&](std::string_view v) {
    if (v == "buffered") {
      flags.server.transport = ThriftTransport::kBuffered;
    } else if (v == "framed") {
      flags.server.transport = ThriftTransport::kFramed;
    } else {
      return false;
    }
    return true;
  });
  parser.Integer("--threads", &flags.server.threads);
  parser.Integer("--max-message-bytes", &flags.server.max_message_bytes);
  parser.Integer("--idle-timeout-ms", &flags.server.idle_timeout_ms);
  parser.Integer("--max-scanners", &flags.server.handler.max_open_scanners);
  parser.Integer("--scanner-idle-timeout-ms", &flags.server.handler.scanner_idle_timeout_ms);
  parser.Integer("--block-cache-mb", &flags.block_cache_mb, int64_t{1});
  parser.Integer("--memtable-budget-mb", &flags.memtable_budget_mb, int64_t{0});
  parser.Integer("--memory-trim-interval-ms", &flags.memory_trim_interval_ms, int64_t{0});
  parser.Switch("--apply-schemas", &flags.apply_schemas);
  parser.Require("--path");
  return parser.Parse(argc, argv);
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

// Flag values FlagParser cannot judge alone.
absl::Status CheckFlags(Flags& flags) {
  if (absl::Status s = rtb::storage::server::ValidateStorageServerOptions(flags.server); !s.ok()) {
    return s;
  }
  flags.server.metrics = flags.metrics_address != kMetricsOff;
  if (!flags.server.metrics) {
    if (!flags.metrics_port_file.empty()) {
      return absl::InvalidArgumentError("--metrics-port-file needs a --metrics-address, not off");
    }
    return absl::OkStatus();
  }
  if (absl::Status s = rtb::startup::CheckMetricsAddress(flags.metrics_address); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--metrics-address ", s.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<rtb::storage::Store>> OpenStore(const Flags& flags) {
  rtb::storage::EmbeddedStoreOptions store_options;
  store_options.path = flags.path;
  store_options.block_cache_bytes = flags.block_cache_mb << 20;
  if (flags.memtable_budget_mb >= 0)
    store_options.memtable_budget_bytes = flags.memtable_budget_mb << 20;
  absl::StatusOr<std::unique_ptr<rtb::storage::Store>> store =
      rtb::storage::OpenEmbeddedStore(store_options);
  if (!store.ok() || !flags.apply_schemas) return store;
  const std::vector<rtb::storage::TableSchema> tables = rtb::storage::BidderTables();
  if (absl::Status s = rtb::storage::ApplySchemas(**store, tables); !s.ok()) return s;
  Log(absl::StrCat("bidder tables present (", tables.size(), ")"));
  return store;
}

// The Thrift server and its /metrics endpoint (none when off).
struct Serving {
  std::unique_ptr<rtb::storage::server::StorageServer> server;
  std::unique_ptr<prometheus::Exposer> metrics;

  // The endpoint first: a scrape reads the server and the store.
  void Stop() {
    metrics.reset();
    if (server != nullptr) server->Stop();
    server.reset();
  }
};

// Serves `store`; the port files are written once both listen, the Thrift
// port's last, so that a reader of it finds the metrics port there too.
absl::StatusOr<Serving> Serve(rtb::storage::Store& store, const Flags& flags) {
  Serving serving;
  absl::StatusOr<std::unique_ptr<rtb::storage::server::StorageServer>> server =
      rtb::storage::server::StorageServer::Start(store, flags.server);
  if (!server.ok()) return server.status();
  serving.server = *std::move(server);
  absl::Status status;
  if (flags.server.metrics) {
    absl::StatusOr<std::unique_ptr<prometheus::Exposer>> exposer = rtb::startup::ServeMetrics(
        flags.metrics_address, serving.server->metrics(), flags.metrics_port_file);
    if (exposer.ok()) serving.metrics = *std::move(exposer);
    status = exposer.status();
  }
  if (status.ok() && !flags.port_file.empty()) {
    status = rtb::startup::WritePortFile(flags.port_file, serving.server->port());
  }
  if (!status.ok()) {
    serving.Stop();
    return status;
  }
  return serving;
}

std::string Describe(const Flags& flags, const Serving& serving) {
  const std::string& bind = flags.server.bind;
  const bool v6 = bind.find(':') != std::string::npos;
  return absl::StrCat(
      "serving ", flags.path, " on ", v6 ? "[" : "", bind, v6 ? "]" : "", ":",
      serving.server->port(), " (THBaseService, binary protocol, ",
      flags.server.transport == ThriftTransport::kFramed ? "framed" : "buffered", " transport, ",
      flags.server.threads, " threads); ",
      serving.metrics == nullptr
          ? std::string("metrics off")
          : absl::StrCat("metrics on port ", rtb::startup::MetricsPort(*serving.metrics)));
}

int Run(int argc, char** argv) {
  Flags flags;
  if (std::optional<int> exit_code = rtb::startup::ExitCodeAfter(ParseFlags(argc, argv, flags)))
    return *exit_code;
  if (absl::Status s = CheckFlags(flags); !s.ok()) return Fail(s.message());
  rtb::startup::TuneAllocatorForLongRuns();
  rtb::startup::BlockStopSignals();
  const rtb::startup::AllocatorTrimmer trimmer(
      std::chrono::milliseconds(flags.memory_trim_interval_ms));
  apache::thrift::GlobalOutput.setOutputFunction(
      [](const char* message) { Log(absl::StrCat("thrift: ", message)); });

  absl::StatusOr<std::unique_ptr<rtb::storage::Store>> store = OpenStore(flags);
  if (!store.ok()) return Fail(store.status().message());
  absl::StatusOr<Serving> serving = Serve(**store, flags);
  if (!serving.ok()) return Fail(serving.status().message());
  Log(Describe(flags, *serving));

  const std::string_view received = rtb::startup::WaitForStopSignal();
  Log(absl::StrCat("received ", std::string(received), ", finishing calls in progress"));
  serving->Stop();
  FlushEveryTable(**store);
  store->reset();
  Log("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  rtb::startup::ConfigureRuntime();
  return rtb::startup::RunMain(kProgram, [&] { return Run(argc, argv); });
}
