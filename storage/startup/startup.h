// What every process of the project does around its own work (rtb-bidder,
// rtb-pacer, storage-server, rtb-seed-profiles): command-line flags, one-line
// logs on stderr, the port file, waiting for SIGTERM or SIGINT, and opening
// the store that a configuration names, with the bidder's tables in it.
//
// Conventions every process keeps: a start-up error is one line on stderr
// naming the problem and exit code 1 (bad flags included); --help prints the
// usage on stdout and exits 0; a stop signal drains and exits 0.
//
// It lives beside storage because opening the configured store is the part
// the processes share most; it may call storage and config only.
//
// Thread-safety: Log may be called from any thread. The rest is for the main
// thread at start-up and shutdown.
#ifndef RTB_STORAGE_STARTUP_STARTUP_H_
#define RTB_STORAGE_STARTUP_STARTUP_H_

#include <charconv>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "config/config.h"
#include "prometheus/collectable.h"
#include "prometheus/exposer.h"
#include "prometheus/registry.h"
#include "storage/store.h"

namespace rtb::startup {

// One line on stderr: "<UTC time, ms> <program>: <line>".
void Log(std::string_view program, std::string_view line);

// Exit code of a process that gave its worker id up (its lease ran out, and
// another process held or used the id meanwhile): EX_TEMPFAIL, a restart
// leases an id again.
inline constexpr int kExitWorkerIdLost = 75;

// For PacerOptions::on_worker_id_lost: logs why, then ends the process at
// once with kExitWorkerIdLost, without the drain (nothing more may be
// written under the id; what was acknowledged is in the spend journal and
// the beacon log, which the id's holder and the restart recover).
std::function<void()> ExitWhenWorkerIdIsLost(std::string program);

// --name VALUE or --name=VALUE for flags with a value, --name for switches;
// --help or -h prints the usage. Problems name the flag, then the usage
// follows, all on stderr.
class FlagParser {
 public:
  enum class Outcome {
    kRun,    // every flag read: go on
    kHelp,   // usage printed on stdout: exit 0
    kError,  // problem printed on stderr: exit 1
  };

  FlagParser(std::string program, std::string usage);

  // `parse` takes the value; false is "bad value".
  void Value(std::string name, std::function<bool(std::string_view)> parse);
  // A non-empty string.
  void Text(std::string name, std::string* out);
  // A whole number in the range of Int, at least `min` when given (sizes,
  // counts); `*out` keeps its default unless the value is good.
  template <typename Int>
  void Integer(std::string name, Int* out, Int min = std::numeric_limits<Int>::min()) {
    Value(std::move(name), [out, min](std::string_view text) {
      Int value{};
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (error != std::errc() || end != text.data() + text.size() || value < min) return false;
      *out = value;
      return true;
    });
  }
  // A flag without a value, true when given.
  void Switch(std::string name, bool* out);
  // Parse reports kError when `name` was not given.
  void Require(std::string name);

  Outcome Parse(int argc, char** argv);

 private:
  struct Flag {
    std::string name;
    std::function<bool(std::string_view)> parse;  // null for a switch
    bool* switched = nullptr;
    bool required = false;
    bool seen = false;
  };
  Flag* Find(std::string_view argument);
  Outcome Error(std::string_view problem);

  std::string program_;
  std::string usage_;
  std::vector<Flag> flags_;
};

// The exit code a process leaves with after FlagParser::Parse: none for
// kRun (go on), 0 after --help, 1 after a bad flag.
std::optional<int> ExitCodeAfter(FlagParser::Outcome outcome);

// Logs "error: <message>" for `program` and answers 1, the exit code of a
// start-up error.
int FailStart(std::string_view program, std::string_view message);

// Writes "<port>\n" to `path` whole: under a temporary name, then renamed, so
// a reader never sees a partial number.
absl::Status WritePortFile(const std::string& path, int port);

// Serves `metrics` (a registry, or a collectable of its own) at
// http://`address`/metrics (port 0 picks a free one) and, when `port_file`
// is given, writes the port it listens on there: the metrics endpoint of the
// processes without an HTTP server of their own (rtb-pacer, rtb-stream,
// storage-server). The exposer holds `metrics` weakly. An address that is
// not CheckMetricsAddress's form is InvalidArgument, one that cannot be
// bound Unavailable.
absl::StatusOr<std::unique_ptr<prometheus::Exposer>> ServeMetrics(
    const std::string& address, const std::shared_ptr<prometheus::Collectable>& metrics,
    const std::string& port_file);
// OK for "<IPv4 address>:<port>" and "[<IPv6 address>]:<port>", port 0 to
// 65535; else InvalidArgument '"<address>" is not ... (<why>)', for the
// caller to prefix with the flag's name. The HTTP server behind ServeMetrics
// would take more (a bare port listens on every interface, a comma a second
// address), none of it meant.
absl::Status CheckMetricsAddress(std::string_view address);
// The port `exposer` listens on; 0 when none.
uint16_t MetricsPort(const prometheus::Exposer& exposer);

// Sets glibc malloc for a process that runs for days, before its threads
// start. Large blocks (1 MiB and up: compaction and flush buffers, memtable
// arenas) are always mapped on their own and unmapped when freed: by
// default glibc raises that threshold each time such a block is freed, after
// which the same buffers come from the arenas and stay there, held but
// free, a step up in resident memory at every compaction. The environment's
// MALLOC_MMAP_THRESHOLD_ wins when set.
void TuneAllocatorForLongRuns();

// The resident memory of this process (the second field of
// /proc/self/statm), bytes; 0 when it cannot be read.
int64_t ResidentBytes();

// Gives the C allocator's free pages back to the system every `interval`
// (malloc_trim), from a thread of its own, until destroyed. glibc keeps the
// memory its arenas freed (cache entries evicted, compaction and flush
// buffers, blocks freed on another thread than the one that allocated them)
// resident until the same arena reuses it; over a long run that is a
// hundred MiB or more that RSS counts but nothing uses. Trimming keeps the
// address space and releases the pages, so RSS follows what is in use. An
// interval of zero starts no thread.
class AllocatorTrimmer {
 public:
  explicit AllocatorTrimmer(std::chrono::milliseconds interval);
  ~AllocatorTrimmer();
  AllocatorTrimmer(const AllocatorTrimmer&) = delete;
  AllocatorTrimmer& operator=(const AllocatorTrimmer&) = delete;

  // Trims done so far.
  int64_t trims() const;

 private:
  void Run(std::chrono::milliseconds interval);

  mutable absl::Mutex mutex_;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  int64_t trims_ ABSL_GUARDED_BY(mutex_) = 0;
  std::thread thread_;
};

// Blocks SIGTERM and SIGINT and ignores SIGPIPE. Call before any thread
// starts: threads inherit the mask, so only WaitForStopSignal receives the
// signals, and one that arrives during start-up is served as soon as the
// process waits for it (a clean shutdown).
void BlockStopSignals();
// Waits for SIGTERM or SIGINT and returns "SIGTERM" or "SIGINT".
std::string_view WaitForStopSignal();

// The store `config` names: the embedded engine, or HBase / a storage-server
// through Thrift2. Errors name the backend and where it is.
absl::StatusOr<std::unique_ptr<storage::Store>> OpenConfiguredStore(
    const config::StorageConfig& config);
// "embedded store at <path>" or "<backend> store at <endpoints>", for logs
// and errors.
std::string DescribeStore(const config::StorageConfig& config);
// OpenConfiguredStore, then the bidder's tables (storage/schemas.h) created
// where missing, with the TTLs `config` sets.
absl::StatusOr<std::unique_ptr<storage::Store>> OpenBidderStore(const config::BidderConfig& config);

// Process-wide runtime settings for serving: abseil's mutex deadlock
// detection is turned off in optimised builds (NDEBUG), where it records
// every lock in a global graph and showed on the bid path's profile; debug
// and sanitizer builds keep it. Call first thing in main.
void ConfigureRuntime();

// `body()`'s exit code. An exception that escapes it (start-up or shutdown
// only: out of memory, no threads) is logged and exit code 1.
int RunMain(std::string_view program, const std::function<int()>& body);

}  // namespace rtb::startup

#endif  // RTB_STORAGE_STARTUP_STARTUP_H_
