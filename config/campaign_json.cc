// A campaign encoded back to the JSON object ParseCampaign reads
// (CampaignToJson, config/config.h): what the campaigns table stores and the
// admin API answers. Decoding is in config.cc.
#include <string>
#include <utility>

#include "config/config.h"
#include "nlohmann/json.hpp"

namespace rtb::config {

using nlohmann::json;

namespace {

// `fields` written over `source`: objects member by member (targeting, goal,
// each creative by position), so what `fields` does not name stays as read.
json OverlayFields(json source, const json& fields) {
  for (const auto& [key, value] : fields.items()) {
    json& target = source[key];
    if (value.is_object() && target.is_object()) {
      for (const auto& [member, member_value] : value.items()) target[member] = member_value;
    } else if (key == "creatives" && target.is_array() && target.size() == value.size()) {
      for (size_t i = 0; i < value.size(); ++i) {
        if (!target[i].is_object()) {
          target[i] = value[i];
          continue;
        }
        for (const auto& [member, member_value] : value[i].items())
          target[i][member] = member_value;
      }
    } else {
      target = value;
    }
  }
  return source;
}

}  // namespace

std::string CampaignToJson(const CampaignConfig& c) {
  json creatives = json::array();
  for (const CreativeConfig& cc : c.creatives) {
    creatives.push_back({{"id", cc.id},
                         {"format", CreativeFormatName(cc.format)},
                         {"w", cc.w},
                         {"h", cc.h},
                         {"mimes", cc.mimes},
                         {"duration_s", cc.duration_s},
                         {"adm", cc.adm},
                         {"nurl_delivery", cc.nurl_delivery},
                         {"landing_url", cc.landing_url},
                         {"iab_categories", cc.iab_categories}});
  }
  const TargetingConfig& t = c.targeting;
  json object = {{"id", c.id},
                 {"enabled", c.enabled},
                 {"seat", c.seat},
                 {"advertiser_domains", c.advertiser_domains},
                 {"iab_categories", c.iab_categories},
                 {"daily_budget_micros", c.daily_budget_micros},
                 {"lifetime_budget_micros", c.lifetime_budget_micros},
                 {"currency", c.currency},
                 {"pacing_mode", PacingModeName(c.pacing_mode)},
                 {"time_zone", c.time_zone},
                 {"frequency_cap_per_day", c.frequency_cap_per_day},
                 {"max_bid_cpm", c.max_bid_cpm},
                 {"cattax", c.cattax},
                 {"store_outage_policy", StoreOutagePolicyName(c.store_outage_policy)},
                 {"goal",
                  {{"type", CampaignGoalName(c.goal.type)},
                   {"target_cpc", c.goal.target_cpc},
                   {"target_cpa", c.goal.target_cpa},
                   {"prior_ctr", c.goal.prior_ctr},
                   {"prior_cvr", c.goal.prior_cvr}}},
                 {"targeting",
                  {{"countries", t.countries},
                   {"device_types", t.device_types},
                   {"content_categories", t.content_categories},
                   {"domains_allow", t.domains_allow},
                   {"domains_deny", t.domains_deny},
                   {"required_segments", t.required_segments},
                   {"deal_ids", t.deal_ids},
                   {"rewarded", RewardedPolicyName(t.rewarded)}}},
                 {"creatives", creatives}};
  const CampaignScheduleConfig& schedule = c.schedule;
  if (!schedule.start.empty() || !schedule.end.empty() || !schedule.dayparts.empty()) {
    json dayparts = json::array();
    for (const DaypartConfig& part : schedule.dayparts) {
      dayparts.push_back(
          {{"days", part.days}, {"from_hour", part.from_hour}, {"to_hour", part.to_hour}});
    }
    object["schedule"] = {{"start", schedule.start}, {"end", schedule.end}, {"dayparts", dayparts}};
  }
  if (!c.source_json.empty()) {
    // What was read, with the fields above as they are now (a caller may
    // have changed them since).
    json source = json::parse(c.source_json, nullptr, /*allow_exceptions=*/false);
    if (source.is_object()) {
      source.erase("dsa");
      object = OverlayFields(std::move(source), object);
    }
  }
  // Built in code, a campaign may leave its currency to bid.default_currency
  // (ParseConfig fills it in); absent, ParseCampaign does the same.
  if (c.currency.empty()) object.erase("currency");
  if (c.dsa.has_value()) {
    json transparency = json::array();
    for (const DsaTransparencyConfig& party : c.dsa->transparency) {
      transparency.push_back({{"domain", party.domain}, {"dsaparams", party.dsaparams}});
    }
    object["dsa"] = {{"behalf", c.dsa->behalf},
                     {"paid", c.dsa->paid},
                     {"adrender", c.dsa->adrender},
                     {"transparency", transparency}};
  }
  return object.dump();
}

}  // namespace rtb::config
