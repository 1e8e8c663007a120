// What the events module costs on the embedded store: a first Record (two
// erasure checks, a replay check, three writes and an increment), a replayed
// Record, the reads, and building a key. Run from the build tree:
//   build/tests/bidder/events/bidder_events_bench --benchmark_repetitions=3
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "bidder/events/events.h"
#include "bidder/events/internal/keys.h"
#include "storage/clock.h"
#include "storage/embedded_store.h"
#include "storage/schemas.h"

namespace rtb::bidder::events {
namespace {

std::string Key16(char tag, int n) {
  std::string key(16, tag);
  for (int i = 0; i < 4; ++i) key[15 - i] = static_cast<char>(n >> (8 * i));
  return key;
}

Event MakeEvent(int user, int id, EventType type, int64_t time_ms) {
  Event e;
  e.user_key = Key16('u', user);
  e.event_id = Key16('e', id);
  e.type = type;
  e.event_time_ms = time_ms;
  e.body = R"({"campaign":"c8812","creative":"cr1","price_micros":1520000,"exchange":"x1"})";
  e.summary = "impression c8812/cr1";
  return e;
}

// One embedded store for the whole program, in a temporary directory.
class Fixture {
 public:
  Fixture() {
    dir_ = (std::filesystem::temp_directory_path() /
            ("rtb-events-bench-" + std::to_string(::getpid())))
               .string();
    std::filesystem::remove_all(dir_);
    storage::EmbeddedStoreOptions o;
    o.path = dir_;
    o.clock = clock_;
    store_ = *storage::OpenEmbeddedStore(o);
    (void)storage::ApplySchemas(*store_, storage::BidderTables());
    events_ = std::make_unique<EventStore>(*store_, *clock_, nullptr);
  }
  ~Fixture() {
    events_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  EventStore& events() { return *events_; }
  int64_t now() const { return clock_->NowMillis(); }

 private:
  std::string dir_;
  std::shared_ptr<storage::Clock> clock_ = storage::SystemClock();
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<EventStore> events_;
};

Fixture& Shared() {
  static Fixture* fixture = new Fixture();
  return *fixture;
}

void BM_RecordNewEvent(benchmark::State& state) {
  Fixture& f = Shared();
  static int next = 0;
  const int64_t base = f.now();
  for (auto _ : state) {
    const int id = next++;
    absl::Status s =
        f.events().Record(MakeEvent(id % 10000, id, EventType::kImpression, base + id));
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
  }
}
BENCHMARK(BM_RecordNewEvent);

void BM_RecordReplay(benchmark::State& state) {
  Fixture& f = Shared();
  const Event e = MakeEvent(900000, 900000, EventType::kClick, f.now());
  (void)f.events().Record(e);
  for (auto _ : state) {
    absl::Status s = f.events().Record(e);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
  }
}
BENCHMARK(BM_RecordReplay);

void BM_LastEvents(benchmark::State& state) {
  Fixture& f = Shared();
  const int user = 800000;
  const int64_t base = f.now() - 1000000;
  for (int i = 0; i < 200; ++i) {
    (void)f.events().Record(MakeEvent(user, 800000 + i, EventType::kWin, base + i * 1000));
  }
  const std::string key = Key16('u', user);
  for (auto _ : state) {
    auto r = f.events().LastEvents(key, static_cast<int>(state.range(0)));
    if (!r.ok()) state.SkipWithError(r.status().ToString().c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_LastEvents)->Arg(20)->Arg(200);

void BM_EventsOfType(benchmark::State& state) {
  Fixture& f = Shared();
  const int64_t base = f.now() - 2000000;
  for (int i = 0; i < 1000; ++i) {
    (void)f.events().Record(MakeEvent(700000 + i % 50, 700000 + i, EventType::kBilling, base + i));
  }
  for (auto _ : state) {
    auto r = f.events().EventsOfType(EventType::kBilling, base, base + 1000,
                                     static_cast<int>(state.range(0)));
    if (!r.ok()) state.SkipWithError(r.status().ToString().c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_EventsOfType)->Arg(20)->Arg(100);

void BM_TimelineAndIndexKeys(benchmark::State& state) {
  const std::string user = Key16('u', 1);
  const std::string id = Key16('e', 1);
  int64_t t = 1791072000000;
  for (auto _ : state) {
    std::string a = internal::TimelineKey(user, t, id);
    std::string b = internal::IndexKey(1, t, user, id);
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
    ++t;
  }
}
BENCHMARK(BM_TimelineAndIndexKeys);

}  // namespace
}  // namespace rtb::bidder::events

BENCHMARK_MAIN();
