// The privacy step of the bid path: the request's signals as bidder/privacy
// reads them, and the decision -> behaviour mapping as a table.
#include "bidder/bid/internal/request_privacy.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/bidder/decision_fixtures.h"
#include "tests/bidder/privacy/privacy_encoder.h"

namespace rtb::bidder {
namespace {

using privacy::PrivacyDecision;
using testing::MustParse;

// A decision with every use allowed but those `denied` names.
PrivacyDecision Allowing(std::vector<bool PrivacyDecision::*> denied) {
  PrivacyDecision d;
  for (bool PrivacyDecision::*use : denied) d.*use = false;
  return d;
}

RequestPermissions Expect(bool bid, bool segments, bool frequency_caps, bool device_key,
                          bool precise_geo, bool count, bool measure, bool cap_keys = false) {
  RequestPermissions p;
  p.frequency_cap_keys = cap_keys;
  p.bid = bid;
  p.read_segments = segments;
  // A device's engagement history personalises the price as a segment does.
  p.read_history = segments;
  p.read_frequency_caps = frequency_caps;
  p.device_key = device_key;
  p.precise_geo = precise_geo;
  p.beacons.count_frequency_cap = count;
  p.beacons.measure = measure;
  return p;
}

TEST(RequestPrivacyTest, DecisionToBehaviourTable) {
  using D = PrivacyDecision;
  const struct {
    const char* name;
    PrivacyDecision decision;
    RequestPermissions expected;
  } table[] = {
      //                                   bid    seg    fc     key    geo    count  measure  cap
      //                                   keys
      {"everything", Allowing({}), Expect(true, true, true, true, true, true, true)},
      {"no bid", Allowing({&D::may_bid}), Expect(false, false, false, false, false, false, false)},
      // Counted under the key in the URL, not read (errs towards bidding).
      {"no profile", Allowing({&D::may_read_profile}),
       Expect(true, false, false, true, true, true, true)},
      {"no segments", Allowing({&D::may_target_segments}),
       Expect(true, false, true, true, true, true, true)},
      {"no frequency caps", Allowing({&D::may_count_frequency_caps}),
       Expect(true, true, false, true, true, false, true)},
      // Caps, but no device key in URLs: they move to cap-only keys.
      {"no device key", Allowing({&D::may_use_device_key}),
       Expect(true, true, false, false, true, true, true, true)},
      {"no measurement", Allowing({&D::may_measure}),
       Expect(true, true, true, true, true, true, false)},
      {"no precise geo", Allowing({&D::may_use_precise_geo}),
       Expect(true, true, true, true, false, true, true)},
      // GDPR without purpose 1: basic ads only.
      {"gdpr contextual",
       Allowing({&D::may_read_profile, &D::may_count_frequency_caps, &D::may_use_device_key,
                 &D::may_target_segments, &D::may_measure}),
       Expect(true, false, false, false, true, false, false)},
      // A US opt-out that still counts caps: read and counted under
      // cap-only keys, never under the device key, which no URL carries.
      {"us opt-out",
       Allowing({&D::may_read_profile, &D::may_use_device_key, &D::may_target_segments}),
       Expect(true, false, false, false, true, true, true, true)},
      // The same with us_opt_out_counts_frequency_caps off: no caps at all.
      {"us opt-out, caps off",
       Allowing({&D::may_read_profile, &D::may_use_device_key, &D::may_target_segments,
                 &D::may_count_frequency_caps}),
       Expect(true, false, false, false, true, false, true)},
  };
  for (const auto& row : table) {
    SCOPED_TRACE(row.name);
    const RequestPermissions got = PermissionsOf(row.decision);
    EXPECT_EQ(got, row.expected);
    EXPECT_EQ(got.lookup(), row.expected.read_segments || row.expected.read_frequency_caps);
    // The device key is computed only for a use that needs it.
    EXPECT_EQ(got.needs_device_key(),
              got.lookup() || got.device_key || row.expected.frequency_cap_keys);
  }
}

TEST(RequestPrivacyTest, SignalsAreReadFromBothOpenRtbLocations) {
  const openrtb::BidRequest r26 = MustParse(
      R"({"id":"r","imp":[{"id":"1"}],"device":{"geo":{"country":"AUT"}},)"
      R"("user":{"consent":"TC"},"regs":{"gdpr":1,"us_privacy":"1YNN","gpp":"G","gpp_sid":[2,7]}})");
  privacy::PrivacySignals s = SignalsOf(r26);
  EXPECT_EQ(s.gdpr, true);
  EXPECT_EQ(s.consent, "TC");
  EXPECT_EQ(s.us_privacy, "1YNN");
  EXPECT_EQ(s.gpp, "G");
  EXPECT_EQ(std::vector<int32_t>(s.gpp_sid.begin(), s.gpp_sid.end()), (std::vector<int32_t>{2, 7}));
  EXPECT_EQ(s.device_country, "AUT");

  const openrtb::BidRequest r25 =
      MustParse(R"({"id":"r","imp":[{"id":"1"}],"user":{"ext":{"consent":"TC25"}},)"
                R"("regs":{"ext":{"gdpr":0,"us_privacy":"1YYN"}}})");
  s = SignalsOf(r25);
  EXPECT_EQ(s.gdpr, false);
  EXPECT_EQ(s.consent, "TC25");
  EXPECT_EQ(s.us_privacy, "1YYN");

  s = SignalsOf(MustParse(R"({"id":"r","imp":[{"id":"1"}]})"));
  EXPECT_FALSE(s.gdpr.has_value());
  EXPECT_TRUE(s.consent.empty());
  EXPECT_TRUE(s.device_country.empty());
}

// The decision and the mapping together, from requests' signals.
TEST(RequestPrivacyTest, RequestsToBehaviourTable) {
  config::PrivacyConfig config;
  config.gvl_vendor_id = 42;
  auto tc = [](std::vector<int> purposes, std::vector<int> special_features) {
    privacy::testing::TcFields fields;
    fields.purpose_consents = std::move(purposes);
    fields.special_features = std::move(special_features);
    fields.vendor_consents.ids = {42};
    return privacy::testing::EncodeTcString(fields);
  };
  const std::string all = tc({1, 2, 3, 4, 7, 9}, {1});
  const struct {
    const char* name;
    std::string regs_and_user;
    RequestPermissions expected;
  } table[] = {
      {"no signals", R"("device":{"geo":{"country":"USA"}})",
       Expect(true, true, true, true, true, true, true)},
      {"gdpr by geo, no string", R"("device":{"geo":{"country":"FRA"}})",
       Expect(false, false, false, false, false, false, false)},
      {"gdpr, everything", R"("regs":{"gdpr":1},"user":{"consent":")" + all + R"("})",
       Expect(true, true, true, true, true, true, true)},
      {"gdpr, no special feature 1",
       R"("regs":{"gdpr":1},"user":{"consent":")" + tc({1, 2, 3, 4, 7, 9}, {}) + R"("})",
       Expect(true, true, true, true, false, true, true)},
      {"gdpr, purpose 2 only", R"("regs":{"gdpr":1},"user":{"consent":")" + tc({2}, {1}) + R"("})",
       Expect(true, false, false, false, true, false, false)},
      {"gdpr, no segments",
       R"("regs":{"gdpr":1},"user":{"consent":")" + tc({1, 2, 7, 9}, {1}) + R"("})",
       Expect(true, false, true, true, true, true, true)},
      {"us privacy opt-out", R"("regs":{"us_privacy":"1YYN"})",
       Expect(true, false, false, false, true, true, true, /*cap_keys=*/true)},
      // What the US signal says cannot be read: no caps either.
      {"us privacy malformed", R"("regs":{"us_privacy":"yes"})",
       Expect(true, false, false, false, true, false, true)},
      {"us privacy, not opted out", R"("regs":{"us_privacy":"1YNN"})",
       Expect(true, true, true, true, true, true, true)},
  };
  for (const auto& row : table) {
    SCOPED_TRACE(row.name);
    const openrtb::BidRequest request =
        MustParse(R"({"id":"r","imp":[{"id":"1"}],)" + row.regs_and_user + "}");
    EXPECT_EQ(PermissionsOf(privacy::DecidePrivacy(SignalsOf(request), config)), row.expected);
  }
}

TEST(RequestPrivacyTest, DropPreciseGeoKeepsTheCountry) {
  openrtb::BidRequest r = MustParse(
      R"({"id":"r","imp":[{"id":"1"}],"device":{"geo":{"country":"DEU","lat":52.5,"lon":13.4,"city":"Berlin"}}})");
  DropPreciseGeo(&r);
  EXPECT_FALSE(r.device->geo->lat.has_value());
  EXPECT_FALSE(r.device->geo->lon.has_value());
  EXPECT_EQ(r.device->geo->country, "DEU");
  EXPECT_EQ(r.device->geo->city, "Berlin");
  openrtb::BidRequest no_device = MustParse(R"({"id":"r","imp":[{"id":"1"}]})");
  DropPreciseGeo(&no_device);
  EXPECT_FALSE(no_device.device.has_value());
}

}  // namespace
}  // namespace rtb::bidder
