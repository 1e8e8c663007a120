// An embedded store on a ManualClock with the tables of storage/schemas.h,
// and a Telemetry over it, for the table-level tests and benchmarks.
#ifndef RTB_TESTS_BIDDER_TELEMETRY_TELEMETRY_FIXTURE_H_
#define RTB_TESTS_BIDDER_TELEMETRY_TELEMETRY_FIXTURE_H_

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "bidder/telemetry/telemetry.h"
#include "prometheus/registry.h"
#include "storage/clock.h"
#include "storage/embedded_store.h"
#include "storage/schemas.h"
#include "storage/store.h"

namespace rtb::bidder::telemetry::testing {

// 2026-10-04T00:00:00Z.
inline constexpr int64_t kNowS = 1791072000;

struct TelemetryStoreHarness {
  explicit TelemetryStoreHarness(const std::string& name, TelemetryOptions options = {}) {
    dir = (std::filesystem::temp_directory_path() /
           ("rtb-telemetry-" + std::to_string(::getpid()) + "-" + name))
              .string();
    std::filesystem::remove_all(dir);
    clock = std::make_shared<storage::ManualClock>(kNowS * 1000);
    storage::EmbeddedStoreOptions o;
    o.path = dir;
    o.clock = clock;
    o.block_cache_bytes = 32 << 20;
    o.row_cache_bytes = 0;
    store = *storage::OpenEmbeddedStore(o);
    status = storage::ApplySchemas(*store, storage::BidderTables());
    if (!status.ok()) return;
    options.clock = clock;
    options.registry = &registry;
    auto created = Telemetry::Create(*store, options);
    status = created.status();
    if (created.ok()) telemetry = *std::move(created);
  }
  ~TelemetryStoreHarness() {
    telemetry.reset();
    store.reset();
    std::filesystem::remove_all(dir);
  }

  std::string dir;
  std::shared_ptr<storage::ManualClock> clock;
  std::unique_ptr<storage::Store> store;
  prometheus::Registry registry;
  absl::Status status;
  std::unique_ptr<Telemetry> telemetry;
};

}  // namespace rtb::bidder::telemetry::testing

#endif  // RTB_TESTS_BIDDER_TELEMETRY_TELEMETRY_FIXTURE_H_
