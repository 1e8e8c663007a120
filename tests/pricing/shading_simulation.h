// A deterministic simulation of bid shading on virtual time: exchanges
// running first- and second-price auctions against a known population of
// competing bids, and one bidder whose bids are priced by the real Pricer,
// whose win and loss notices go through the real PricingFeedback into an
// embedded store, and whose model is fitted by the real PricingLoop on a
// ManualClock. Everything runs on one thread, so a run is a pure function of
// its seed.
//
// Each auction is priced three ways on the same draw: flat (the value, as
// before shading), shaded (the Pricer), and by an oracle that knows the
// price to beat and pays exactly it when it is below the value. Only the
// shaded bid is sent; flat and oracle are what they would have won and paid.
//
// The population: each bucket (exchange x site x size) has a median price
// m, K competitors (2 to 6) each bidding m x exp(sigma x N(0, 1)), and a
// floor of 0.3 to 0.6 m. The price to beat is max(highest competitor,
// floor); a bid wins when it is at least the floor and above every
// competitor. First price pays the bid, second price the price to beat.
#ifndef RTB_TESTS_PRICING_SHADING_SIMULATION_H_
#define RTB_TESTS_PRICING_SHADING_SIMULATION_H_

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "config/config.h"
#include "gtest/gtest.h"
#include "pricing/bucket.h"
#include "pricing/feedback.h"
#include "pricing/pricer.h"
#include "pricing/pricing_loop.h"
#include "storage/clock.h"
#include "storage/schemas.h"
#include "storage/store.h"

namespace rtb::pricing::testing {

struct SimulatedExchange {
  std::string name;
  bool first_price = true;
  // Notices carry the minimum bid to win (${AUCTION_MIN_TO_WIN}).
  bool min_to_win = false;
  double traffic_share = 1;
};

struct ShadingSimulationOptions {
  uint64_t seed = 1;
  int64_t start_ms = 0;
  int hours = 36;
  // Hours before the measured period: the learning phase.
  int warmup_hours = 12;
  int auctions_per_hour = 40000;
  int sites = 20;  // per exchange, Zipf-distributed traffic
  double sigma = 0.08;
  int min_competitors = 2;
  int max_competitors = 6;
  double min_median_cpm = 0.8;
  double max_median_cpm = 2.5;
  // One campaign per value, CPM goal: each auction is for one of them.
  std::vector<double> values = {4.0, 6.0};
  config::PricingConfig pricing;
};

// One policy's results over a period.
struct PolicyTotals {
  int64_t auctions = 0;
  int64_t wins = 0;
  double spend = 0;    // CPM summed over wins
  double surplus = 0;  // value - price, summed over wins

  double cost_per_win() const { return wins > 0 ? spend / static_cast<double>(wins) : 0; }
};

struct ExchangeResult {
  PolicyTotals flat;
  PolicyTotals shaded;
  PolicyTotals oracle;
};

struct ShadingSimulationResult {
  // Per exchange, in the options' order: measured period, then warm-up.
  std::vector<ExchangeResult> measured;
  std::vector<ExchangeResult> warmup;
  // Shaded bids by PriceOutcome, measured period.
  std::array<int64_t, 8> outcomes{};
  double seconds_in_fits = 0;
};

class ShadingSimulation {
 public:
  ShadingSimulation(std::vector<SimulatedExchange> exchanges, ShadingSimulationOptions options)
      : exchanges_(std::move(exchanges)), options_(std::move(options)) {}

  // Runs on `store` (holding the pricing table, empty), timed by `clock`.
  ShadingSimulationResult Run(storage::Store& store, std::shared_ptr<storage::ManualClock> clock) {
    ShadingSimulationResult result;
    result.measured.resize(exchanges_.size());
    result.warmup.resize(exchanges_.size());
    clock->Set(options_.start_ms);
    config::BidderConfig config;
    for (const SimulatedExchange& e : exchanges_) {
      config::ExchangeConfig exchange;
      exchange.name = e.name;
      config.server.exchanges.push_back(exchange);
    }
    for (size_t i = 0; i < options_.values.size(); ++i) {
      config::CampaignConfig campaign;
      campaign.id = "camp-" + std::to_string(i);
      campaign.currency = "USD";
      campaign.max_bid_cpm = options_.values[i];
      config.campaigns.push_back(campaign);
    }
    config.pricing = options_.pricing;
    auto pricer = Pricer::Create(config, nullptr);
    EXPECT_TRUE(pricer.ok()) << pricer.status();
    if (!pricer.ok()) return result;
    PricingFeedback feedback(config, store, pricer->get(), nullptr);
    auto loop =
        PricingLoop::Create(config, store, pricer->get(), PricingRole::kFitLocally, nullptr, clock);
    EXPECT_TRUE(loop.ok()) << loop.status();
    if (!loop.ok()) return result;

    std::mt19937_64 random(options_.seed);
    BuildBuckets(random);
    std::uniform_real_distribution<double> uniform(0, 1);
    std::normal_distribution<double> normal(0, 1);
    const int64_t total = int64_t{options_.hours} * options_.auctions_per_hour;
    const int64_t warmup = int64_t{options_.warmup_hours} * options_.auctions_per_hour;
    int64_t next_compaction = options_.start_ms + kCompactEveryMs;
    for (int64_t n = 0; n < total; ++n) {
      const int64_t now = options_.start_ms + n * 3600000 / options_.auctions_per_hour;
      clock->Set(now);
      if (now >= next_compaction) {
        // As the store compacts on its own in production: without it every
        // Increment's cell version stays in the memtable and each scan of a
        // fit walks all of them.
        EXPECT_TRUE(store.Flush(storage::kPricingTable).ok());
        EXPECT_TRUE(store.MajorCompact(storage::kPricingTable).ok());
        next_compaction = now + kCompactEveryMs;
      }
      if (now >= (*loop)->NextDueMillis()) {
        const auto before = std::chrono::steady_clock::now();
        (*loop)->RunDue();
        result.seconds_in_fits +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
      }
      const Bucket& bucket = buckets_[PickBucket(uniform(random))];
      const SimulatedExchange& exchange = exchanges_[bucket.exchange];
      const size_t campaign = std::min(
          options_.values.size() - 1,
          static_cast<size_t>(uniform(random) * static_cast<double>(options_.values.size())));
      const double value = options_.values[campaign];
      double competitor = 0;
      for (int k = 0; k < bucket.competitors; ++k) {
        competitor =
            std::max(competitor, bucket.median * std::exp(options_.sigma * normal(random)));
      }
      const double to_beat = std::max(competitor, bucket.floor);

      ShadeRequest request;
      request.exchange = bucket.exchange;
      request.bucket = exchange.first_price ? bucket.id : 0;
      request.first_price = exchange.first_price;
      request.value = value;
      request.floor = bucket.floor;
      request.now_ms = now;
      request.explore_draw = uniform(random);
      request.explore_offset = uniform(random);
      const ShadeResult shaded = (*pricer)->Shade(request);
      (*pricer)->CountBid(campaign, request, shaded);

      ExchangeResult& totals =
          n < warmup ? result.warmup[bucket.exchange] : result.measured[bucket.exchange];
      const bool shaded_won = Wins(shaded.price, bucket.floor, competitor);
      Count(exchange, value, value, to_beat, Wins(value, bucket.floor, competitor), &totals.flat);
      Count(exchange, value, shaded.price, to_beat, shaded_won, &totals.shaded);
      const bool oracle_wins = to_beat < value;
      Count(exchange, value, oracle_wins ? to_beat : value, to_beat, oracle_wins, &totals.oracle);
      if (n >= warmup) ++result.outcomes[static_cast<size_t>(shaded.outcome)];

      if (!exchange.first_price) continue;  // no bucket: nothing to count
      AuctionNotice notice;
      notice.exchange = exchange.name;
      notice.campaign_id = config.campaigns[campaign].id;
      notice.bucket = bucket.id;
      notice.won = shaded_won;
      notice.bid_cpm = shaded.price;
      notice.bid_currency = "USD";
      if (shaded_won) notice.clearing_cpm = shaded.price;
      if (exchange.min_to_win) notice.min_to_win_cpm = to_beat;
      if (!shaded_won) notice.loss_reason = to_beat == bucket.floor ? "100" : "102";
      notice.bid_time_ms = now;
      const std::string id = std::to_string(n);
      notice.notice_id = id;
      feedback.RecordNotice(notice);
    }
    return result;
  }

  const std::vector<SimulatedExchange>& exchanges() const { return exchanges_; }

 private:
  static constexpr int64_t kCompactEveryMs = 10 * 60 * 1000;

  struct Bucket {
    size_t exchange = 0;
    uint64_t id = 0;
    double median = 0;
    double floor = 0;
    int competitors = 0;
    double weight = 0;
  };

  static bool Wins(double bid, double floor, double competitor) {
    return bid >= floor && bid > competitor;
  }

  static void Count(const SimulatedExchange& exchange, double value, double bid, double to_beat,
                    bool won, PolicyTotals* totals) {
    ++totals->auctions;
    if (!won) return;
    const double price = exchange.first_price ? bid : to_beat;
    ++totals->wins;
    totals->spend += price;
    totals->surplus += value - price;
  }

  void BuildBuckets(std::mt19937_64& random) {
    std::uniform_real_distribution<double> uniform(0, 1);
    constexpr std::array<std::array<int, 2>, 3> kSizes = {{{300, 250}, {728, 90}, {320, 50}}};
    double total_share = 0;
    for (const SimulatedExchange& e : exchanges_) total_share += e.traffic_share;
    double zipf_total = 0;
    for (int s = 0; s < options_.sites; ++s) zipf_total += 1.0 / (s + 1);
    for (size_t e = 0; e < exchanges_.size(); ++e) {
      const uint64_t exchange_bits = ExchangeBucketBits(exchanges_[e].name);
      for (int s = 0; s < options_.sites; ++s) {
        const uint64_t site = InventoryHash('s', "site" + std::to_string(s) + ".example");
        for (const auto& [w, h] : kSizes) {
          Bucket bucket;
          bucket.exchange = e;
          bucket.id = BucketOf(exchange_bits, site, 1, w, h);
          bucket.median = std::exp(std::log(options_.min_median_cpm) +
                                   uniform(random) *
                                       std::log(options_.max_median_cpm / options_.min_median_cpm));
          bucket.floor = bucket.median * (0.3 + 0.3 * uniform(random));
          bucket.competitors = options_.min_competitors +
                               static_cast<int>(uniform(random) * (options_.max_competitors -
                                                                   options_.min_competitors + 1));
          bucket.weight = exchanges_[e].traffic_share / total_share * (1.0 / (s + 1)) / zipf_total /
                          static_cast<double>(kSizes.size());
          buckets_.push_back(bucket);
        }
      }
    }
    double edge = 0;
    for (const Bucket& bucket : buckets_) cumulative_.push_back(edge += bucket.weight);
  }

  size_t PickBucket(double u) const {
    const double target = u * cumulative_.back();
    const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), target);
    return std::min(static_cast<size_t>(it - cumulative_.begin()), buckets_.size() - 1);
  }

  std::vector<SimulatedExchange> exchanges_;
  ShadingSimulationOptions options_;
  std::vector<Bucket> buckets_;
  std::vector<double> cumulative_;
};

}  // namespace rtb::pricing::testing

#endif  // RTB_TESTS_PRICING_SHADING_SIMULATION_H_
