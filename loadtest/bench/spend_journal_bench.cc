// What the spend journal (pacing/pacer.h, "Spend journal") costs a billing
// notice, on the embedded store in a temporary directory:
//
//   build/loadtest/bench/spend_journal_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
//
// BM_ClaimAndRecord is step 3 of the beacon path (beacon_handler.h) as it
// was without a journal: the impression claim (CheckAndMutate, SYNC_WAL, the
// row's six columns) and SpendRecorder::Record. BM_ClaimWithJournal is the
// same step with the journal: Begin (one SYNC_WAL Put of the entry), the
// claim naming the entry, Commit. Their difference is the journal's cost
// per billing notice; the threaded runs show how RocksDB's group commit
// shares the extra WAL sync between concurrent notices. Wall time (real
// time) is what a notice waits; SYNC_WAL mostly waits on the disk.
//
// BM_FlushJournal is the pacing loop's side: one flush of `range(0)`
// committed entries over 20 campaigns (20 SYNC_WAL Increments moving spend
// and position, then the entries' rows deleted in batches), per entry.
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "config/config.h"
#include "pacing/pacer.h"
#include "storage/embedded_store.h"
#include "storage/key_bytes.h"
#include "storage/schemas.h"
#include "storage/store.h"

namespace rtb::pacing {
namespace {

constexpr int kCampaigns = 20;

std::string BenchDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("rtb-bench-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

// A store with the bidder's tables and a Pacer (not started: no loop
// thread) over it.
struct Fixture {
  std::string path;
  std::unique_ptr<storage::Store> store;
  std::unique_ptr<Pacer> pacer;

  explicit Fixture(bool journal) : path(BenchDir(journal ? "journal" : "recorder")) {
    storage::EmbeddedStoreOptions options;
    options.path = path;
    store = *storage::OpenEmbeddedStore(options);
    if (!storage::ApplySchemas(*store, storage::BidderTables()).ok()) std::abort();
    config::BidderConfig config;
    for (int i = 0; i < kCampaigns; ++i) {
      config::CampaignConfig campaign;
      campaign.id = "campaign-" + std::to_string(i);
      campaign.daily_budget_micros = 1'000'000'000'000;
      campaign.time_zone = "UTC";
      campaign.currency = "USD";
      config.campaigns.push_back(campaign);
    }
    PacerOptions pacer_options;
    pacer_options.spend_journal = journal;
    absl::StatusOr<std::unique_ptr<Pacer>> created =
        Pacer::Create(config, *store, nullptr, pacer_options);
    if (!created.ok()) std::abort();
    pacer = *std::move(created);
  }
  ~Fixture() {
    pacer.reset();
    store.reset();
    std::filesystem::remove_all(path);
  }
};

std::atomic<uint64_t> next_impression{1};

std::string ImpressionId() {
  std::string id;
  storage::AppendBigEndian64(next_impression++ * 0x9e3779b97f4a7c15ull, &id);
  storage::AppendBigEndian64(0x0123456789abcdefull, &id);
  return id;
}

// The beacon path's claim of an impression row (notice_beacons.cc).
bool Claim(storage::Store& store, const std::string& impression_id, std::string_view journal_key) {
  storage::CheckAndMutate claim;
  claim.row = impression_id;
  claim.family = std::string(storage::kImpressionFamily);
  claim.qualifier = "c";
  storage::Put row;
  row.row = impression_id;
  auto column = [&](std::string qualifier, std::string value) {
    row.values.push_back({std::string(storage::kImpressionFamily), std::move(qualifier),
                          std::move(value), std::nullopt});
  };
  column("c", "campaign-7");
  column("cr", "creative-300x250");
  column("x", "sample-exchange");
  column("dk", std::string(16, '\x5a'));
  column("spend", storage::EncodeCounter(1840));
  column("ts", storage::EncodeCounter(1791115200000));
  if (!journal_key.empty())
    column(std::string(storage::kImpressionJournalColumn), std::string(journal_key));
  row.durability = storage::Durability::kSyncWal;
  claim.puts.push_back(std::move(row));
  absl::StatusOr<bool> claimed = store.CheckAndMutate(storage::kImpressionsTable, claim);
  return claimed.ok() && *claimed;
}

Fixture* shared = nullptr;

void SetUpShared(const benchmark::State& state, bool journal) {
  if (state.thread_index() == 0) shared = new Fixture(journal);
}
void TearDownShared(const benchmark::State& state) {
  if (state.thread_index() == 0) {
    delete shared;
    shared = nullptr;
  }
}

void BM_ClaimAndRecord(benchmark::State& state) {
  SetUpShared(state, false);
  size_t campaign = static_cast<size_t>(state.thread_index());
  for (auto _ : state) {
    const std::string id = ImpressionId();
    if (!Claim(*shared->store, id, "")) std::abort();
    shared->pacer->spend().Record(campaign, 1840);
    campaign = (campaign + 1) % kCampaigns;
  }
  state.SetItemsProcessed(state.iterations());
  TearDownShared(state);
}
BENCHMARK(BM_ClaimAndRecord)->Threads(1)->Threads(4)->UseRealTime();

void BM_ClaimWithJournal(benchmark::State& state) {
  SetUpShared(state, true);
  size_t campaign = static_cast<size_t>(state.thread_index());
  for (auto _ : state) {
    const std::string id = ImpressionId();
    SpendJournal* journal = shared->pacer->journal();
    absl::StatusOr<SpendJournalEntry> entry = journal->Begin(campaign, 1840, id, 1791115200000);
    if (!entry.ok()) std::abort();
    if (!Claim(*shared->store, id, entry->key)) std::abort();
    journal->Commit(*entry);
    campaign = (campaign + 1) % kCampaigns;
  }
  state.SetItemsProcessed(state.iterations());
  TearDownShared(state);
}
BENCHMARK(BM_ClaimWithJournal)->Threads(1)->Threads(4)->UseRealTime();

void BM_FlushJournal(benchmark::State& state) {
  Fixture fixture(true);
  const int entries = static_cast<int>(state.range(0));
  fixture.pacer->FlushNow();  // recovery: nothing to recover
  for (auto _ : state) {
    state.PauseTiming();
    for (int i = 0; i < entries; ++i) {
      absl::StatusOr<SpendJournalEntry> entry = fixture.pacer->journal()->Begin(
          static_cast<size_t>(i % kCampaigns), 1840, ImpressionId(), 1791115200000);
      if (!entry.ok()) std::abort();
      fixture.pacer->journal()->Commit(*entry);
    }
    state.ResumeTiming();
    fixture.pacer->FlushNow();
  }
  state.SetItemsProcessed(state.iterations() * entries);
}
BENCHMARK(BM_FlushJournal)->Arg(100)->Arg(1000)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace rtb::pacing

BENCHMARK_MAIN();
