// Frequency caps: at most `per_day` impressions of one campaign per device per
// day, where the day starts at midnight in the campaign's time zone
// (campaigns[].time_zone), as the budget day does.
//
// The count is read on the bid path from the profile's `fc` family, column
// `campaignId|yyyymmdd` (the day in the campaign's zone), which impression
// beacons increment after the fact (DESIGN.md, write paths). Yesterday's
// column is simply another qualifier and is never read; the family TTL of two
// days removes it. The read is one-way stale (an impression served a moment ago
// may not be counted yet), and a device without a profile read (lookup skipped,
// failed or late) counts 0: the cap errs towards bidding, as the design
// accepts, rather than refusing every device whose lookup was slow.
//
// Thread-safety: immutable values; safe to share.
#ifndef RTB_BIDDER_BID_FREQUENCY_CAP_H_
#define RTB_BIDDER_BID_FREQUENCY_CAP_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "bidder/bid/internal/profile.h"

namespace rtb::bidder {

// Campaign ids are at most 32 characters (config), so a qualifier fits here.
inline constexpr size_t kMaxFrequencyCapQualifier = 64;

// "campaignId|yyyymmdd" for the day `now` falls on in `zone`.
std::string FrequencyCapQualifier(std::string_view campaign_id, absl::Time now,
                                  const absl::TimeZone& zone);

// "#<hex impression id>": the `fc` column counting how many times the
// impression's beacon added it to a count (1 once counted). Campaign ids hold
// no '#', so it never reads as a count; the family TTL removes it with the
// counts. Beacons read it back from their Increment to undo a second count.
std::string FrequencyCapMarkerQualifier(std::string_view impression_id);

class FrequencyCap {
 public:
  // `per_day` 0 means uncapped.
  FrequencyCap(int per_day, absl::TimeZone zone) : per_day_(per_day), zone_(zone) {}

  bool capped() const { return per_day_ > 0; }
  int per_day() const { return per_day_; }
  const absl::TimeZone& zone() const { return zone_; }

  // Impressions of `campaign_id` counted in `profile` for the day of `now`.
  int64_t CountToday(const Profile& profile, std::string_view campaign_id, absl::Time now) const;

  // True when the device has had its `per_day` impressions today, counting
  // `pending` more that this same request is already bidding for (one request
  // may offer several impressions).
  bool Reached(const Profile& profile, std::string_view campaign_id, absl::Time now,
               int pending = 0) const;

 private:
  int per_day_;
  absl::TimeZone zone_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_FREQUENCY_CAP_H_
