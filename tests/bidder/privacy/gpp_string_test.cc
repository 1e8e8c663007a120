// DecodeGppString: the GPP specification's header and string examples, the
// TCF EU and US Privacy sections inside GPP, every field of the US National
// and state sections written by the test encoder and read back, and what
// makes a GPP string malformed.
#include "bidder/privacy/gpp_string.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/bidder/privacy/privacy_encoder.h"

namespace rtb::bidder::privacy {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::EncodeGppHeader;
using testing::EncodeGppString;
using testing::EncodeUsSection;
using ::testing::HasSubstr;
using testing::UsFields;

// The TCF EU section of the specification's GPP string examples.
constexpr char kSpecTcf[] = "CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA";

constexpr GppSectionState kDecoded = GppSectionState::kDecoded;
constexpr GppSectionState kNotRead = GppSectionState::kNotRead;
constexpr GppSectionState kMalformed = GppSectionState::kMalformed;

// The whole string's error, or else the first malformed section's, or "OK".
std::string GppErrorOf(std::string_view text) {
  absl::StatusOr<GppString> gpp = DecodeGppString(text);
  if (!gpp.ok()) return std::string(gpp.status().message());
  return gpp->HasMalformedSection() ? std::string(gpp->first_section_error.message())
                                    : std::string("OK");
}

TEST(GppStringTest, SpecificationHeaderExamplesListTheirSections) {
  struct Example {
    const char* header;
    std::vector<int> ids;
  };
  // Example 1: EU TCF v2; example 2: EU TCF v2 and US Privacy (single ids);
  // example 3: Canadian TCF and US Privacy (one range 5..6).
  for (const Example& e :
       {Example{"DBABM", {2}}, Example{"DBACNY", {2, 6}}, Example{"DBABjw", {5, 6}}}) {
    std::string text = e.header;
    for (int id : e.ids) text += id == 6 ? "~1YNN" : std::string("~") + kSpecTcf;
    absl::StatusOr<GppString> gpp = DecodeGppString(text);
    ASSERT_TRUE(gpp.ok()) << e.header << ": " << gpp.status();
    EXPECT_EQ(gpp->version, 1);
    EXPECT_THAT(gpp->section_ids, ElementsAreArray(e.ids)) << e.header;
    // The test encoder writes the same headers.
    EXPECT_EQ(EncodeGppHeader(e.ids), e.header);
  }
}

TEST(GppStringTest, SpecificationStringExamplesDecode) {
  absl::StatusOr<GppString> one = DecodeGppString(std::string("DBABMA~") + kSpecTcf);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_THAT(one->section_ids, ElementsAre(2));
  ASSERT_TRUE(one->tcf_eu_v2.has_value());
  EXPECT_EQ(one->tcf_eu_v2->cmp_id, 31);
  EXPECT_EQ(one->tcf_eu_v2->publisher_country, "DE");

  absl::StatusOr<GppString> two = DecodeGppString(std::string("DBACNYA~") + kSpecTcf + "~1YNN");
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_THAT(two->section_ids, ElementsAre(2, 6));
  ASSERT_TRUE(two->tcf_eu_v2.has_value());
  ASSERT_TRUE(two->us_privacy.has_value());
  EXPECT_EQ(two->us_privacy->opt_out_sale, UsPrivacyFlag::kNo);
  EXPECT_THAT(two->section_states, ElementsAre(kDecoded, kDecoded));

  absl::StatusOr<GppString> three = DecodeGppString(std::string("DBABjw~") + kSpecTcf + "~1YNN");
  ASSERT_TRUE(three.ok()) << three.status();
  EXPECT_THAT(three->section_ids, ElementsAre(5, 6));
  EXPECT_FALSE(three->tcf_eu_v2.has_value());
  EXPECT_EQ(three->StateOf(5), kNotRead);
  EXPECT_EQ(three->StateOf(6), kDecoded);
  EXPECT_EQ(three->StateOf(2), std::nullopt);
  EXPECT_TRUE(three->HasSection(5));
  EXPECT_FALSE(three->HasSection(2));
}

UsFields DistinctValues(int id, int version) {
  // Values that differ from their neighbours, so a field read one place off
  // shows.
  UsFields f;
  f.version = version;
  f.processing_notice = 2;
  f.sharing_notice = 1;
  f.sale_opt_out_notice = 2;
  f.sharing_opt_out_notice = 1;
  f.targeted_advertising_opt_out_notice = 2;
  f.sensitive_data_processing_opt_out_notice = 1;
  f.sensitive_data_limit_use_notice = 2;
  f.sale_opt_out = 1;
  f.sharing_opt_out = 2;
  f.targeted_advertising_opt_out = 1;
  const auto [sensitive, child] = testing::UsSectionListSizes(id, version);
  for (int i = 0; i < sensitive; ++i) f.sensitive_data_processing.push_back(i % 3);
  for (int i = 0; i < child; ++i) f.known_child_sensitive_data_consents.push_back(2 - i % 3);
  f.personal_data_consents = 2;
  f.additional_data_processing_consent = 1;
  f.mspa_covered_transaction = 1;
  f.mspa_opt_out_option_mode = 2;
  f.mspa_service_provider_mode = 1;
  return f;
}

// Which of the optional fields section `id` has, from the field tables of
// the specifications (us_sections.cc draws them).
struct Present {
  bool processing_notice, sharing_notice, sharing_opt_out_notice,
      targeted_advertising_opt_out_notice, sensitive_data_processing_opt_out_notice,
      sensitive_data_limit_use_notice, sharing_opt_out, targeted_advertising_opt_out,
      personal_data_consents, additional_data_processing_consent;
};

Present FieldsOf(int id) {
  const bool national = id == kGppUsNational, california = id == kGppUsCalifornia;
  const bool later = id >= kGppUsFlorida;  // the laws of 2023 and after
  return Present{
      .processing_notice = later && id != kGppUsMontana,
      .sharing_notice = !california && (!later || id == kGppUsMontana),
      .sharing_opt_out_notice = national || california,
      .targeted_advertising_opt_out_notice = !california,
      .sensitive_data_processing_opt_out_notice = national || id == kGppUsUtah || id == kGppUsIowa,
      .sensitive_data_limit_use_notice = national || california,
      .sharing_opt_out = national || california,
      .targeted_advertising_opt_out = !california,
      .personal_data_consents = national || california,
      .additional_data_processing_consent = later && id != kGppUsIowa,
  };
}

// What the decoder should hold for `f` in section `id`: the fields the
// section has, kNotApplicable for the rest.
void ExpectSection(const UsSection& s, int id, const UsFields& f) {
  const Present has = FieldsOf(id);
  auto value = [](bool present, int v) {
    return present ? static_cast<UsValue>(v) : UsValue::kNotApplicable;
  };
  EXPECT_EQ(s.section_id, id);
  EXPECT_EQ(s.version, f.version);
  EXPECT_EQ(s.processing_notice, value(has.processing_notice, f.processing_notice));
  EXPECT_EQ(s.sharing_notice, value(has.sharing_notice, f.sharing_notice));
  EXPECT_EQ(s.sale_opt_out_notice, value(true, f.sale_opt_out_notice));
  EXPECT_EQ(s.sharing_opt_out_notice, value(has.sharing_opt_out_notice, f.sharing_opt_out_notice));
  EXPECT_EQ(s.targeted_advertising_opt_out_notice,
            value(has.targeted_advertising_opt_out_notice, f.targeted_advertising_opt_out_notice));
  EXPECT_EQ(s.sensitive_data_processing_opt_out_notice,
            value(has.sensitive_data_processing_opt_out_notice,
                  f.sensitive_data_processing_opt_out_notice));
  EXPECT_EQ(s.sensitive_data_limit_use_notice,
            value(has.sensitive_data_limit_use_notice, f.sensitive_data_limit_use_notice));
  EXPECT_EQ(s.sale_opt_out, value(true, f.sale_opt_out));
  EXPECT_EQ(s.sharing_opt_out, value(has.sharing_opt_out, f.sharing_opt_out));
  EXPECT_EQ(s.targeted_advertising_opt_out,
            value(has.targeted_advertising_opt_out, f.targeted_advertising_opt_out));
  ASSERT_EQ(s.sensitive_data_processing_count, f.sensitive_data_processing.size());
  for (size_t i = 0; i < f.sensitive_data_processing.size(); ++i) {
    EXPECT_EQ(s.sensitive_data_processing[i], f.sensitive_data_processing[i]) << i;
  }
  ASSERT_EQ(s.known_child_sensitive_data_consents_count,
            f.known_child_sensitive_data_consents.size());
  for (size_t i = 0; i < f.known_child_sensitive_data_consents.size(); ++i) {
    EXPECT_EQ(s.known_child_sensitive_data_consents[i], f.known_child_sensitive_data_consents[i]);
  }
  EXPECT_EQ(s.personal_data_consents, value(has.personal_data_consents, f.personal_data_consents));
  EXPECT_EQ(s.additional_data_processing_consent,
            value(has.additional_data_processing_consent, f.additional_data_processing_consent));
  EXPECT_EQ(s.mspa_covered_transaction, value(true, f.mspa_covered_transaction));
  EXPECT_EQ(s.mspa_opt_out_option_mode, value(true, f.mspa_opt_out_option_mode));
  EXPECT_EQ(s.mspa_service_provider_mode, value(true, f.mspa_service_provider_mode));
  EXPECT_EQ(s.gpc, f.gpc);
}

TEST(GppStringTest, EveryFieldOfEveryUsSectionRoundTrips) {
  struct Case {
    int id;
    int version;
  };
  std::vector<Case> cases = {{7, 1}, {7, 2}};
  for (int id = kGppUsCalifornia; id <= kGppUsMinnesota; ++id) cases.push_back({id, 1});
  for (const Case c : cases) {
    SCOPED_TRACE(::testing::Message() << "section " << c.id << " version " << c.version);
    for (std::optional<bool> gpc :
         {std::optional<bool>(), std::optional<bool>(false), std::optional<bool>(true)}) {
      UsFields f = DistinctValues(c.id, c.version);
      f.gpc = gpc;
      absl::StatusOr<GppString> gpp =
          DecodeGppString(EncodeGppString({{c.id, EncodeUsSection(c.id, f)}}));
      ASSERT_TRUE(gpp.ok()) << gpp.status();
      ASSERT_EQ(gpp->us_sections.size(), 1u);
      ExpectSection(gpp->us_sections[0], c.id, f);
      EXPECT_EQ(gpp->FindUsSection(c.id), &gpp->us_sections[0]);
      EXPECT_EQ(gpp->FindUsSection(c.id + 1), nullptr);
    }
  }
}

TEST(GppStringTest, SeveralSectionsDecodeInHeaderOrder) {
  UsFields national = DistinctValues(7, 1);
  UsFields california = DistinctValues(8, 1);
  california.sale_opt_out = 2;
  const std::string text = EncodeGppString({{kGppTcfEuV2, kSpecTcf},
                                            {kGppUsPrivacy, "1YYN"},
                                            {kGppUsNational, EncodeUsSection(7, national)},
                                            {kGppUsCalifornia, EncodeUsSection(8, california)},
                                            {24, "BVVqAAEABCA"},
                                            {30, "anything"}});
  absl::StatusOr<GppString> gpp = DecodeGppString(text);
  ASSERT_TRUE(gpp.ok()) << gpp.status();
  EXPECT_THAT(gpp->section_ids, ElementsAre(2, 6, 7, 8, 24, 30));
  ASSERT_TRUE(gpp->tcf_eu_v2.has_value());
  EXPECT_EQ(gpp->us_privacy->opt_out_sale, UsPrivacyFlag::kYes);
  ASSERT_EQ(gpp->us_sections.size(), 2u);
  ExpectSection(*gpp->FindUsSection(7), 7, national);
  ExpectSection(*gpp->FindUsSection(8), 8, california);
  EXPECT_THAT(gpp->section_states,
              ElementsAre(kDecoded, kDecoded, kDecoded, kDecoded, kNotRead, kNotRead));
  EXPECT_FALSE(gpp->HasMalformedSection());
}

TEST(GppStringTest, HeaderRangesListEveryIdInThem) {
  // 7..12 is one range entry in the header.
  std::vector<std::pair<int, std::string>> sections;
  for (int id = 7; id <= 12; ++id) sections.emplace_back(id, EncodeUsSection(id, UsFields{}));
  const std::string text = EncodeGppString(sections);
  absl::StatusOr<GppString> gpp = DecodeGppString(text);
  ASSERT_TRUE(gpp.ok()) << gpp.status();
  EXPECT_THAT(gpp->section_ids, ElementsAre(7, 8, 9, 10, 11, 12));
  EXPECT_EQ(gpp->us_sections.size(), 6u);
}

TEST(GppStringTest, UnknownSubsectionTypesAreSkipped) {
  testing::BitWriter other;
  other.Write(2, 2);
  other.Write(0x3f, 6);
  const std::string core = EncodeUsSection(10, UsFields{});
  absl::StatusOr<GppString> gpp =
      DecodeGppString(EncodeGppString({{10, core + "." + other.ToBase64Url() + ".YA"}}));
  ASSERT_TRUE(gpp.ok()) << gpp.status();
  EXPECT_EQ(gpp->us_sections[0].gpc, true);  // "YA": type 1, GPC 1
}

TEST(GppStringTest, MalformedStringsAreErrorsNamingTheProblem) {
  const std::string usnat = EncodeUsSection(7, UsFields{});
  EXPECT_THAT(GppErrorOf(""), HasSubstr("empty header"));
  EXPECT_THAT(GppErrorOf("~1YNN"), HasSubstr("empty header"));
  EXPECT_THAT(GppErrorOf("DBA"), HasSubstr("ends inside the header"));
  EXPECT_THAT(GppErrorOf("D!ABM~1YNN"), HasSubstr("base64url"));
  EXPECT_THAT(GppErrorOf("CBABM~1YNN"), HasSubstr("header type 2"));
  EXPECT_THAT(GppErrorOf("DCABM~1YNN"), HasSubstr("version 2"));
  // The header lists one section (2); zero or two follow.
  EXPECT_THAT(GppErrorOf("DBABM"), HasSubstr("0 sections, the header lists 1"));
  EXPECT_THAT(GppErrorOf(std::string("DBABM~") + kSpecTcf + "~1YNN"), HasSubstr("more sections"));
  // The header lists 2 but the section is not a TC string.
  EXPECT_THAT(GppErrorOf("DBABM~1YNN"), HasSubstr("section 2"));
  EXPECT_THAT(GppErrorOf(EncodeGppString({{6, "1YXN"}})), HasSubstr("section 6"));
  EXPECT_THAT(GppErrorOf(EncodeGppString({{7, ""}})), HasSubstr("section 7 is empty"));
  EXPECT_THAT(GppErrorOf(EncodeGppString({{300, "x"}})), HasSubstr("above 255"));
  // A header cut inside the Fibonacci section ids.
  EXPECT_THAT(GppErrorOf("DBAB~1YNN"), HasSubstr("section id list"));
  // A 2-bit field holding 3.
  UsFields three;
  three.sale_opt_out = 3;
  EXPECT_THAT(GppErrorOf(EncodeGppString({{9, EncodeUsSection(9, three)}})), HasSubstr("value 3"));
  EXPECT_THAT(GppErrorOf(EncodeGppString({{7, usnat + "."}})), HasSubstr("empty subsection"));
  EXPECT_THAT(GppErrorOf(EncodeGppString({{7, usnat + ".Y*"}})), HasSubstr("base64url"));
}

TEST(GppStringTest, EveryTruncationOfAUsSectionIsMalformed) {
  for (int id = kGppUsNational; id <= kGppUsMinnesota; ++id) {
    const std::string section = EncodeUsSection(id, DistinctValues(id, 1));
    for (size_t length = 0; length < section.size(); ++length) {
      absl::StatusOr<GppString> gpp =
          DecodeGppString(EncodeGppString({{id, section.substr(0, length)}}));
      ASSERT_TRUE(gpp.ok()) << gpp.status();
      EXPECT_EQ(gpp->StateOf(id), kMalformed) << "section " << id << " length " << length;
      EXPECT_TRUE(gpp->us_sections.empty());
    }
  }
}

TEST(GppStringTest, AMalformedSectionLeavesTheOthersDecoded) {
  const std::string usnat = EncodeUsSection(7, DistinctValues(7, 1));
  const std::string texas = EncodeUsSection(16, DistinctValues(16, 1));
  // A broken TCF section before a valid US National one.
  absl::StatusOr<GppString> gpp = DecodeGppString(EncodeGppString({{2, "1YNN"}, {7, usnat}}));
  ASSERT_TRUE(gpp.ok()) << gpp.status();
  EXPECT_THAT(gpp->section_states, ElementsAre(kMalformed, kDecoded));
  EXPECT_THAT(gpp->first_section_error.message(), HasSubstr("section 2"));
  EXPECT_FALSE(gpp->tcf_eu_v2.has_value());
  ExpectSection(*gpp->FindUsSection(7), 7, DistinctValues(7, 1));
  // A broken US section between two valid ones: only the valid ones are held,
  // and the first error is kept.
  gpp = DecodeGppString(EncodeGppString(
      {{6, "1YXN"}, {7, usnat}, {12, usnat.substr(0, 3)}, {16, texas}, {17, "B*"}}));
  ASSERT_TRUE(gpp.ok()) << gpp.status();
  EXPECT_THAT(gpp->section_states,
              ElementsAre(kMalformed, kDecoded, kMalformed, kDecoded, kMalformed));
  EXPECT_THAT(gpp->first_section_error.message(), HasSubstr("section 6"));
  EXPECT_FALSE(gpp->us_privacy.has_value());
  ASSERT_EQ(gpp->us_sections.size(), 2u);
  EXPECT_EQ(gpp->FindUsSection(12), nullptr);
  ExpectSection(*gpp->FindUsSection(16), 16, DistinctValues(16, 1));
}

TEST(GppStringTest, VersionsTheDecoderDoesNotReadAreNotReadNotMalformed) {
  UsFields v3 = DistinctValues(7, 2);
  v3.version = 3;
  UsFields v2 = DistinctValues(8, 1);
  v2.version = 2;
  UsFields v0 = DistinctValues(16, 1);
  v0.version = 0;
  absl::StatusOr<GppString> gpp = DecodeGppString(EncodeGppString(
      {{7, EncodeUsSection(7, v3)}, {8, EncodeUsSection(8, v2)}, {16, EncodeUsSection(16, v0)}}));
  ASSERT_TRUE(gpp.ok()) << gpp.status();
  EXPECT_THAT(gpp->section_states, ElementsAre(kNotRead, kNotRead, kNotRead));
  EXPECT_FALSE(gpp->HasMalformedSection());
  EXPECT_TRUE(gpp->us_sections.empty());
}

TEST(GppStringTest, DecodingIntoAReusedValueForgetsTheLastString) {
  GppString gpp;
  ASSERT_TRUE(DecodeGppString(std::string("DBACNYA~") + kSpecTcf + "~1YNN", &gpp).ok());
  ASSERT_TRUE(DecodeGppString(EncodeGppString({{9, EncodeUsSection(9, UsFields{})}}), &gpp).ok());
  EXPECT_THAT(gpp.section_ids, ElementsAre(9));
  EXPECT_FALSE(gpp.tcf_eu_v2.has_value());
  EXPECT_FALSE(gpp.us_privacy.has_value());
  EXPECT_EQ(gpp.us_sections.size(), 1u);
  ASSERT_TRUE(DecodeGppString(EncodeGppString({{6, "1YXN"}}), &gpp).ok());
  EXPECT_TRUE(gpp.HasMalformedSection());
  ASSERT_TRUE(DecodeGppString(EncodeGppString({{6, "1YNN"}}), &gpp).ok());
  EXPECT_FALSE(gpp.HasMalformedSection());
  EXPECT_THAT(gpp.section_states, ElementsAre(kDecoded));
}

}  // namespace
}  // namespace rtb::bidder::privacy
