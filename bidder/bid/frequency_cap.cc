#include "bidder/bid/frequency_cap.h"

#include <cstring>

#include "absl/time/civil_time.h"
#include "storage/key_bytes.h"

namespace rtb::bidder {
namespace {

// Writes "campaignId|yyyymmdd" into `out` (at least kMaxFrequencyCapQualifier
// bytes) and returns its length; 0 when the id is too long or the year has
// other than four digits (neither happens with a validated config and a sane
// clock).
size_t WriteQualifier(std::string_view campaign_id, absl::Time now, const absl::TimeZone& zone,
                      char* out) {
  constexpr size_t kDayBytes = 9;  // "|yyyymmdd"
  if (campaign_id.size() + kDayBytes > kMaxFrequencyCapQualifier) return 0;
  const absl::CivilDay day = absl::ToCivilDay(now, zone);
  const int64_t year = day.year();
  if (year < 1000 || year > 9999) return 0;
  std::memcpy(out, campaign_id.data(), campaign_id.size());
  char* p = out + campaign_id.size();
  *p++ = '|';
  const int64_t digits[] = {year / 1000,      year / 100 % 10,  year / 10 % 10, year % 10,
                            day.month() / 10, day.month() % 10, day.day() / 10, day.day() % 10};
  for (int64_t d : digits) *p++ = static_cast<char>('0' + d);
  return static_cast<size_t>(p - out);
}

}  // namespace

std::string FrequencyCapQualifier(std::string_view campaign_id, absl::Time now,
                                  const absl::TimeZone& zone) {
  char buffer[kMaxFrequencyCapQualifier];
  return std::string(buffer, WriteQualifier(campaign_id, now, zone, buffer));
}

std::string FrequencyCapMarkerQualifier(std::string_view impression_id) {
  std::string qualifier = "#";
  storage::AppendHex(impression_id, &qualifier);
  return qualifier;
}

int64_t FrequencyCap::CountToday(const Profile& profile, std::string_view campaign_id,
                                 absl::Time now) const {
  if (!profile.present()) return 0;
  char buffer[kMaxFrequencyCapQualifier];
  const size_t size = WriteQualifier(campaign_id, now, zone_, buffer);
  if (size == 0) return 0;
  return profile.Counter(std::string_view(buffer, size));
}

bool FrequencyCap::Reached(const Profile& profile, std::string_view campaign_id, absl::Time now,
                           int pending) const {
  if (!capped()) return false;
  return CountToday(profile, campaign_id, now) + pending >= per_day_;
}

}  // namespace rtb::bidder
