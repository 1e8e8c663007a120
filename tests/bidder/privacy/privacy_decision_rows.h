// The table DecidePrivacy is tested against (privacy_decision_test.cc): a
// row is request signals and config in, what the bidder may do out; the
// helpers make the rows' strings with the test encoder.
#ifndef RTB_TESTS_BIDDER_PRIVACY_PRIVACY_DECISION_ROWS_H_
#define RTB_TESTS_BIDDER_PRIVACY_PRIVACY_DECISION_ROWS_H_

#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bidder/privacy/gpp_string.h"
#include "bidder/privacy/privacy_decision.h"
#include "tests/bidder/privacy/privacy_encoder.h"

namespace rtb::bidder::privacy::decision_table {

using testing::EncodeGppString;
using testing::EncodeTcString;
using testing::EncodeUsSection;
using testing::TcFields;
using testing::UsFields;

inline constexpr int kUs = 42;  // our GVL vendor id in these tests

// A TC string: consent for `consents`, legitimate interest for `lis`, our
// vendor in both vendor sections unless told otherwise.
struct Tc {
  std::vector<int> consents;
  std::vector<int> lis;
  std::vector<int> special_features = {1};
  bool vendor_consent = true;
  bool vendor_li = true;
  int policy_version = 4;
  std::vector<testing::TcRestriction> restrictions;

  std::string Encode() const {
    TcFields f;
    f.purpose_consents = consents;
    f.purpose_legitimate_interests = lis;
    f.special_features = special_features;
    f.policy_version = policy_version;
    f.vendor_consents.ids = {7, 300};
    if (vendor_consent) f.vendor_consents.ids.push_back(kUs);
    f.vendor_legitimate_interests.ids = {8};
    if (vendor_li) f.vendor_legitimate_interests.ids.push_back(kUs);
    f.vendor_legitimate_interests.range_encoding = true;
    f.restrictions = restrictions;
    return EncodeTcString(f);
  }
};

inline const std::vector<int> kAllPurposes = {1, 2, 3, 4, 7, 9};

inline std::string Full() { return Tc{.consents = kAllPurposes}.Encode(); }

inline std::string Usnat(std::function<void(UsFields&)> change) {
  UsFields f;
  f.sharing_notice = 1;
  f.sale_opt_out_notice = 1;
  f.sharing_opt_out_notice = 1;
  f.targeted_advertising_opt_out_notice = 1;
  f.sale_opt_out = 2;
  f.sharing_opt_out = 2;
  f.targeted_advertising_opt_out = 2;
  f.mspa_opt_out_option_mode = 1;
  f.mspa_service_provider_mode = 2;
  change(f);
  return EncodeUsSection(kGppUsNational, f);
}

inline std::string UsnatGpp(std::function<void(UsFields&)> change) {
  return EncodeGppString({{kGppUsNational, Usnat(change)}});
}

// A section of the later state laws (Texas unless `id` says otherwise) with
// every notice given and nothing opted out, then `change`.
inline std::string Texas(std::function<void(UsFields&)> change, int id = kGppUsTexas) {
  UsFields f;
  f.processing_notice = 1;
  f.sale_opt_out_notice = 1;
  f.targeted_advertising_opt_out_notice = 1;
  f.sensitive_data_processing_opt_out_notice = 1;
  f.sale_opt_out = 2;
  f.targeted_advertising_opt_out = 2;
  f.mspa_opt_out_option_mode = 1;
  f.mspa_service_provider_mode = 2;
  change(f);
  return EncodeUsSection(id, f);
}

// Allowed uses as words: bid profile freq key segments measure geo, or all;
// and unused_malformed_gpp when the decision says so.
inline PrivacyDecision Expect(PrivacyRegime regime, PrivacyOutcome outcome,
                              const std::string& allowed) {
  std::set<std::string> words;
  std::istringstream in(allowed);
  for (std::string w; in >> w;) words.insert(w);
  if (words.count("all")) {
    words.insert({"bid", "profile", "freq", "key", "segments", "measure", "geo"});
  }
  PrivacyDecision d;
  d.regime = regime;
  d.outcome = outcome;
  d.may_bid = words.count("bid");
  d.may_read_profile = words.count("profile");
  d.may_count_frequency_caps = words.count("freq");
  d.may_use_device_key = words.count("key");
  d.may_target_segments = words.count("segments");
  d.may_measure = words.count("measure");
  d.may_use_precise_geo = words.count("geo");
  d.unused_malformed_gpp = words.count("unused_malformed_gpp");
  return d;
}

inline std::string Describe(const PrivacyDecision& d) {
  std::ostringstream out;
  out << PrivacyRegimeName(d.regime) << "/" << PrivacyOutcomeName(d.outcome) << ":";
  if (d.may_bid) out << " bid";
  if (d.may_read_profile) out << " profile";
  if (d.may_count_frequency_caps) out << " freq";
  if (d.may_use_device_key) out << " key";
  if (d.may_target_segments) out << " segments";
  if (d.may_measure) out << " measure";
  if (d.may_use_precise_geo) out << " geo";
  if (d.unused_malformed_gpp) out << " unused_malformed_gpp";
  return out.str();
}

struct Row {
  std::string name;
  std::optional<bool> gdpr;
  std::string consent;
  std::string us_privacy;
  std::string gpp;
  std::vector<int32_t> gpp_sid;
  std::string country;
  std::function<void(config::PrivacyConfig&)> configure;
  PrivacyDecision expected;
};

using R = PrivacyRegime;
using O = PrivacyOutcome;

// The rows of the table, by regime (privacy_decision_gdpr_rows.cc and
// privacy_decision_us_rows.cc).
std::vector<Row> GdprRows();
std::vector<Row> UsRows();

}  // namespace rtb::bidder::privacy::decision_table

#endif  // RTB_TESTS_BIDDER_PRIVACY_PRIVACY_DECISION_ROWS_H_
