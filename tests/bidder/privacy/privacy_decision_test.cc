// DecidePrivacy as a table: request signals and config in, what the bidder
// may do out. Strings are made by the test encoder.
#include "bidder/privacy/privacy_decision.h"

#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bidder/privacy/gpp_string.h"
#include "gtest/gtest.h"
#include "tests/bidder/privacy/privacy_encoder.h"

namespace rtb::bidder::privacy {
namespace {

using testing::EncodeGppString;
using testing::EncodeTcString;
using testing::EncodeUsSection;
using testing::TcFields;
using testing::UsFields;

constexpr int kUs = 42;  // our GVL vendor id in these tests

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

const std::vector<int> kAllPurposes = {1, 2, 3, 4, 7, 9};

std::string Full() { return Tc{.consents = kAllPurposes}.Encode(); }

std::string Usnat(std::function<void(UsFields&)> change) {
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

std::string UsnatGpp(std::function<void(UsFields&)> change) {
  return EncodeGppString({{kGppUsNational, Usnat(change)}});
}

// Allowed uses as words: bid profile freq key segments measure geo.
PrivacyDecision Expect(PrivacyRegime regime, PrivacyOutcome outcome, const std::string& allowed) {
  std::set<std::string> words;
  std::istringstream in(allowed);
  for (std::string w; in >> w;) words.insert(w);
  if (allowed == "all") words = {"bid", "profile", "freq", "key", "segments", "measure", "geo"};
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
  return d;
}

std::string Describe(const PrivacyDecision& d) {
  std::ostringstream out;
  out << PrivacyRegimeName(d.regime) << "/" << PrivacyOutcomeName(d.outcome) << ":";
  if (d.may_bid) out << " bid";
  if (d.may_read_profile) out << " profile";
  if (d.may_count_frequency_caps) out << " freq";
  if (d.may_use_device_key) out << " key";
  if (d.may_target_segments) out << " segments";
  if (d.may_measure) out << " measure";
  if (d.may_use_precise_geo) out << " geo";
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

std::vector<Row> Table() {
  const std::string contextual = "bid measure geo";
  const std::string us_contextual = "bid freq measure geo";
  return {
      // Which regime applies.
      {"no signals outside Europe",
       {},
       "",
       "",
       "",
       {},
       "USA",
       {},
       Expect(R::kNone, O::kNotApplicable, "all")},
      {"no signals, no country",
       {},
       "",
       "",
       "",
       {},
       "",
       {},
       Expect(R::kNone, O::kNotApplicable, "all")},
      {"geo in the EEA without regs.gdpr and no consent",
       {},
       "",
       "",
       "",
       {},
       "DEU",
       {},
       Expect(R::kGdpr, O::kMissingConsent, "")},
      {"geo, lower-case country",
       {},
       "",
       "",
       "",
       {},
       "aut",
       {},
       Expect(R::kGdpr, O::kMissingConsent, "")},
      {"geo, United Kingdom",
       {},
       "",
       "",
       "",
       {},
       "GBR",
       {},
       Expect(R::kGdpr, O::kMissingConsent, "")},
      {"geo, Switzerland", {}, "", "", "", {}, "CHE", {}, Expect(R::kGdpr, O::kMissingConsent, "")},
      {"geo, Norway", {}, "", "", "", {}, "NOR", {}, Expect(R::kGdpr, O::kMissingConsent, "")},
      {"geo switch off",
       {},
       "",
       "",
       "",
       {},
       "DEU",
       [](config::PrivacyConfig& c) { c.gdpr_applies_by_geo = false; },
       Expect(R::kNone, O::kNotApplicable, "all")},
      {"regs.gdpr=0 wins over geo",
       false,
       "",
       "",
       "",
       {},
       "DEU",
       {},
       Expect(R::kNone, O::kNotApplicable, "all")},
      {"regs.gdpr=1 outside Europe, no consent",
       true,
       "",
       "",
       "",
       {},
       "USA",
       {},
       Expect(R::kGdpr, O::kMissingConsent, "")},
      {"gpp_sid 2 makes GDPR apply despite regs.gdpr=0",
       false,
       "",
       "",
       "",
       {2},
       "USA",
       {},
       Expect(R::kGdpr, O::kMissingConsent, "")},

      // GDPR: purposes and vendor.
      {"full consent",
       true,
       Full(),
       "",
       "",
       {},
       "DEU",
       {},
       Expect(R::kGdpr, O::kPersonalized, "all")},
      {"no purpose 1: contextual",
       true,
       Tc{.consents = {2, 3, 4, 7, 9}}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kContextual, contextual)},
      {"basic ads and measurement on legitimate interest only",
       true,
       Tc{.lis = {2, 7, 9}, .vendor_consent = false}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kContextual, "bid measure")},
      {"no purpose 2: no bid",
       true,
       Tc{.consents = {1, 3, 4, 7, 9}}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kNoBasicAds, "")},
      {"purposes without our vendor: no bid",
       true,
       Tc{.consents = kAllPurposes, .vendor_consent = false, .vendor_li = false}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kNoBasicAds, "")},
      {"purpose 2 LI without our vendor LI: no bid",
       true,
       Tc{.lis = {2}, .vendor_consent = false, .vendor_li = false}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kNoBasicAds, "")},
      {"no GVL id configured: no bid",
       true,
       Full(),
       "",
       "",
       {},
       "",
       [](config::PrivacyConfig& c) { c.gvl_vendor_id = 0; },
       Expect(R::kGdpr, O::kNoBasicAds, "")},
      {"no purpose 3: no segments",
       true,
       Tc{.consents = {1, 2, 4, 7, 9}}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kRestricted, "bid profile freq key measure geo")},
      {"purposes 3 and 4 on LI, LI not allowed",
       true,
       Tc{.consents = {1, 2, 7, 9}, .lis = {3, 4}}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kRestricted, "bid profile freq key measure geo")},
      {"purposes 3 and 4 on LI, LI allowed by config",
       true,
       Tc{.consents = {1, 2, 7, 9}, .lis = {3, 4}}.Encode(),
       "",
       "",
       {},
       "",
       [](config::PrivacyConfig& c) { c.segment_targeting.legitimate_interest = true; },
       Expect(R::kGdpr, O::kPersonalized, "all")},
      {"purpose 1 on LI never counts",
       true,
       Tc{.consents = {2, 3, 4, 7, 9}, .lis = {1}}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kContextual, contextual)},
      {"no purpose 7: no measurement",
       true,
       Tc{.consents = {1, 2, 3, 4, 9}}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kRestricted, "bid profile freq key segments geo")},
      {"no special feature 1: no precise geo",
       true,
       Tc{.consents = kAllPurposes, .special_features = {2}}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kRestricted, "bid profile freq key segments measure")},
      {"special feature 1 without our vendor consent",
       true,
       Tc{.consents = kAllPurposes, .lis = {2, 7, 9}, .vendor_consent = false}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kContextual, "bid measure")},
      {"purposes of a use configured away",
       true,
       Tc{.consents = {1, 2, 3, 4}}.Encode(),
       "",
       "",
       {},
       "",
       [](config::PrivacyConfig& c) { c.measurement.purposes = {}; },
       Expect(R::kGdpr, O::kPersonalized, "all")},

      // GDPR: publisher restrictions on our vendor win.
      {"purpose 2 not allowed for our vendor",
       true,
       Tc{.consents = kAllPurposes, .restrictions = {{2, 0, {{40, 45}}}}}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kNoBasicAds, "")},
      {"purpose 2 not allowed for another vendor",
       true,
       Tc{.consents = kAllPurposes, .restrictions = {{2, 0, {{43, 50}}}}}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kPersonalized, "all")},
      {"require consent for purpose 2, only LI given",
       true,
       Tc{.consents = {1, 3, 4, 7, 9}, .lis = {2}, .restrictions = {{2, 1, {{42, 42}}}}}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kNoBasicAds, "")},
      {"require consent for purpose 2, consent given",
       true,
       Tc{.consents = kAllPurposes, .restrictions = {{2, 1, {{42, 42}}}}}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kPersonalized, "all")},
      {"require LI for purpose 2, only consent given",
       true,
       Tc{.consents = kAllPurposes, .restrictions = {{2, 2, {{1, 100}}}}}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kNoBasicAds, "")},
      {"require LI for purpose 2, LI given",
       true,
       Tc{.consents = kAllPurposes, .lis = {2}, .restrictions = {{2, 2, {{1, 100}}}}}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kPersonalized, "all")},
      {"require LI for purpose 1: no device access",
       true,
       Tc{.consents = kAllPurposes, .lis = {1}, .restrictions = {{1, 2, {{42, 42}}}}}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kContextual, contextual)},
      {"undefined restriction type on purpose 3",
       true,
       Tc{.consents = kAllPurposes, .restrictions = {{3, 3, {{42, 42}}}}}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kRestricted, "bid profile freq key measure geo")},
      {"both consent and LI required: neither counts",
       true,
       Tc{.consents = kAllPurposes,
          .lis = {7},
          .restrictions = {{7, 1, {{42, 42}}}, {7, 2, {{40, 44}}}}}
           .Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kRestricted, "bid profile freq key segments geo")},

      // GDPR: where the TC string comes from, and when it does not count.
      {"malformed consent: no bid",
       true,
       "COvFyGBO!",
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kMalformed, "")},
      {"policy version 2: no bid",
       true,
       Tc{.consents = kAllPurposes, .policy_version = 2}.Encode(),
       "",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kOutdatedPolicy, "")},
      {"policy version 2 allowed by config",
       true,
       Tc{.consents = kAllPurposes, .policy_version = 2}.Encode(),
       "",
       "",
       {},
       "",
       [](config::PrivacyConfig& c) { c.min_tcf_policy_version = 2; },
       Expect(R::kGdpr, O::kPersonalized, "all")},
      {"TC string from the GPP TCF section",
       true,
       "",
       "",
       EncodeGppString({{2, Full()}}),
       {2},
       "",
       {},
       Expect(R::kGdpr, O::kPersonalized, "all")},
      {"TC string from GPP without gpp_sid",
       true,
       "",
       "",
       EncodeGppString({{2, Full()}}),
       {},
       "",
       {},
       Expect(R::kGdpr, O::kPersonalized, "all")},
      {"user.consent wins over the GPP TCF section",
       true,
       Full(),
       "",
       EncodeGppString({{2, Tc{}.Encode()}}),
       {2},
       "",
       {},
       Expect(R::kGdpr, O::kPersonalized, "all")},
      {"no user.consent and a malformed GPP string",
       true,
       "",
       "",
       "DBABM~nonsense",
       {2},
       "",
       {},
       Expect(R::kGdpr, O::kMalformed, "")},
      {"GDPR applies, GPP without a TCF section",
       true,
       "",
       "",
       UsnatGpp([](UsFields&) {}),
       {7},
       "",
       {},
       Expect(R::kGdpr, O::kMissingConsent, "")},

      // US Privacy string.
      {"US Privacy, not opted out",
       {},
       "",
       "1YNN",
       "",
       {},
       "USA",
       {},
       Expect(R::kUs, O::kPersonalized, "all")},
      {"US Privacy opt-out: contextual, frequency caps counted",
       {},
       "",
       "1YYN",
       "",
       {},
       "USA",
       {},
       Expect(R::kUs, O::kOptedOut, us_contextual)},
      {"US Privacy opt-out, frequency caps off by config",
       {},
       "",
       "1YYY",
       "",
       {},
       "USA",
       [](config::PrivacyConfig& c) { c.us_opt_out_counts_frequency_caps = false; },
       Expect(R::kUs, O::kOptedOut, "bid measure geo")},
      {"US Privacy without notice",
       {},
       "",
       "1NNN",
       "",
       {},
       "USA",
       {},
       Expect(R::kUs, O::kOptedOut, us_contextual)},
      {"US Privacy not applicable",
       {},
       "",
       "1---",
       "",
       {},
       "USA",
       {},
       Expect(R::kNone, O::kNotApplicable, "all")},
      {"US Privacy malformed",
       {},
       "",
       "yes",
       "",
       {},
       "USA",
       {},
       Expect(R::kUs, O::kMalformed, contextual)},

      // GPP US sections.
      {"usnat, nothing opted out",
       {},
       "",
       "",
       UsnatGpp([](UsFields&) {}),
       {7},
       "USA",
       {},
       Expect(R::kUs, O::kPersonalized, "all")},
      {"usnat sale opt-out",
       {},
       "",
       "",
       UsnatGpp([](UsFields& f) { f.sale_opt_out = 1; }),
       {7},
       "",
       {},
       Expect(R::kUs, O::kOptedOut, us_contextual)},
      {"usnat sharing opt-out",
       {},
       "",
       "",
       UsnatGpp([](UsFields& f) { f.sharing_opt_out = 1; }),
       {7},
       "",
       {},
       Expect(R::kUs, O::kOptedOut, us_contextual)},
      {"usnat targeted advertising opt-out",
       {},
       "",
       "",
       UsnatGpp([](UsFields& f) { f.targeted_advertising_opt_out = 1; }),
       {7},
       "",
       {},
       Expect(R::kUs, O::kOptedOut, us_contextual)},
      {"usnat targeted advertising notice not given",
       {},
       "",
       "",
       UsnatGpp([](UsFields& f) { f.targeted_advertising_opt_out_notice = 2; }),
       {7},
       "",
       {},
       Expect(R::kUs, O::kOptedOut, us_contextual)},
      {"usnat GPC",
       {},
       "",
       "",
       UsnatGpp([](UsFields& f) { f.gpc = true; }),
       {7},
       "",
       {},
       Expect(R::kUs, O::kOptedOut, us_contextual)},
      {"usnat GPC false",
       {},
       "",
       "",
       UsnatGpp([](UsFields& f) { f.gpc = false; }),
       {7},
       "",
       {},
       Expect(R::kUs, O::kPersonalized, "all")},
      {"usnat service provider mode",
       {},
       "",
       "",
       UsnatGpp([](UsFields& f) { f.mspa_service_provider_mode = 1; }),
       {7},
       "",
       {},
       Expect(R::kUs, O::kOptedOut, us_contextual)},
      {"California sharing opt-out",
       {},
       "",
       "",
       EncodeGppString({{8, EncodeUsSection(8, UsFields{.sharing_opt_out = 1})}}),
       {8},
       "",
       {},
       Expect(R::kUs, O::kOptedOut, us_contextual)},
      {"Virginia targeted advertising opt-out",
       {},
       "",
       "",
       EncodeGppString({{9, EncodeUsSection(9, UsFields{.targeted_advertising_opt_out = 1})}}),
       {9},
       "",
       {},
       Expect(R::kUs, O::kOptedOut, us_contextual)},
      {"only the sections of gpp_sid count",
       {},
       "",
       "",
       EncodeGppString({{7, Usnat([](UsFields& f) { f.sale_opt_out = 1; })},
                        {10, EncodeUsSection(10, UsFields{.sale_opt_out = 2})}}),
       {10},
       "",
       {},
       Expect(R::kUs, O::kPersonalized, "all")},
      {"without gpp_sid every section counts",
       {},
       "",
       "",
       EncodeGppString({{7, Usnat([](UsFields& f) { f.sale_opt_out = 1; })},
                        {10, EncodeUsSection(10, UsFields{.sale_opt_out = 2})}}),
       {},
       "",
       {},
       Expect(R::kUs, O::kOptedOut, us_contextual)},
      {"gpp_sid names a section the string lacks",
       {},
       "",
       "",
       UsnatGpp([](UsFields&) {}),
       {8},
       "",
       {},
       Expect(R::kUs, O::kMalformed, contextual)},
      {"applicable section not decoded",
       {},
       "",
       "",
       EncodeGppString({{13, "BVVqAAEABCA"}}),
       {13},
       "",
       {},
       Expect(R::kUs, O::kUndecodedSection, contextual)},
      {"GPP US Privacy section opt-out",
       {},
       "",
       "",
       EncodeGppString({{6, "1YYN"}}),
       {6},
       "",
       {},
       Expect(R::kUs, O::kOptedOut, us_contextual)},
      {"malformed GPP for a US section",
       {},
       "",
       "",
       "DBABLA~BV!",
       {7},
       "",
       {},
       Expect(R::kUs, O::kMalformed, contextual)},
      {"malformed GPP, no gpp_sid",
       {},
       "",
       "",
       "garbage",
       {},
       "USA",
       {},
       Expect(R::kUs, O::kMalformed, contextual)},
      {"malformed GPP for a Canadian section only",
       {},
       "",
       "",
       "garbage",
       {5},
       "USA",
       {},
       Expect(R::kNone, O::kNotApplicable, "all")},

      // Both regimes.
      {"GDPR personalised and a US opt-out",
       true,
       Full(),
       "1YYN",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kOptedOut, us_contextual)},
      {"GDPR contextual and a US opt-out keep the GDPR reason",
       true,
       Tc{.consents = {2, 3, 4, 7, 9}}.Encode(),
       "1YYN",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kContextual, contextual)},
      {"GDPR no bid and a US signal stay no bid",
       true,
       "",
       "1YNN",
       "",
       {},
       "",
       {},
       Expect(R::kGdpr, O::kMissingConsent, "")},
  };
}

TEST(PrivacyDecisionTest, Table) {
  for (const Row& row : Table()) {
    config::PrivacyConfig config;
    config.gvl_vendor_id = kUs;
    if (row.configure) row.configure(config);
    PrivacySignals signals{.gdpr = row.gdpr,
                           .consent = row.consent,
                           .us_privacy = row.us_privacy,
                           .gpp = row.gpp,
                           .gpp_sid = row.gpp_sid,
                           .device_country = row.country};
    const PrivacyDecision got = DecidePrivacy(signals, config);
    EXPECT_EQ(Describe(got), Describe(row.expected)) << row.name;
  }
}

TEST(PrivacyDecisionTest, EveryRegimeAndOutcomeHasADistinctLabel) {
  std::set<std::string_view> regimes, outcomes;
  for (PrivacyRegime r : kPrivacyRegimes) regimes.insert(PrivacyRegimeName(r));
  for (PrivacyOutcome o : kPrivacyOutcomes) outcomes.insert(PrivacyOutcomeName(o));
  EXPECT_EQ(regimes, (std::set<std::string_view>{"none", "gdpr", "us"}));
  EXPECT_EQ(outcomes.size(), std::size(kPrivacyOutcomes));
  EXPECT_TRUE(outcomes.count("malformed"));
  EXPECT_TRUE(outcomes.count("opted_out"));
  EXPECT_EQ(kPrivacyDecisionsMetric, "bidder_privacy_decisions_total");
}

TEST(PrivacyDecisionTest, GdprCountries) {
  for (const char* c :
       {"AUT", "BEL", "BGR", "HRV", "CYP", "CZE", "DNK", "EST", "FIN", "FRA", "DEU", "GRC",
        "HUN", "IRL", "ITA", "LVA", "LTU", "LUX", "MLT", "NLD", "POL", "PRT", "ROU", "SVK",
        "SVN", "ESP", "SWE", "ISL", "LIE", "NOR", "GBR", "CHE", "REU", "deu"}) {
    EXPECT_TRUE(IsGdprCountry(c)) << c;
  }
  for (const char* c : {"USA", "CAN", "TUR", "RUS", "UKR", "SRB", "DE", "DEUX", "", "GIB"}) {
    EXPECT_FALSE(IsGdprCountry(c)) << c;
  }
}

}  // namespace
}  // namespace rtb::bidder::privacy
