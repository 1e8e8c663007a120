#include "pacing/internal/campaign_day.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace rtb::pacing::internal {

absl::StatusOr<CampaignDay> CampaignDay::ForZone(std::string_view zone_name) {
  absl::TimeZone zone;
  const std::string name(zone_name);
  if (!absl::LoadTimeZone(name, &zone)) {
    return absl::NotFoundError(
        absl::StrCat("time zone \"", name, "\" is not in the zone database (tzdata)"));
  }
  return CampaignDay(zone, name);
}

absl::CivilDay CampaignDay::DayAt(int64_t unix_ms) const {
  return absl::ToCivilDay(absl::FromUnixMillis(unix_ms), zone_);
}

int64_t CampaignDay::StartMillis(absl::CivilDay day) const {
  // Where midnight is skipped by a daylight-saving jump, the day starts at the
  // first instant that exists (absl's `trans`), never in the previous day.
  const absl::TimeZone::TimeInfo info = zone_.At(absl::CivilSecond(day));
  const absl::Time start = info.kind == absl::TimeZone::TimeInfo::SKIPPED ? info.trans : info.pre;
  return absl::ToUnixMillis(start);
}

}  // namespace rtb::pacing::internal
