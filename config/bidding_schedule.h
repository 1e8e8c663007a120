// When a campaign may bid, from its campaigns[].schedule and time_zone: the
// flight (Unix ms, end exclusive) and the hours of the week it bids in its
// zone. One value serves the bid path ("may it bid now", per candidate) and
// pacing ("how much of this span may it bid", what even pacing spreads the
// rest of a day's budget over), so the two never disagree.
//
// Thread-safety: immutable once built.
#ifndef RTB_CONFIG_BIDDING_SCHEDULE_H_
#define RTB_CONFIG_BIDDING_SCHEDULE_H_

#include <bitset>
#include <cstdint>
#include <limits>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "config/config.h"

namespace rtb::config {

class BiddingSchedule {
 public:
  // Every hour, without a flight, in UTC.
  BiddingSchedule() = default;

  // InvalidArgument for a start or end that is not an RFC 3339 instant, a
  // daypart day other than "mon".."sun", or hours outside [0, 24]: what
  // ValidateConfig refuses, for callers handed a campaign it has not seen.
  static absl::StatusOr<BiddingSchedule> Of(const CampaignScheduleConfig& schedule,
                                            absl::TimeZone zone);

  // Inside the flight and, with dayparts, in one of their hours (local time).
  bool MayBidAt(absl::Time time) const;
  // How much of [from_ms, to_ms) MayBidAt allows, ms: hour by hour in the
  // zone, so a day of 23 or 25 hours counts what it has.
  int64_t BiddingMillisBetween(int64_t from_ms, int64_t to_ms) const;

  int64_t flight_start_ms() const { return flight_start_ms_; }
  int64_t flight_end_ms() const { return flight_end_ms_; }
  bool every_hour() const { return every_hour_; }

 private:
  // Whether the dayparts set this local hour (absl::GetWeekday numbers
  // Monday 0, as the dayparts do).
  bool HourSet(const absl::CivilHour& local) const;

  int64_t flight_start_ms_ = std::numeric_limits<int64_t>::min();
  int64_t flight_end_ms_ = std::numeric_limits<int64_t>::max();
  bool every_hour_ = true;
  std::bitset<7 * 24> hours_;  // Monday 0h .. Sunday 23h, when !every_hour_
  absl::TimeZone zone_ = absl::UTCTimeZone();
};

}  // namespace rtb::config

#endif  // RTB_CONFIG_BIDDING_SCHEDULE_H_
