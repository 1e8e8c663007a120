#include "bidder/privacy/us_privacy.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace rtb::bidder::privacy {
namespace {

bool ReadFlag(char c, UsPrivacyFlag* flag) {
  switch (c) {
    case 'Y':
    case 'y':
      *flag = UsPrivacyFlag::kYes;
      return true;
    case 'N':
    case 'n':
      *flag = UsPrivacyFlag::kNo;
      return true;
    case '-':
      *flag = UsPrivacyFlag::kNotApplicable;
      return true;
    default:
      return false;
  }
}

}  // namespace

absl::StatusOr<UsPrivacy> DecodeUsPrivacy(std::string_view text) {
  if (text.size() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("US Privacy string: ", text.size(), " characters, expected 4"));
  }
  if (text[0] != '1') {
    return absl::InvalidArgumentError("US Privacy string: version is not 1");
  }
  UsPrivacy out;
  if (!ReadFlag(text[1], &out.notice) || !ReadFlag(text[2], &out.opt_out_sale) ||
      !ReadFlag(text[3], &out.lspa_covered)) {
    return absl::InvalidArgumentError("US Privacy string: a flag other than Y, N or -");
  }
  return out;
}

}  // namespace rtb::bidder::privacy
