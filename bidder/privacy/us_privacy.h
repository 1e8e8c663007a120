// The IAB CCPA US Privacy string (`regs.us_privacy`, and section 6 of a GPP
// string): four characters, e.g. "1YNN".
//
//   position 0   version, '1'
//   position 1   notice of the right to opt out given:  'Y', 'N' or '-'
//   position 2   the user opted out of the sale:        'Y', 'N' or '-'
//   position 3   covered by the IAB LSPA:               'Y', 'N' or '-'
//
// '-' means the field does not apply ("1---": the law does not apply).
// Lower-case 'y' and 'n' are read as upper case. Anything else is
// InvalidArgument.
//
// Thread-safety: UsPrivacy is a plain value.
#ifndef RTB_BIDDER_PRIVACY_US_PRIVACY_H_
#define RTB_BIDDER_PRIVACY_US_PRIVACY_H_

#include <string_view>

#include "absl/status/statusor.h"

namespace rtb::bidder::privacy {

enum class UsPrivacyFlag : char {
  kNotApplicable = '-',
  kYes = 'Y',
  kNo = 'N',
};

struct UsPrivacy {
  int version = 1;
  UsPrivacyFlag notice = UsPrivacyFlag::kNotApplicable;
  UsPrivacyFlag opt_out_sale = UsPrivacyFlag::kNotApplicable;
  UsPrivacyFlag lspa_covered = UsPrivacyFlag::kNotApplicable;
  bool operator==(const UsPrivacy&) const = default;
};

absl::StatusOr<UsPrivacy> DecodeUsPrivacy(std::string_view text);

}  // namespace rtb::bidder::privacy

#endif  // RTB_BIDDER_PRIVACY_US_PRIVACY_H_
