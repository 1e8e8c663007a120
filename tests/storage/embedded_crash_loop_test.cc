// The embedded engine killed again and again under a mixed load: a writer
// process (crash_loop_writer.cc) runs whole-row Puts, CheckAndMutates and
// Increments with nonces, all SYNC_WAL, with readers checking rows alongside,
// and is killed with SIGKILL at a random moment. After each kill the store is
// reopened here and checked: every acknowledged write is there, the
// Increments that were in flight are retried with their nonce (as a client
// would) and then count exactly once, and no row is torn, neither in what the
// readers saw nor on disk.
//
// It runs RTB_CRASH_LOOP_CYCLES cycles (default 100, about a minute); a longer run is
//   RTB_CRASH_LOOP_CYCLES=1000 build/tests/storage/storage_crash_loop_tests
// RTB_CRASH_LOOP_SEED repeats a run (the seed is printed).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "storage/embedded_store.h"
#include "tests/storage/crash_loop.h"
#include "tests/storage/test_store.h"

extern char** environ;

namespace rtb::storage::testing::crash_loop {
namespace {

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  int n = 0;
  return v != nullptr && absl::SimpleAtoi(v, &n) && n > 0 ? n : fallback;
}

struct Operation {
  char kind = 0;  // P (Put), C (CheckAndMutate), I (Increment)
  std::string row;
  std::string token;     // P, C
  std::string expected;  // C: the token the writer checked for ("" = absent)
  uint64_t nonce = 0;    // I
  int64_t amount = 0;    // I
  bool acked = false;
  bool failed = false;
  std::string error;
};

// What one life of the writer reported.
struct Life {
  bool ready = false;
  std::vector<std::string> order;  // op ids in the order they began
  std::map<std::string, Operation> ops;
  uint64_t reads = 0;
  uint64_t torn = 0;
  std::vector<std::string> malformed;

  void Parse(std::string_view line) {
    std::vector<std::string> f = absl::StrSplit(absl::string_view(line.data(), line.size()), ' ');
    if (line == "ready") {
      ready = true;
    } else if (f[0] == "R" && f.size() == 3) {
      if (!absl::SimpleAtoi(f[1], &reads) || !absl::SimpleAtoi(f[2], &torn)) {
        malformed.emplace_back(line);
      }
    } else if (f[0] == "A" && f.size() == 2 && ops.contains(f[1])) {
      ops[f[1]].acked = true;
    } else if (f[0] == "E" && f.size() >= 2 && ops.contains(f[1])) {
      Operation& op = ops[f[1]];
      op.failed = true;
      op.error = std::string(line);
    } else if (f[0] == "B" && f.size() >= 5) {
      Operation op;
      op.kind = f[2].empty() ? 0 : f[2][0];
      op.row = f[3];
      bool ok = true;
      if (op.kind == 'P' && f.size() == 5) {
        op.token = f[4];
      } else if (op.kind == 'C' && f.size() == 6) {
        op.token = f[4];
        op.expected = f[5] == "-" ? "" : f[5];
      } else if (op.kind == 'I' && f.size() == 6) {
        ok = absl::SimpleAtoi(f[4], &op.nonce) && absl::SimpleAtoi(f[5], &op.amount);
      } else {
        ok = false;
      }
      if (!ok) {
        malformed.emplace_back(line);
        return;
      }
      order.push_back(f[1]);
      ops[f[1]] = std::move(op);
    } else {
      malformed.emplace_back(line);
    }
  }
};

struct Totals {
  int cycles = 0;
  uint64_t acked = 0;
  uint64_t acked_puts = 0;
  uint64_t acked_checks = 0;
  uint64_t acked_increments = 0;
  uint64_t in_flight_increments = 0;
  uint64_t in_flight_applied = 0;  // in flight, yet already counted before the retry
  uint64_t reads = 0;
  uint64_t torn_reads = 0;
  uint64_t torn_rows_after_restart = 0;
};

class CrashLoopTest : public EmbeddedStoreTest {
 protected:
  void SetUp() override {
    path_ = TempDir("crash-loop");
    clock_ = std::make_shared<ManualClock>(0);
  }
  void TearDown() override {
    EmbeddedStoreTest::TearDown();
    std::filesystem::remove(path_ + ".stderr");
  }

  void OpenStore() {
    EmbeddedStoreOptions options;
    options.path = path_;
    options.block_cache_bytes = 8 << 20;
    options.memtable_budget_bytes = 2 << 20;
    auto store = OpenEmbeddedStore(options);  // the system clock, as the writer's
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }

  // Runs one life of the writer and kills it `kill_after` past its "ready".
  Life RunWriter(int cycle, uint64_t seed, std::chrono::milliseconds kill_after) {
    Life life;
    int out[2];
    if (::pipe(out) != 0) {
      ADD_FAILURE() << "pipe";
      return life;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    posix_spawn_file_actions_addclose(&actions, out[1]);
    const std::string err = path_ + ".stderr";
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> args = {RTB_CRASH_LOOP_WRITER, path_, std::to_string(cycle),
                                     std::to_string(seed)};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    if (rc != 0) {
      ::close(out[0]);
      ADD_FAILURE() << "cannot start the writer";
      return life;
    }
    using Clock = std::chrono::steady_clock;
    Clock::time_point kill_at = Clock::now() + std::chrono::seconds(30);  // until ready
    bool killed = false;
    std::string pending;
    char buf[65536];
    for (;;) {
      const auto now = Clock::now();
      if (!killed && now >= kill_at) {
        ::kill(pid, SIGKILL);
        killed = true;
      }
      pollfd p{out[0], POLLIN, 0};
      const int wait_ms =
          killed
              ? 5000
              : static_cast<int>(
                    std::chrono::duration_cast<std::chrono::milliseconds>(kill_at - now).count()) +
                    1;
      if (::poll(&p, 1, wait_ms) == 0) {
        if (killed) break;  // no EOF 5 s after the kill: give up on the pipe
        continue;
      }
      const ssize_t n = ::read(out[0], buf, sizeof(buf));
      if (n <= 0) break;
      pending.append(buf, static_cast<size_t>(n));
      size_t start = 0;
      for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
        const bool was_ready = life.ready;
        life.Parse(std::string_view(pending).substr(start, nl - start));
        if (!was_ready && life.ready && !killed) kill_at = Clock::now() + kill_after;
      }
      pending.erase(0, start);
    }
    ::close(out[0]);
    if (!killed) ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "the writer exited by itself (status " << status << ")";
    EXPECT_TRUE(life.ready) << "the writer never became ready";
    return life;
  }

  // Checks the store after `life` against what earlier lives left, retries
  // the Increments in flight, and moves the expected state forward.
  void CheckAfterRestart(int cycle, const Life& life, Totals& totals) {
    EXPECT_TRUE(life.malformed.empty()) << life.malformed.front();
    totals.reads += life.reads;
    totals.torn_reads += life.torn;
    EXPECT_EQ(life.torn, 0u) << "cycle " << cycle << ": readers saw torn rows";

    // Overwritten rows: their final value is the last acknowledged write or
    // the one in flight, and it is whole.
    std::map<std::string, std::pair<std::string, std::string>> last;  // row -> acked, in flight
    std::set<std::string> log_acked, log_in_flight;
    std::map<std::string, int64_t> counted;  // counter row -> acknowledged amounts
    std::vector<const Operation*> in_flight_increments, acked_increments;
    for (const std::string& id : life.order) {
      const Operation& op = life.ops.at(id);
      EXPECT_FALSE(op.failed) << "cycle " << cycle << ": " << op.error;
      if (op.acked) {
        ++totals.acked;
        if (op.kind == 'P') ++totals.acked_puts;
        if (op.kind == 'C') ++totals.acked_checks;
        if (op.kind == 'I') ++totals.acked_increments;
      }
      if (op.kind == 'I') {
        if (op.acked) {
          counted[op.row] += op.amount;
          acked_increments.push_back(&op);
        } else if (!op.failed) {
          in_flight_increments.push_back(&op);
        }
        continue;
      }
      if (op.row.starts_with(LogRowPrefix(cycle))) {
        (op.acked ? log_acked : log_in_flight).insert(op.row + " " + op.token);
        continue;
      }
      auto [it, inserted] = last.try_emplace(op.row, rows_[op.row], "");
      if (op.kind == 'C') {
        EXPECT_EQ(op.expected, it->second.first)
            << "cycle " << cycle << ": the writer checked " << op.row << " for a token it did "
            << "not hold after the restart";
      }
      if (op.acked) {
        it->second = {op.token, ""};
      } else {
        it->second.second = op.token;
      }
    }
    for (int t = 0; t < kWriterThreads; ++t) {
      for (int k = 0; k < kOverwrittenRowsPerThread; ++k) {
        const std::string row = OverwrittenRow(t, k);
        Get get;
        get.row = row;
        std::optional<std::string> token = WholeRowToken(MustGet(kAcidTable, get));
        if (!token) {
          ++totals.torn_rows_after_restart;
          ADD_FAILURE() << "cycle " << cycle << ": row " << row << " is torn on disk";
          continue;
        }
        auto it = last.find(row);
        if (it != last.end()) {
          const auto& [acked, in_flight] = it->second;
          EXPECT_TRUE(*token == acked || (!in_flight.empty() && *token == in_flight))
              << "cycle " << cycle << ": " << row << " holds '" << *token << "', acknowledged '"
              << acked << "', in flight '" << in_flight << "'";
        } else {
          EXPECT_EQ(*token, rows_[row]) << "cycle " << cycle << ": " << row << " changed unwritten";
        }
        rows_[row] = *token;
      }
    }

    // Rows written once: every acknowledged one is there and whole; the one
    // in flight may be; nothing else is.
    Scan scan;
    scan.prefix = LogRowPrefix(cycle);
    scan.limit = kMaxScanRows;
    std::set<std::string> found;
    for (const RowResult& row : MustScan(kAcidTable, scan)) {
      std::optional<std::string> token = WholeRowToken(row);
      if (!token) {
        ++totals.torn_rows_after_restart;
        ADD_FAILURE() << "cycle " << cycle << ": row " << row.row << " is torn on disk";
        continue;
      }
      found.insert(row.row + " " + *token);
    }
    for (const std::string& w : log_acked) {
      EXPECT_TRUE(found.contains(w)) << "cycle " << cycle << ": acknowledged write lost: " << w;
    }
    for (const std::string& w : found) {
      EXPECT_TRUE(log_acked.contains(w) || log_in_flight.contains(w))
          << "cycle " << cycle << ": a row nobody wrote: " << w;
    }

    // Counters: at least every acknowledged amount; after the retries of what
    // was in flight, exactly every amount once.
    for (const auto& [row, amount] : counted) counters_[row] += amount;
    std::map<std::string, int64_t> in_flight_amounts;
    for (const Operation* op : in_flight_increments) in_flight_amounts[op->row] += op->amount;
    for (int k = 0; k < kCounterRows; ++k) {
      const std::string row = CounterRow(k);
      const int64_t before = Counter(row);
      EXPECT_GE(before, counters_[row]) << "cycle " << cycle << ": acknowledged increments lost";
      EXPECT_LE(before, counters_[row] + in_flight_amounts[row]) << "cycle " << cycle;
    }
    for (const Operation* op : in_flight_increments) {
      ++totals.in_flight_increments;
      const int64_t before = Counter(op->row);
      Increment retry;
      retry.row = op->row;
      for (const char* f : kFamilies) retry.columns.push_back({f, kCounterColumn, op->amount});
      retry.nonce = op->nonce;
      retry.durability = Durability::kSyncWal;
      auto answer = store_->Increment(kCountersTable, retry);
      ASSERT_TRUE(answer.ok()) << answer.status();
      if (Counter(op->row) == before) ++totals.in_flight_applied;
      counters_[op->row] += op->amount;
    }
    // A client that never saw an acknowledgement retries those too.
    for (size_t i = 0; i < acked_increments.size() && i < 3; ++i) {
      const Operation* op = acked_increments[acked_increments.size() - 1 - i];
      Increment retry;
      retry.row = op->row;
      for (const char* f : kFamilies) retry.columns.push_back({f, kCounterColumn, op->amount});
      retry.nonce = op->nonce;
      ASSERT_TRUE(store_->Increment(kCountersTable, retry).ok());
    }
    for (int k = 0; k < kCounterRows; ++k) {
      const std::string row = CounterRow(k);
      EXPECT_EQ(Counter(row), counters_[row]) << "cycle " << cycle << ": counter " << row;
    }
  }

  // Both columns of a counter row, which must agree.
  int64_t Counter(const std::string& row) {
    Get get;
    get.row = row;
    RowResult r = MustGet(kCountersTable, get);
    const std::optional<int64_t> a = r.Counter(kFamilies[0], kCounterColumn);
    const std::optional<int64_t> b = r.Counter(kFamilies[1], kCounterColumn);
    EXPECT_EQ(a, b) << "counter " << row << " is torn";
    return a.value_or(0);
  }

  std::map<std::string, std::string> rows_;  // overwritten row -> token ("" absent)
  std::map<std::string, int64_t> counters_;  // counter row -> expected value
};

TEST_F(CrashLoopTest, AcknowledgedWritesSurviveRepeatedKillsAndNoRowIsEverTorn) {
  const int cycles = EnvInt("RTB_CRASH_LOOP_CYCLES", 100);
  const uint64_t seed = static_cast<uint64_t>(
      EnvInt("RTB_CRASH_LOOP_SEED", static_cast<int>(std::random_device()() & 0x7fffffff)));
  std::mt19937_64 rng(seed);
  std::printf("crash loop: %d cycles, seed %llu (RTB_CRASH_LOOP_SEED)\n", cycles,
              static_cast<unsigned long long>(seed));
  Totals totals;
  const auto start = std::chrono::steady_clock::now();
  for (int cycle = 0; cycle < cycles && !HasFatalFailure(); ++cycle) {
    const auto kill_after = std::chrono::milliseconds(20 + rng() % 280);
    Life life = RunWriter(cycle, rng(), kill_after);
    OpenStore();
    if (HasFatalFailure()) break;
    CheckAfterRestart(cycle, life, totals);
    store_.reset();
    ++totals.cycles;
    if (HasFailure()) break;  // the first broken cycle tells the story
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "crash loop: %d cycles in %.1f s; acknowledged ops checked %llu (puts %llu, "
      "check-and-mutates %llu, increments %llu); in-flight increments retried %llu (%llu had "
      "already been applied); reads %llu, torn reads %llu, torn rows after restart %llu\n",
      totals.cycles, seconds, static_cast<unsigned long long>(totals.acked),
      static_cast<unsigned long long>(totals.acked_puts),
      static_cast<unsigned long long>(totals.acked_checks),
      static_cast<unsigned long long>(totals.acked_increments),
      static_cast<unsigned long long>(totals.in_flight_increments),
      static_cast<unsigned long long>(totals.in_flight_applied),
      static_cast<unsigned long long>(totals.reads),
      static_cast<unsigned long long>(totals.torn_reads),
      static_cast<unsigned long long>(totals.torn_rows_after_restart));
  EXPECT_EQ(totals.cycles, cycles);
  EXPECT_GT(totals.acked, static_cast<uint64_t>(cycles)) << "the load barely ran";
  EXPECT_GT(totals.reads, 0u);
  EXPECT_EQ(totals.torn_reads, 0u);
  EXPECT_EQ(totals.torn_rows_after_restart, 0u);
}

}  // namespace
}  // namespace rtb::storage::testing::crash_loop
