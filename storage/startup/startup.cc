#include "storage/startup/startup.h"

#include <arpa/inet.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "storage/embedded_store.h"
#include "storage/hbase_store.h"
#include "storage/schemas.h"

namespace rtb::startup {
namespace {

storage::EmbeddedStoreOptions EmbeddedOptions(const config::EmbeddedStorageConfig& config) {
  storage::EmbeddedStoreOptions options;
  options.path = config.path;
  options.block_cache_bytes = config.block_cache_mib << 20;
  options.in_memory_cache_fraction = config.in_memory_cache_fraction;
  options.row_cache_bytes = config.row_cache_mib << 20;
  options.write_buffer_bytes = config.write_buffer_mib << 20;
  options.memtable_budget_bytes =
      config.memtable_budget_mib < 0 ? -1 : config.memtable_budget_mib << 20;
  options.async_wal_flush_interval_ms = config.async_wal_flush_interval_ms;
  return options;
}

storage::HBaseStoreOptions HBaseOptions(const config::HBaseStorageConfig& config) {
  storage::HBaseStoreOptions options;
  options.endpoints = config.endpoints;
  options.transport = config.transport == config::ThriftTransport::kFramed
                          ? storage::ThriftTransport::kFramed
                          : storage::ThriftTransport::kBuffered;
  options.connect_timeout_ms = config.connect_timeout_ms;
  options.call_timeout_ms = config.call_timeout_ms;
  options.pool_size_per_endpoint = config.pool_size;
  options.hedge_delay_ms = config.hedge_delay_ms;
  options.io_threads = config.io_threads;
  return options;
}

absl::Status Annotate(const absl::Status& status, std::string_view what) {
  return absl::Status(status.code(), absl::StrCat(std::string(what), ": ", status.message()));
}

sigset_t StopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  return signals;
}

}  // namespace

void Log(std::string_view program, std::string_view line) {
  const std::string stamp =
      absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone());
  const std::string text =
      absl::StrCat(stamp, " ", std::string(program), ": ", std::string(line), "\n");
  std::fwrite(text.data(), 1, text.size(), stderr);
}

std::function<void()> ExitWhenWorkerIdIsLost(std::string program) {
  return [program = std::move(program)] {
    Log(program,
        "gave up its pacing worker id (its lease ran out and another process held the id, or "
        "wrote under it, meanwhile): exiting so that a restart leases an id again");
    std::_Exit(kExitWorkerIdLost);
  };
}

FlagParser::FlagParser(std::string program, std::string usage)
    : program_(std::move(program)), usage_(std::move(usage)) {}

void FlagParser::Value(std::string name, std::function<bool(std::string_view)> parse) {
  flags_.push_back({std::move(name), std::move(parse)});
}

void FlagParser::Text(std::string name, std::string* out) {
  Value(std::move(name), [out](std::string_view text) {
    *out = std::string(text);
    return !text.empty();
  });
}

void FlagParser::Switch(std::string name, bool* out) {
  Flag flag;
  flag.name = std::move(name);
  flag.switched = out;
  flags_.push_back(std::move(flag));
}

void FlagParser::Require(std::string name) {
  for (Flag& flag : flags_) {
    if (flag.name == name) flag.required = true;
  }
}

FlagParser::Flag* FlagParser::Find(std::string_view argument) {
  for (Flag& flag : flags_) {
    const std::string_view name = flag.name;
    if (argument == name) return &flag;
    if (flag.parse && argument.starts_with(name) && argument.size() > name.size() &&
        argument[name.size()] == '=') {
      return &flag;
    }
  }
  return nullptr;
}

FlagParser::Outcome FlagParser::Error(std::string_view problem) {
  const std::string text = absl::StrCat(program_, ": ", std::string(problem), "\n", usage_);
  std::fwrite(text.data(), 1, text.size(), stderr);
  return Outcome::kError;
}

FlagParser::Outcome FlagParser::Parse(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (argument == "--help" || argument == "-h") {
      std::fwrite(usage_.data(), 1, usage_.size(), stdout);
      return Outcome::kHelp;
    }
    Flag* flag = Find(argument);
    if (flag == nullptr)
      return Error(absl::StrCat("unknown argument \"", std::string(argument), "\""));
    flag->seen = true;
    if (!flag->parse) {
      *flag->switched = true;
      continue;
    }
    std::string_view value;
    if (argument.size() > flag->name.size()) {
      value = argument.substr(flag->name.size() + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return Error(absl::StrCat(flag->name, " needs a value"));
    }
    if (!flag->parse(value)) {
      return Error(value.empty()
                       ? absl::StrCat(flag->name, " needs a non-empty value")
                       : absl::StrCat("bad value \"", std::string(value), "\" for ", flag->name));
    }
  }
  for (const Flag& flag : flags_) {
    if (flag.required && !flag.seen) return Error(absl::StrCat(flag.name, " is required"));
  }
  return Outcome::kRun;
}

absl::Status WritePortFile(const std::string& path, int port) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << port << "\n";
    if (!out.flush()) return absl::UnavailableError("cannot write the port file " + path);
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) return absl::UnavailableError("cannot write the port file " + path);
  return absl::OkStatus();
}

std::optional<int> ExitCodeAfter(FlagParser::Outcome outcome) {
  switch (outcome) {
    case FlagParser::Outcome::kRun:
      return std::nullopt;
    case FlagParser::Outcome::kHelp:
      return 0;
    case FlagParser::Outcome::kError:
      return 1;
  }
  return 1;
}

int FailStart(std::string_view program, std::string_view message) {
  Log(program, std::string("error: ").append(message));
  return 1;
}

void TuneAllocatorForLongRuns() {
  constexpr int kMmapThresholdBytes = 1 << 20;
  if (std::getenv("MALLOC_MMAP_THRESHOLD_") == nullptr)
    mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes);
}

int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size_pages = 0;
  int64_t resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  return resident_pages * static_cast<int64_t>(::sysconf(_SC_PAGESIZE));
}

AllocatorTrimmer::AllocatorTrimmer(std::chrono::milliseconds interval) {
  if (interval.count() > 0) thread_ = std::thread([this, interval] { Run(interval); });
}

AllocatorTrimmer::~AllocatorTrimmer() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

int64_t AllocatorTrimmer::trims() const {
  absl::MutexLock lock(&mutex_);
  return trims_;
}

void AllocatorTrimmer::Run(std::chrono::milliseconds interval) {
  const absl::Duration period = absl::FromChrono(interval);
  absl::MutexLock lock(&mutex_);
  while (!mutex_.AwaitWithTimeout(absl::Condition(&stopping_), period)) {
    mutex_.Unlock();
    malloc_trim(0);
    mutex_.Lock();
    ++trims_;
  }
}

void BlockStopSignals() {
  const sigset_t signals = StopSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

std::string_view WaitForStopSignal() {
  const sigset_t signals = StopSignals();
  int received = 0;
  while (sigwait(&signals, &received) != 0) {
  }
  return received == SIGINT ? "SIGINT" : "SIGTERM";
}

std::string DescribeStore(const config::StorageConfig& config) {
  if (config.backend == config::StorageBackend::kEmbedded) {
    return absl::StrCat("embedded store at ", config.embedded.path);
  }
  return absl::StrCat(config::StorageBackendName(config.backend), " store at ",
                      absl::StrJoin(config.hbase.endpoints, ","));
}

absl::StatusOr<std::unique_ptr<storage::Store>> OpenConfiguredStore(
    const config::StorageConfig& config) {
  absl::StatusOr<std::unique_ptr<storage::Store>> store =
      config.backend == config::StorageBackend::kEmbedded
          ? storage::OpenEmbeddedStore(EmbeddedOptions(config.embedded))
          : storage::OpenHBaseStore(HBaseOptions(config.hbase));
  if (!store.ok()) return Annotate(store.status(), "cannot open " + DescribeStore(config));
  return store;
}

absl::StatusOr<std::unique_ptr<storage::Store>> OpenBidderStore(
    const config::BidderConfig& config) {
  absl::StatusOr<std::unique_ptr<storage::Store>> store = OpenConfiguredStore(config.storage);
  if (!store.ok()) return store;
  storage::TableOptions tables;
  tables.attribution_window_seconds = config.bid.attribution_window_s;
  tables.session_lifetime_seconds = config.sessions.absolute_lifetime_s;
  if (absl::Status s = storage::ApplySchemas(**store, storage::BidderTables(tables)); !s.ok()) {
    return Annotate(s, "cannot create the bidder's tables in the " + DescribeStore(config.storage));
  }
  return store;
}

void ConfigureRuntime() {
#ifdef NDEBUG
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
#endif
}

int RunMain(std::string_view program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    // Exceptions stay out of the request path; one that reaches here came
    // from start-up or shutdown.
    Log(program, absl::StrCat("error: unexpected failure: ", e.what()));
    return 1;
  }
}

absl::Status CheckMetricsAddress(std::string_view address) {
  const auto bad = [address](const char* why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", std::string(address), "\" is not <IPv4>:<port> or [<IPv6>]:<port> (", why, ")"));
  };
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) return bad("no port");
  std::string host(address.substr(0, colon));
  const std::string_view port_text = address.substr(colon + 1);
  int port = -1;
  const auto [end, error] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || error != std::errc() || end != port_text.data() + port_text.size() ||
      port < 0 || port > 65535) {
    return bad("the port must be in [0, 65535]");
  }
  int family = AF_INET;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    family = AF_INET6;
    host = host.substr(1, host.size() - 2);
  }
  unsigned char parsed[sizeof(in6_addr)];
  if (::inet_pton(family, host.c_str(), parsed) != 1) return bad("no IP address to listen on");
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<prometheus::Exposer>> ServeMetrics(
    const std::string& address, const std::shared_ptr<prometheus::Collectable>& metrics,
    const std::string& port_file) {
  if (absl::Status s = CheckMetricsAddress(address); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("metrics address ", s.message()));
  }
  std::unique_ptr<prometheus::Exposer> exposer;
  try {
    exposer = std::make_unique<prometheus::Exposer>(address);
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve metrics at ", address, ": ", e.what()));
  }
  exposer->RegisterCollectable(metrics);
  if (!port_file.empty()) {
    if (absl::Status s = WritePortFile(port_file, MetricsPort(*exposer)); !s.ok()) return s;
  }
  return exposer;
}

uint16_t MetricsPort(const prometheus::Exposer& exposer) {
  const std::vector<int> ports = exposer.GetListeningPorts();
  return ports.empty() ? 0 : static_cast<uint16_t>(ports.front());
}

}  // namespace rtb::startup
