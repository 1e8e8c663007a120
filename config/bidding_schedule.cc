#include "config/bidding_schedule.h"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "config/config.h"

namespace rtb::config {

// The schedule values of a campaign (config.h): an RFC 3339 instant, a day name.
std::optional<int64_t> ScheduleInstantMillis(std::string_view rfc3339) {
  absl::Time instant;
  std::string error;
  if (rfc3339.size() > 64 ||
      !absl::ParseTime(absl::RFC3339_full, std::string(rfc3339), &instant, &error)) {
    return std::nullopt;
  }
  // Years far outside any flight would overflow the millisecond count.
  if (instant < absl::FromCivil(absl::CivilYear(1970), absl::UTCTimeZone()) ||
      instant >= absl::FromCivil(absl::CivilYear(10000), absl::UTCTimeZone())) {
    return std::nullopt;
  }
  return absl::ToUnixMillis(instant);
}

std::optional<int> ScheduleDayIndex(std::string_view day) {
  static constexpr std::string_view kDays[] = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};
  for (int i = 0; i < 7; ++i) {
    if (day == kDays[i]) return i;
  }
  return std::nullopt;
}

absl::StatusOr<BiddingSchedule> BiddingSchedule::Of(const CampaignScheduleConfig& schedule,
                                                    absl::TimeZone zone) {
  BiddingSchedule out;
  out.zone_ = zone;
  for (auto [key, text, ms] : {std::tuple("start", &schedule.start, &out.flight_start_ms_),
                               std::tuple("end", &schedule.end, &out.flight_end_ms_)}) {
    if (text->empty()) continue;
    const std::optional<int64_t> instant = ScheduleInstantMillis(*text);
    if (!instant.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("schedule.", key, " ", *text, " is not an RFC 3339 instant"));
    }
    *ms = *instant;
  }
  out.every_hour_ = schedule.dayparts.empty();
  for (const DaypartConfig& part : schedule.dayparts) {
    if (part.from_hour < 0 || part.to_hour > 24) {
      return absl::InvalidArgumentError(
          absl::StrCat("daypart hours ", part.from_hour, "-", part.to_hour, " are outside 0-24"));
    }
    for (const std::string& day : part.days) {
      const std::optional<int> index = ScheduleDayIndex(day);
      if (!index.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat("unknown daypart day ", day));
      }
      for (int hour = part.from_hour; hour < part.to_hour; ++hour) {
        out.hours_.set(static_cast<size_t>(*index * 24 + hour));
      }
    }
  }
  return out;
}

bool BiddingSchedule::HourSet(const absl::CivilHour& local) const {
  const int weekday = static_cast<int>(absl::GetWeekday(local));
  return hours_.test(static_cast<size_t>(weekday * 24 + local.hour()));
}

bool BiddingSchedule::MayBidAt(absl::Time time) const {
  const int64_t ms = absl::ToUnixMillis(time);
  if (ms < flight_start_ms_ || ms >= flight_end_ms_) return false;
  return every_hour_ || HourSet(absl::ToCivilHour(time, zone_));
}

int64_t BiddingSchedule::BiddingMillisBetween(int64_t from_ms, int64_t to_ms) const {
  from_ms = std::max(from_ms, flight_start_ms_);
  to_ms = std::min(to_ms, flight_end_ms_);
  if (to_ms <= from_ms) return 0;
  if (every_hour_) return to_ms - from_ms;
  int64_t total = 0;
  int64_t at = from_ms;
  while (at < to_ms) {
    const absl::CivilHour local = absl::ToCivilHour(absl::FromUnixMillis(at), zone_);
    const absl::TimeZone::TimeInfo next_hour = zone_.At(local + 1);
    const absl::Time next_time =
        next_hour.kind == absl::TimeZone::TimeInfo::SKIPPED ? next_hour.trans : next_hour.pre;
    const int64_t next = std::min(absl::ToUnixMillis(next_time), to_ms);
    if (HourSet(local)) total += next - at;
    // A zone transition can repeat an hour; never step backwards.
    at = std::max(next, at + 1);
  }
  return total;
}

}  // namespace rtb::config
