// A campaign's budget day: from midnight to midnight in its own time zone, so
// a budget resets when the advertiser's day does, and a day may last 23 or 25
// hours across a daylight-saving change.
//
// Thread-safety: immutable after construction.
#ifndef RTB_PACING_INTERNAL_CAMPAIGN_DAY_H_
#define RTB_PACING_INTERNAL_CAMPAIGN_DAY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"

namespace rtb::pacing::internal {

class CampaignDay {
 public:
  // UTC.
  CampaignDay() : zone_(absl::UTCTimeZone()), zone_name_("UTC") {}
  // NotFound when the zone database has no such zone.
  static absl::StatusOr<CampaignDay> ForZone(std::string_view zone_name);

  // The civil day at `unix_ms` in the zone.
  absl::CivilDay DayAt(int64_t unix_ms) const;
  // The first millisecond of `day`, and the first of the day after it.
  int64_t StartMillis(absl::CivilDay day) const;
  int64_t EndMillis(absl::CivilDay day) const { return StartMillis(day + 1); }
  const std::string& zone_name() const { return zone_name_; }
  const absl::TimeZone& zone() const { return zone_; }

 private:
  CampaignDay(absl::TimeZone zone, std::string name) : zone_(zone), zone_name_(std::move(name)) {}
  absl::TimeZone zone_;
  std::string zone_name_;
};

}  // namespace rtb::pacing::internal

#endif  // RTB_PACING_INTERNAL_CAMPAIGN_DAY_H_
