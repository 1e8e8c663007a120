// rtb-seed-profiles: stores device profiles for the devices rtb-load sends,
// so a load run meets a chosen share of profile hits.
//
//   rtb-seed-profiles --config config/bidder.example.json --devices 100000 --hit-share 0.5
//
// The device population and its popularity are rtb-load's (DeviceIdFor,
// Zipf exponent), and rows are keyed exactly as the bidder keys them
// (DeviceKeyHasher with the configured bid.device_key_secret), so the share
// is of requests, not of devices. Each profile is the realistic row of
// DESIGN.md: 80 segments (plus every campaign's required segments) and one
// frequency-cap counter per campaign for today, below its cap. Run it while
// no bidder holds an embedded store open; it writes with ASYNC_WAL and
// flushes `profiles` at the end (on the embedded engine; HBase's region
// servers flush by themselves and Thrift2 has no call for it).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bidder/bid/device_key.h"
#include "bidder/bid/frequency_cap.h"
#include "config/config.h"
#include "loadtest/request_mix.h"
#include "storage/schemas.h"
#include "storage/startup/startup.h"
#include "storage/store.h"

namespace {

constexpr char kUsage[] =
    "usage: rtb-seed-profiles --config <file> [--devices N] [--zipf S] [--hit-share F]\n"
    "  --config <file>   the bidder configuration whose store and device key secret to use\n"
    "  --devices N       device population, as rtb-load --devices (default 100000)\n"
    "  --zipf S          popularity exponent, as rtb-load --zipf (default 1.1)\n"
    "  --hit-share F     share of requests that find a profile, in [0, 1] (default 0.5)\n";

struct Flags {
  std::string config;
  int64_t devices = 100000;
  double zipf = 1.1;
  double hit_share = 0.5;
};

bool ParseFlags(int argc, char** argv, Flags* flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "rtb-seed-profiles: %s needs a value\n%s", argv[i], kUsage);
      return false;
    }
    const char* value = argv[++i];
    bool ok = true;
    if (arg == "--config") {
      flags->config = value;
    } else if (arg == "--devices") {
      ok = absl::SimpleAtoi(value, &flags->devices) && flags->devices > 0 &&
           flags->devices <= 100000000;
    } else if (arg == "--zipf") {
      ok = absl::SimpleAtod(value, &flags->zipf) && flags->zipf > 0 && flags->zipf <= 10;
    } else if (arg == "--hit-share") {
      ok = absl::SimpleAtod(value, &flags->hit_share) && flags->hit_share >= 0 &&
           flags->hit_share <= 1;
    } else {
      std::fprintf(stderr, "rtb-seed-profiles: unknown flag %s\n%s", argv[i - 1], kUsage);
      return false;
    }
    if (!ok) {
      std::fprintf(stderr, "rtb-seed-profiles: bad value for %s: '%s'\n%s", argv[i - 1], value,
                   kUsage);
      return false;
    }
  }
  if (flags->config.empty()) {
    std::fprintf(stderr, "rtb-seed-profiles: --config is required\n%s", kUsage);
    return false;
  }
  return true;
}

// The cells every seeded profile holds; only the row key differs.
std::vector<rtb::storage::PutValue> ProfileCells(const rtb::config::BidderConfig& config,
                                                 absl::Time now) {
  std::vector<rtb::storage::PutValue> cells;
  for (int i = 0; i < 80; ++i) {
    char segment[16];
    std::snprintf(segment, sizeof(segment), "s%07d", i * 37);
    cells.push_back({std::string(rtb::storage::kProfileSegmentFamily), segment,
                     std::string(1, '\x5a'), std::nullopt});
  }
  for (const rtb::config::CampaignConfig& campaign : config.campaigns) {
    for (const std::string& segment : campaign.targeting.required_segments) {
      cells.push_back({std::string(rtb::storage::kProfileSegmentFamily), segment,
                       std::string(1, '\x64'), std::nullopt});
    }
    absl::TimeZone zone;
    if (!absl::LoadTimeZone(campaign.time_zone, &zone)) zone = absl::UTCTimeZone();
    // One impression today: caps of 2 or more still let the device bid.
    cells.push_back({std::string(rtb::storage::kProfileFrequencyCapFamily),
                     rtb::bidder::FrequencyCapQualifier(campaign.id, now, zone),
                     rtb::storage::EncodeCounter(1), std::nullopt});
  }
  return cells;
}

int Run(const Flags& flags) {
  absl::StatusOr<rtb::config::BidderConfig> config = rtb::config::LoadConfigFile(flags.config);
  if (!config.ok()) {
    std::fprintf(stderr, "rtb-seed-profiles: %s\n", std::string(config.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<std::unique_ptr<rtb::storage::Store>> store =
      rtb::startup::OpenConfiguredStore(config->storage);
  if (!store.ok()) {
    std::fprintf(stderr, "rtb-seed-profiles: %s\n", std::string(store.status().message()).c_str());
    return 1;
  }
  if (absl::Status applied = rtb::storage::ApplySchemas(**store, rtb::storage::BidderTables());
      !applied.ok()) {
    std::fprintf(stderr, "rtb-seed-profiles: %s\n", std::string(applied.message()).c_str());
    return 1;
  }
  const rtb::bidder::DeviceKeyHasher hasher(config->bid.device_key_secret);
  const std::vector<rtb::storage::PutValue> cells = ProfileCells(*config, absl::Now());
  const std::vector<bool> seed =
      rtb::loadtest::DevicesToSeed(flags.devices, flags.zipf, flags.hit_share);

  const auto started = std::chrono::steady_clock::now();
  constexpr size_t kBatchRows = 500;
  std::vector<rtb::storage::Put> batch;
  int64_t written = 0;
  auto flush_batch = [&]() -> absl::Status {
    if (batch.empty()) return absl::OkStatus();
    absl::Status s = (*store)->PutBatch(rtb::storage::kProfilesTable, batch);
    written += static_cast<int64_t>(batch.size());
    batch.clear();
    return s;
  };
  for (int64_t k = 0; k < flags.devices; ++k) {
    if (!seed[static_cast<size_t>(k)]) continue;
    rtb::storage::Put put;
    put.row =
        std::string(hasher.Hash(rtb::loadtest::DeviceIdFor(static_cast<uint64_t>(k))).bytes());
    put.values = cells;
    put.durability = rtb::storage::Durability::kAsyncWal;
    batch.push_back(std::move(put));
    if (batch.size() == kBatchRows) {
      if (absl::Status s = flush_batch(); !s.ok()) {
        std::fprintf(stderr, "rtb-seed-profiles: %s\n", std::string(s.message()).c_str());
        return 1;
      }
    }
  }
  if (absl::Status s = flush_batch(); !s.ok()) {
    std::fprintf(stderr, "rtb-seed-profiles: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  // Compacted as well as flushed: a bulk load leaves a heap of level-0 files
  // whose compaction would otherwise run inside the bidder for minutes after
  // it starts, on the core a benchmark measures.
  if (absl::Status s = (*store)->MajorCompact(rtb::storage::kProfilesTable);
      !s.ok() && !absl::IsUnimplemented(s)) {
    std::fprintf(stderr, "rtb-seed-profiles: compact: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("{\"profiles\":%lld,\"devices\":%lld,\"cells_per_profile\":%zu,\"seconds\":%.2f}\n",
              static_cast<long long>(written), static_cast<long long>(flags.devices), cells.size(),
              seconds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (argc == 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!ParseFlags(argc, argv, &flags)) return 2;
  return Run(flags);
}
