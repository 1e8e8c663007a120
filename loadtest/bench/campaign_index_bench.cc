// What a campaign change costs a worker, off its I/O threads
// (bidder/campaigns/campaign_follower.h, BidderApp::OnCampaignsChanged):
//   BM_DecodeChangedCampaign      one stored object decoded and validated
//                                 (config::ParseCampaign), per changed campaign
//   BM_IndexRebuild/N             CampaignIndex::Build over N campaigns
//   BM_RebuildAfterOneChange/N    the whole rebuild of one change: the configs
//                                 by position copied out of the live set, and
//                                 the index built
// Campaigns vary as real ones do: 20 countries, 5 device types, 6 banner
// sizes plus video, one in 10 on deals, one in 10 paused.
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "bidder/bid/currency.h"
#include "bidder/bid/internal/campaign_index.h"
#include "bidder/campaigns/campaign_follower.h"
#include "config/config.h"

namespace rtb::bidder {
namespace {

const char* const kCountries[] = {"USA", "CAN", "MEX", "BRA", "ARG", "GBR", "IRL",
                                  "FRA", "DEU", "ESP", "ITA", "NLD", "BEL", "POL",
                                  "SWE", "NOR", "JPN", "KOR", "AUS", "IND"};
const int kSizes[][2] = {{300, 250}, {728, 90}, {320, 50}, {160, 600}, {300, 600}, {970, 250}};

config::CampaignConfig MakeCampaign(int i) {
  config::CampaignConfig c;
  c.id = "camp-" + std::to_string(i);
  c.enabled = i % 10 != 9;
  c.advertiser_domains = {"advertiser-" + std::to_string(i % 200) + ".example"};
  c.iab_categories = {"IAB" + std::to_string(1 + i % 20)};
  c.daily_budget_micros = 100000000;
  c.currency = "USD";
  c.max_bid_cpm = 1.0 + (i % 7);
  c.frequency_cap_per_day = i % 3 == 0 ? 5 : 0;
  for (int k = 0; k < 1 + i % 3; ++k) c.targeting.countries.push_back(kCountries[(i + k * 7) % 20]);
  if (i % 2 == 0) c.targeting.device_types = {1 + i % 5};
  if (i % 10 == 3) c.targeting.deal_ids = {"deal-" + std::to_string(i % 50)};
  if (i % 4 == 1) c.targeting.domains_deny = {"blocked-" + std::to_string(i % 30) + ".example"};
  for (int k = 0; k < 2; ++k) {
    config::CreativeConfig creative;
    creative.id = "cr-" + std::to_string(k);
    creative.format = config::CreativeFormat::kBanner;
    creative.w = kSizes[(i + k) % 6][0];
    creative.h = kSizes[(i + k) % 6][1];
    creative.adm =
        "<a href=\"${CLICK_URL}\"><img src=\"https://cdn.example.com/" + c.id + ".png\"></a>";
    creative.landing_url = "https://www.example.com/" + c.id;
    c.creatives.push_back(std::move(creative));
  }
  if (i % 5 == 0) {
    config::CreativeConfig video;
    video.id = "video";
    video.format = config::CreativeFormat::kVideo;
    video.w = 640;
    video.h = 360;
    video.mimes = {"video/mp4"};
    video.duration_s = 15;
    video.adm = "<VAST version=\"4.0\"></VAST>";
    video.landing_url = "https://www.example.com/" + c.id;
    c.creatives.push_back(std::move(video));
  }
  return c;
}

std::vector<config::CampaignConfig> MakeCampaigns(int n) {
  std::vector<config::CampaignConfig> campaigns;
  campaigns.reserve(n);
  for (int i = 0; i < n; ++i) campaigns.push_back(MakeCampaign(i));
  return campaigns;
}

const CurrencyTable& Currencies() {
  static const CurrencyTable table = *CurrencyTable::Create({{"USD", 1.0}});
  return table;
}

void BM_DecodeChangedCampaign(benchmark::State& state) {
  config::BidderConfig context;
  const std::string json = config::CampaignToJson(MakeCampaign(5));
  for (auto _ : state) {
    absl::StatusOr<config::CampaignConfig> campaign = config::ParseCampaign(json, context);
    if (!campaign.ok()) state.SkipWithError(std::string(campaign.status().message()).c_str());
    benchmark::DoNotOptimize(campaign);
  }
}
BENCHMARK(BM_DecodeChangedCampaign);

void BM_IndexRebuild(benchmark::State& state) {
  const std::vector<config::CampaignConfig> campaigns =
      MakeCampaigns(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    std::vector<std::string> refused;
    absl::StatusOr<CampaignIndex> index =
        CampaignIndex::Build(campaigns, "USD", Currencies(), &refused);
    if (!index.ok() || !refused.empty()) state.SkipWithError("the campaigns do not build");
    benchmark::DoNotOptimize(index);
  }
  state.counters["campaigns"] = static_cast<double>(campaigns.size());
}
BENCHMARK(BM_IndexRebuild)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_RebuildAfterOneChange(benchmark::State& state) {
  campaigns::LiveCampaigns live;
  for (config::CampaignConfig& campaign : MakeCampaigns(static_cast<int>(state.range(0)))) {
    campaigns::LiveCampaign entry;
    entry.id = campaign.id;
    entry.config = std::make_shared<const config::CampaignConfig>(std::move(campaign));
    live.by_position.push_back(std::move(entry));
  }
  int changed = 0;
  for (auto _ : state) {
    // One campaign re-budgeted, as the follower applies it.
    auto edited = std::make_shared<config::CampaignConfig>(*live.by_position[changed].config);
    edited->daily_budget_micros += 1000000;
    live.by_position[changed].config = std::move(edited);
    changed = (changed + 1) % static_cast<int>(live.by_position.size());

    const std::vector<config::CampaignConfig> configs = live.Configs();
    std::vector<std::string> refused;
    auto index = std::make_shared<const CampaignIndex>(
        *CampaignIndex::Build(configs, "USD", Currencies(), &refused));
    benchmark::DoNotOptimize(index);
  }
}
BENCHMARK(BM_RebuildAfterOneChange)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rtb::bidder

BENCHMARK_MAIN();
