// DecodeTcString: the TC string examples of the TCF specification, then every
// field written by the test encoder and read back, both vendor encodings,
// publisher restrictions, optional segments, and what makes a string
// malformed.
#include "bidder/privacy/tc_string.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/bidder/privacy/privacy_encoder.h"

namespace rtb::bidder::privacy {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::EncodeTcCore;
using testing::EncodeTcString;
using ::testing::HasSubstr;
using testing::TcFields;

std::vector<int> Purposes(uint32_t mask, int max) {
  std::vector<int> ids;
  for (int n = 1; n <= max; ++n) {
    if ((mask >> n) & 1) ids.push_back(n);
  }
  return ids;
}

std::string TcErrorOf(std::string_view text) {
  absl::StatusOr<TcString> tc = DecodeTcString(text);
  return tc.ok() ? std::string("OK") : std::string(tc.status().message());
}

// The specification's OOB examples: a core segment and a DisclosedVendors
// segment. The field values were read off the bits by hand.
constexpr char kSpecCore[] = "COvFyGBOvFyGBAbAAAENAPCAAOAAAAAAAAAAAEEUACCKAAA";
constexpr char kSpecDisclosed[] =
    "IFoEUQQgAIQwgIwQABAEAAAAOIAACAIAAAAQAIAgEAACEAAAAAgAQBAAAAAAAGBAAgAAAAAAAFAAECAAAgAAQARAEQAAAA"
    "AJAAIAAgAAAYQEAAAQmAgBC3ZAYzUw";

TEST(TcStringTest, SpecificationCoreExampleDecodesToItsFields) {
  absl::StatusOr<TcString> tc = DecodeTcString(kSpecCore);
  ASSERT_TRUE(tc.ok()) << tc.status();
  EXPECT_EQ(tc->version, 2);
  EXPECT_EQ(tc->created_ds, 15822430593);
  EXPECT_EQ(tc->last_updated_ds, 15822430593);
  EXPECT_EQ(tc->cmp_id, 27);
  EXPECT_EQ(tc->cmp_version, 0);
  EXPECT_EQ(tc->consent_screen, 0);
  EXPECT_EQ(tc->consent_language, "EN");
  EXPECT_EQ(tc->vendor_list_version, 15);
  EXPECT_EQ(tc->policy_version, 2);
  EXPECT_FALSE(tc->is_service_specific);
  EXPECT_THAT(Purposes(tc->purpose_consents, 24), ElementsAre(1, 2, 3));
  EXPECT_EQ(tc->purpose_legitimate_interests, 0u);
  EXPECT_EQ(tc->publisher_country, "AA");
  EXPECT_FALSE(tc->vendor_consents.range_encoded());
  EXPECT_EQ(tc->vendor_consents.max_vendor_id(), 8);
  EXPECT_THAT(tc->vendor_consents.Ids(), ElementsAre(2, 6, 8));
  EXPECT_THAT(tc->vendor_legitimate_interests.Ids(), ElementsAre(2, 6, 8));
  EXPECT_TRUE(tc->publisher_restrictions.empty());
  EXPECT_EQ(tc->segment_types, 0);
}

TEST(TcStringTest, SpecificationDisclosedVendorsSegmentIsRecognisedByType) {
  absl::StatusOr<TcString> tc = DecodeTcString(std::string(kSpecCore) + "." + kSpecDisclosed);
  ASSERT_TRUE(tc.ok()) << tc.status();
  EXPECT_TRUE(tc->HasSegment(TcSegmentType::kDisclosedVendors));
  EXPECT_FALSE(tc->HasSegment(TcSegmentType::kPublisherTc));
  EXPECT_THAT(tc->vendor_consents.Ids(), ElementsAre(2, 6, 8));
}

TEST(TcStringTest, SpecificationAllowedVendorsExampleIsRecognisedByType) {
  // Core, DisclosedVendors and AllowedVendors, as the specification lists it.
  const std::string text =
      "CGL23UdMFJzvuA9ACCENAXCEAC0AAGrAAA5YA5ht7-_d_7_vd-f-nrf4_4A4hM4JCKoK4YhmAqABgAEgAA."
      "IFut_a83_Ma_t-_SvB3v4-"
      "IAeIAACAIgSAAQAIAgEQACEABAAAgAQFAEAIAAAGBAAgAAAAQAIFAAMCQAAgAAQiRAEQAAAAANAAIA"
      "AggAIYQFAAARmggBC3ZCYzU2yIA."
      "QFulWfTw4obx_"
      "Z2zUj6XkNIAeIAACAIgSAAQAIAgEQACEABAAAgAQFAEAIAAAGBAAgAAAAQAIFAAMCQAAgAAQiRAEQAAAAANAAIA"
      "AggAIYQFAAARmggBC3ZCYzU2yIA";
  absl::StatusOr<TcString> tc = DecodeTcString(text);
  ASSERT_TRUE(tc.ok()) << tc.status();
  EXPECT_TRUE(tc->HasSegment(TcSegmentType::kDisclosedVendors));
  EXPECT_TRUE(tc->HasSegment(TcSegmentType::kAllowedVendors));
  EXPECT_EQ(tc->cmp_id, 61);
  EXPECT_EQ(tc->publisher_country, "HL");
  EXPECT_THAT(Purposes(tc->purpose_consents, 24), ElementsAre(3, 5, 6, 8));
  EXPECT_THAT(Purposes(tc->purpose_legitimate_interests, 24), ElementsAre(2, 3, 5, 7, 9, 10));
  EXPECT_TRUE(tc->HasSpecialFeatureOptIn(2));
  EXPECT_EQ(tc->vendor_consents.max_vendor_id(), 115);
  EXPECT_TRUE(tc->vendor_consents.Contains(4));
  EXPECT_FALSE(tc->vendor_consents.Contains(6));
  EXPECT_TRUE(tc->vendor_consents.Contains(115));
  EXPECT_EQ(tc->vendor_legitimate_interests.max_vendor_id(), 113);
  EXPECT_TRUE(tc->vendor_legitimate_interests.Contains(113));
  EXPECT_FALSE(tc->vendor_legitimate_interests.Contains(112));
}

TEST(TcStringTest, GppSpecificationTcfSectionDecodes) {
  // The TCF EU section of the GPP specification's examples: service
  // specific, German publisher, nothing consented.
  absl::StatusOr<TcString> tc = DecodeTcString("CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA");
  ASSERT_TRUE(tc.ok()) << tc.status();
  EXPECT_EQ(tc->cmp_id, 31);
  EXPECT_EQ(tc->cmp_version, 640);
  EXPECT_EQ(tc->vendor_list_version, 126);
  EXPECT_TRUE(tc->is_service_specific);
  EXPECT_EQ(tc->publisher_country, "DE");
  EXPECT_EQ(tc->purpose_consents, 0u);
  EXPECT_EQ(tc->vendor_consents.max_vendor_id(), 0);
  EXPECT_FALSE(tc->vendor_consents.Contains(1));
}

TEST(TcStringTest, SpecificationVersionOneStringIsRejected) {
  // The specification's TCF v1.1 example ('B' = version 1).
  EXPECT_THAT(TcErrorOf("BObdrPUOevsguAfDqFENCNAAAAAmeAAA.PVAfDObdrA"), HasSubstr("version 1"));
}

TEST(TcStringTest, EveryCoreFieldRoundTrips) {
  TcFields f;
  f.created_ds = 16999999999;
  f.last_updated_ds = (int64_t{1} << 36) - 1;
  f.cmp_id = 4095;
  f.cmp_version = 1234;
  f.consent_screen = 63;
  f.consent_language = "FR";
  f.vendor_list_version = 4000;
  f.policy_version = 5;
  f.is_service_specific = false;
  f.use_non_standard_texts = true;
  f.special_features = {1, 12};
  f.purpose_consents = {1, 2, 3, 4, 7, 9, 24};
  f.purpose_legitimate_interests = {2, 7, 10};
  f.purpose_one_treatment = true;
  f.publisher_country = "ZA";
  f.vendor_consents.ids = {1, 755, 1200};
  f.vendor_legitimate_interests.ids = {3};
  absl::StatusOr<TcString> tc = DecodeTcString(EncodeTcString(f));
  ASSERT_TRUE(tc.ok()) << tc.status();
  EXPECT_EQ(tc->version, 2);
  EXPECT_EQ(tc->created_ds, 16999999999);
  EXPECT_EQ(tc->last_updated_ds, (int64_t{1} << 36) - 1);
  EXPECT_EQ(tc->cmp_id, 4095);
  EXPECT_EQ(tc->cmp_version, 1234);
  EXPECT_EQ(tc->consent_screen, 63);
  EXPECT_EQ(tc->consent_language, "FR");
  EXPECT_EQ(tc->vendor_list_version, 4000);
  EXPECT_EQ(tc->policy_version, 5);
  EXPECT_FALSE(tc->is_service_specific);
  EXPECT_TRUE(tc->use_non_standard_texts);
  EXPECT_THAT(Purposes(tc->special_feature_opt_ins, 12), ElementsAre(1, 12));
  EXPECT_TRUE(tc->HasSpecialFeatureOptIn(1));
  EXPECT_FALSE(tc->HasSpecialFeatureOptIn(2));
  EXPECT_THAT(Purposes(tc->purpose_consents, 24), ElementsAre(1, 2, 3, 4, 7, 9, 24));
  EXPECT_TRUE(tc->HasPurposeConsent(24));
  EXPECT_FALSE(tc->HasPurposeConsent(25));
  EXPECT_FALSE(tc->HasPurposeConsent(0));
  EXPECT_THAT(Purposes(tc->purpose_legitimate_interests, 24), ElementsAre(2, 7, 10));
  EXPECT_TRUE(tc->purpose_one_treatment);
  EXPECT_EQ(tc->publisher_country, "ZA");
  EXPECT_THAT(tc->vendor_consents.Ids(), ElementsAre(1, 755, 1200));
  EXPECT_THAT(tc->vendor_legitimate_interests.Ids(), ElementsAre(3));
}

TEST(TcStringTest, BitFieldAndRangeEncodingsHoldTheSameVendors) {
  std::vector<int> ids = {2, 3, 4, 5, 90, 91, 755, 1000, 1001, 1002, 1700};
  for (bool range : {false, true}) {
    TcFields f;
    f.vendor_consents.ids = ids;
    f.vendor_consents.range_encoding = range;
    f.vendor_legitimate_interests.ids = {7, 8};
    f.vendor_legitimate_interests.range_encoding = !range;
    absl::StatusOr<TcString> tc = DecodeTcString(EncodeTcString(f));
    ASSERT_TRUE(tc.ok()) << tc.status();
    EXPECT_EQ(tc->vendor_consents.range_encoded(), range);
    EXPECT_EQ(tc->vendor_legitimate_interests.range_encoded(), !range);
    EXPECT_EQ(tc->vendor_consents.max_vendor_id(), 1700);
    EXPECT_THAT(tc->vendor_consents.Ids(), ElementsAreArray(ids)) << "range " << range;
    EXPECT_THAT(tc->vendor_legitimate_interests.Ids(), ElementsAre(7, 8));
    for (int v : {0, 1, 6, 89, 92, 754, 756, 999, 1003, 1699, 1701, 65535}) {
      EXPECT_FALSE(tc->vendor_consents.Contains(v)) << v << " range " << range;
    }
  }
}

TEST(TcStringTest, MaxVendorIdAboveTheLastVendorIsKept) {
  TcFields f;
  f.vendor_consents.ids = {10};
  f.vendor_consents.max_vendor_id = 3000;
  absl::StatusOr<TcString> tc = DecodeTcString(EncodeTcString(f));
  ASSERT_TRUE(tc.ok()) << tc.status();
  EXPECT_EQ(tc->vendor_consents.max_vendor_id(), 3000);
  EXPECT_THAT(tc->vendor_consents.Ids(), ElementsAre(10));
}

TEST(TcStringTest, UnsortedAndOverlappingRangeEntriesAreMerged) {
  TcFields f;
  f.vendor_consents.range_encoding = true;
  f.vendor_consents.explicit_ranges = {{50, 60}, {1, 3}, {55, 70}, {4, 4}, {100, 100}, {20, 25}};
  absl::StatusOr<TcString> tc = DecodeTcString(EncodeTcString(f));
  ASSERT_TRUE(tc.ok()) << tc.status();
  std::vector<int> expected = {1, 2, 3, 4};
  for (int v = 20; v <= 25; ++v) expected.push_back(v);
  for (int v = 50; v <= 70; ++v) expected.push_back(v);
  expected.push_back(100);
  EXPECT_THAT(tc->vendor_consents.Ids(), ElementsAreArray(expected));
}

TEST(TcStringTest, ManySingleRangeEntriesAreFoundByLookup) {
  TcFields f;
  f.vendor_consents.range_encoding = true;
  for (int v = 3; v <= 1200; v += 4) f.vendor_consents.ids.push_back(v);  // 300 entries
  absl::StatusOr<TcString> tc = DecodeTcString(EncodeTcString(f));
  ASSERT_TRUE(tc.ok()) << tc.status();
  for (int v = 1; v <= 1200; ++v) {
    ASSERT_EQ(tc->vendor_consents.Contains(v), v % 4 == 3) << v;
  }
}

TEST(TcStringTest, PublisherRestrictionsRoundTripAndAreFoundPerVendorAndPurpose) {
  TcFields f;
  f.restrictions = {
      {.purpose_id = 2, .type = 0, .ranges = {{10, 10}, {20, 30}}},
      {.purpose_id = 3, .type = 1, .ranges = {{1, 100}}},
      {.purpose_id = 7, .type = 2, .ranges = {{25, 25}}},
      {.purpose_id = 9, .type = 3, .ranges = {}},
  };
  absl::StatusOr<TcString> tc = DecodeTcString(EncodeTcString(f));
  ASSERT_TRUE(tc.ok()) << tc.status();
  EXPECT_THAT(
      tc->publisher_restrictions,
      ElementsAre(PublisherRestriction{2, RestrictionType::kNotAllowed, {10, 10}},
                  PublisherRestriction{2, RestrictionType::kNotAllowed, {20, 30}},
                  PublisherRestriction{3, RestrictionType::kRequireConsent, {1, 100}},
                  PublisherRestriction{7, RestrictionType::kRequireLegitimateInterest, {25, 25}}));
  EXPECT_EQ(tc->RestrictionsFor(25, 2), 1 << 0);
  EXPECT_EQ(tc->RestrictionsFor(25, 3), 1 << 1);
  EXPECT_EQ(tc->RestrictionsFor(25, 7), 1 << 2);
  EXPECT_EQ(tc->RestrictionsFor(15, 2), 0);
  EXPECT_EQ(tc->RestrictionsFor(101, 3), 0);
  EXPECT_EQ(tc->RestrictionsFor(25, 9), 0);
}

TEST(TcStringTest, OptionalSegmentsAreSkippedByType) {
  TcFields f;
  f.vendor_consents.ids = {5};
  f.segment_types = {3, 1};
  absl::StatusOr<TcString> tc = DecodeTcString(EncodeTcString(f));
  ASSERT_TRUE(tc.ok()) << tc.status();
  EXPECT_TRUE(tc->HasSegment(TcSegmentType::kPublisherTc));
  EXPECT_TRUE(tc->HasSegment(TcSegmentType::kDisclosedVendors));
  EXPECT_FALSE(tc->HasSegment(TcSegmentType::kAllowedVendors));
  EXPECT_THAT(tc->vendor_consents.Ids(), ElementsAre(5));
}

TEST(TcStringTest, SegmentOfUnknownTypeOrEmptyIsMalformed) {
  TcFields f;
  f.segment_types = {0};
  EXPECT_THAT(TcErrorOf(EncodeTcString(f)), HasSubstr("unknown type 0"));
  f.segment_types = {4};
  EXPECT_THAT(TcErrorOf(EncodeTcString(f)), HasSubstr("unknown type 4"));
  f.segment_types = {};
  EXPECT_THAT(TcErrorOf(EncodeTcString(f) + "."), HasSubstr("empty segment"));
  EXPECT_THAT(TcErrorOf(EncodeTcString(f) + ".I*"), HasSubstr("base64url"));
}

TEST(TcStringTest, StandardBase64AndPaddingAreAccepted) {
  TcFields f;
  f.vendor_consents.ids = {1, 2, 3, 4, 5, 6};  // enough set bits for '-' and '_'
  f.vendor_legitimate_interests.ids = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  std::string text = EncodeTcString(f);
  ASSERT_NE(text.find_first_of("-_"), std::string::npos) << text;
  std::string standard = text;
  for (char& c : standard) c = c == '-' ? '+' : c == '_' ? '/' : c;
  absl::StatusOr<TcString> a = DecodeTcString(text);
  absl::StatusOr<TcString> b = DecodeTcString(standard + "==");
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->vendor_consents.Ids(), b->vendor_consents.Ids());
  EXPECT_EQ(a->vendor_legitimate_interests.Ids(), b->vendor_legitimate_interests.Ids());
}

TEST(TcStringTest, MalformedStringsAreErrorsNamingTheProblem) {
  EXPECT_THAT(TcErrorOf(""), HasSubstr("empty"));
  EXPECT_THAT(TcErrorOf(".IFoE"), HasSubstr("empty"));
  EXPECT_THAT(TcErrorOf("CO vFyG"), HasSubstr("base64url"));
  EXPECT_THAT(TcErrorOf("C"), HasSubstr("ends inside the core segment"));
  EXPECT_THAT(TcErrorOf("D"), HasSubstr("version 3"));

  TcFields f;
  f.consent_language = "E[";  // 26: beyond z
  EXPECT_THAT(TcErrorOf(EncodeTcString(f)), HasSubstr("letter"));

  TcFields range;
  range.vendor_consents.range_encoding = true;
  range.vendor_consents.explicit_ranges = {{10, 5}};
  range.vendor_consents.max_vendor_id = 20;
  EXPECT_THAT(TcErrorOf(EncodeTcString(range)), HasSubstr("ends before it starts"));
  range.vendor_consents.explicit_ranges = {{0, 0}};
  EXPECT_THAT(TcErrorOf(EncodeTcString(range)), HasSubstr("vendor id 0"));
  range.vendor_consents.explicit_ranges = {{5, 30}};
  EXPECT_THAT(TcErrorOf(EncodeTcString(range)), HasSubstr("beyond MaxVendorId"));

  TcFields restriction;
  restriction.restrictions = {{.purpose_id = 2, .type = 0, .ranges = {{9, 3}}}};
  EXPECT_THAT(TcErrorOf(EncodeTcString(restriction)), HasSubstr("ends before it starts"));
}

TEST(TcStringTest, EveryTruncationOfTheCoreIsAnError) {
  TcFields f;
  f.vendor_consents.ids = {1, 5, 9, 400};
  f.vendor_consents.range_encoding = true;
  f.vendor_legitimate_interests.ids = {2, 3};
  f.restrictions = {{.purpose_id = 4, .type = 1, .ranges = {{3, 8}, {12, 12}}}};
  const testing::BitWriter bits = EncodeTcCore(f);
  const std::string text = bits.ToBase64Url();
  ASSERT_TRUE(DecodeTcString(text).ok());
  // Every cut that loses a bit of the last field is an error; a cut in the
  // padding of the last character is not.
  const size_t whole_characters = bits.size() / 6;
  for (size_t length = 0; length < whole_characters; ++length) {
    EXPECT_FALSE(DecodeTcString(text.substr(0, length)).ok()) << "length " << length;
  }
}

TEST(TcStringTest, DecodingIntoAReusedValueForgetsTheLastString) {
  TcFields first;
  first.vendor_consents.ids = {1, 2};
  first.restrictions = {{.purpose_id = 2, .type = 0, .ranges = {{1, 1}}}};
  first.segment_types = {1};
  TcFields second;
  second.vendor_consents.ids = {9};
  second.vendor_consents.range_encoding = true;
  TcString tc;
  ASSERT_TRUE(DecodeTcString(EncodeTcString(first), &tc).ok());
  ASSERT_TRUE(DecodeTcString(EncodeTcString(second), &tc).ok());
  EXPECT_THAT(tc.vendor_consents.Ids(), ElementsAre(9));
  EXPECT_TRUE(tc.publisher_restrictions.empty());
  EXPECT_EQ(tc.segment_types, 0);
}

}  // namespace
}  // namespace rtb::bidder::privacy
