// DecodeGppString on strings published outside this project, decoded to the
// field values their publishers document: the example strings of the IAB
// Tech Lab's reference GPP libraries' test suites (iabgpp-java and iabgpp-es,
// the encoder and decoder the GPP specification points to). The strings and
// the values are copied from those tests; each test names the one it mirrors.
// Unlike gpp_string_test.cc, nothing here comes from this project's encoder,
// so a field table wrong in both the decoder and the test encoder shows here.
#include <optional>
#include <string>
#include <vector>

#include "bidder/privacy/gpp_string.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rtb::bidder::privacy {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

// The documented values of one US section, raw (0, 1, 2), -1 for a field the
// section does not have.
struct Documented {
  int version = 1;
  int processing_notice = -1;
  int sharing_notice = -1;
  int sale_opt_out_notice = -1;
  int sharing_opt_out_notice = -1;
  int targeted_advertising_opt_out_notice = -1;
  int sensitive_data_processing_opt_out_notice = -1;
  int sensitive_data_limit_use_notice = -1;
  int sale_opt_out = -1;
  int sharing_opt_out = -1;
  int targeted_advertising_opt_out = -1;
  std::vector<int> sensitive_data_processing;
  std::vector<int> known_child_sensitive_data_consents;
  int personal_data_consents = -1;
  int additional_data_processing_consent = -1;
  int mspa_covered_transaction = -1;
  int mspa_opt_out_option_mode = -1;
  int mspa_service_provider_mode = -1;
  std::optional<bool> gpc;
};

// Section `id` alone in a GPP string, decoded.
UsSection DecodeAlone(int id, const std::string& section) {
  // A header listing only `id`: type 3, version 1, one entry, no range, the
  // id as a Fibonacci offset (its Zeckendorf terms 1, 2, 3, 5, 8, 13, 21,
  // least significant first, closed by a 1). Written out bit by bit so that
  // this file needs no encoder.
  std::string fibonacci;
  int terms[] = {1, 2, 3, 5, 8, 13, 21};
  for (int rest = id, i = 6; i >= 0; --i) {
    const bool used = terms[i] <= rest;
    if (used) rest -= terms[i];
    if (used || !fibonacci.empty()) fibonacci.insert(fibonacci.begin(), used ? '1' : '0');
  }
  std::string bits =
      "000011"
      "000001"
      "000000000001"
      "0" +
      fibonacci + "1";
  while (bits.size() % 6 != 0) bits += '0';
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string header;
  for (size_t i = 0; i < bits.size(); i += 6) {
    header += kAlphabet[std::stoi(bits.substr(i, 6), nullptr, 2)];
  }
  absl::StatusOr<GppString> gpp = DecodeGppString(header + "~" + section);
  EXPECT_TRUE(gpp.ok()) << gpp.status();
  if (!gpp.ok()) return {};
  EXPECT_THAT(gpp->section_ids, ElementsAre(id));
  EXPECT_THAT(gpp->section_states, ElementsAre(GppSectionState::kDecoded)) << section;
  const UsSection* s = gpp->FindUsSection(id);
  return s == nullptr ? UsSection{} : *s;
}

void ExpectDocumented(const UsSection& s, const Documented& d) {
  auto value = [](int v) { return v < 0 ? UsValue::kNotApplicable : static_cast<UsValue>(v); };
  EXPECT_EQ(s.version, d.version);
  EXPECT_EQ(s.processing_notice, value(d.processing_notice));
  EXPECT_EQ(s.sharing_notice, value(d.sharing_notice));
  EXPECT_EQ(s.sale_opt_out_notice, value(d.sale_opt_out_notice));
  EXPECT_EQ(s.sharing_opt_out_notice, value(d.sharing_opt_out_notice));
  EXPECT_EQ(s.targeted_advertising_opt_out_notice, value(d.targeted_advertising_opt_out_notice));
  EXPECT_EQ(s.sensitive_data_processing_opt_out_notice,
            value(d.sensitive_data_processing_opt_out_notice));
  EXPECT_EQ(s.sensitive_data_limit_use_notice, value(d.sensitive_data_limit_use_notice));
  EXPECT_EQ(s.sale_opt_out, value(d.sale_opt_out));
  EXPECT_EQ(s.sharing_opt_out, value(d.sharing_opt_out));
  EXPECT_EQ(s.targeted_advertising_opt_out, value(d.targeted_advertising_opt_out));
  const std::vector<int> sensitive(
      s.sensitive_data_processing.begin(),
      s.sensitive_data_processing.begin() + s.sensitive_data_processing_count);
  EXPECT_THAT(sensitive, ElementsAreArray(d.sensitive_data_processing));
  const std::vector<int> child(
      s.known_child_sensitive_data_consents.begin(),
      s.known_child_sensitive_data_consents.begin() + s.known_child_sensitive_data_consents_count);
  EXPECT_THAT(child, ElementsAreArray(d.known_child_sensitive_data_consents));
  EXPECT_EQ(s.personal_data_consents, value(d.personal_data_consents));
  EXPECT_EQ(s.additional_data_processing_consent, value(d.additional_data_processing_consent));
  EXPECT_EQ(s.mspa_covered_transaction, value(d.mspa_covered_transaction));
  EXPECT_EQ(s.mspa_opt_out_option_mode, value(d.mspa_opt_out_option_mode));
  EXPECT_EQ(s.mspa_service_provider_mode, value(d.mspa_service_provider_mode));
  EXPECT_EQ(s.gpc, d.gpc);
}

// iabgpp-java UsNatTest testDecode1 and testDecodeWithGpcSegmentExcluded
// (US National, version 1).
TEST(GppPublishedExamplesTest, UsNationalVersion1) {
  Documented d{.version = 1,
               .sharing_notice = 1,
               .sale_opt_out_notice = 1,
               .sharing_opt_out_notice = 1,
               .targeted_advertising_opt_out_notice = 1,
               .sensitive_data_processing_opt_out_notice = 1,
               .sensitive_data_limit_use_notice = 1,
               .sale_opt_out = 1,
               .sharing_opt_out = 1,
               .targeted_advertising_opt_out = 1,
               .sensitive_data_processing = {2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0},
               .known_child_sensitive_data_consents = {2, 1},
               .personal_data_consents = 1,
               .mspa_covered_transaction = 1,
               .mspa_opt_out_option_mode = 1,
               .mspa_service_provider_mode = 2,
               .gpc = true};
  ExpectDocumented(DecodeAlone(kGppUsNational, "BVVVkkkklWA.YA"), d);
  d.gpc = std::nullopt;
  ExpectDocumented(DecodeAlone(kGppUsNational, "BVVVkkkklWA"), d);
}

// iabgpp-java UsNatTest (version 2): testDecode1, and the default section
// with every sensitive-data and known-child value 1 (testDecodeUsNatV2With-
// V2Values, "CAAAVVVVVVRA.QA").
TEST(GppPublishedExamplesTest, UsNationalVersion2) {
  ExpectDocumented(DecodeAlone(kGppUsNational, "CVVVkkkkkpFY.YA"),
                   {.version = 2,
                    .sharing_notice = 1,
                    .sale_opt_out_notice = 1,
                    .sharing_opt_out_notice = 1,
                    .targeted_advertising_opt_out_notice = 1,
                    .sensitive_data_processing_opt_out_notice = 1,
                    .sensitive_data_limit_use_notice = 1,
                    .sale_opt_out = 1,
                    .sharing_opt_out = 1,
                    .targeted_advertising_opt_out = 1,
                    .sensitive_data_processing = {2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2},
                    .known_child_sensitive_data_consents = {2, 1, 0},
                    .personal_data_consents = 1,
                    .mspa_covered_transaction = 1,
                    .mspa_opt_out_option_mode = 1,
                    .mspa_service_provider_mode = 2,
                    .gpc = true});
  const UsSection ones = DecodeAlone(kGppUsNational, "CAAAVVVVVVRA.QA");
  EXPECT_EQ(ones.version, 2);
  EXPECT_EQ(ones.sensitive_data_processing_count, 16);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(ones.sensitive_data_processing[i], 1) << i;
  EXPECT_EQ(ones.known_child_sensitive_data_consents_count, 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(ones.known_child_sensitive_data_consents[i], 1) << i;
  EXPECT_EQ(ones.gpc, false);
}

// iabgpp-es and iabgpp-java UsCaTest, "should decode BVWSSSVY.YA".
TEST(GppPublishedExamplesTest, California) {
  ExpectDocumented(DecodeAlone(kGppUsCalifornia, "BVWSSSVY.YA"),
                   {.sale_opt_out_notice = 1,
                    .sharing_opt_out_notice = 1,
                    .sensitive_data_limit_use_notice = 1,
                    .sale_opt_out = 1,
                    .sharing_opt_out = 1,
                    .sensitive_data_processing = {2, 1, 0, 2, 1, 0, 2, 1, 0},
                    .known_child_sensitive_data_consents = {2, 1},
                    .personal_data_consents = 1,
                    .mspa_covered_transaction = 1,
                    .mspa_opt_out_option_mode = 1,
                    .mspa_service_provider_mode = 2,
                    .gpc = true});
}

// iabgpp-java UsTxTest testDecode1 ("BVWSSVWA.YA"); the same string is
// iabgpp-es UsMnTest's Minnesota example, whose layout is Texas's.
TEST(GppPublishedExamplesTest, TexasAndMinnesota) {
  const Documented d{.processing_notice = 1,
                     .sale_opt_out_notice = 1,
                     .targeted_advertising_opt_out_notice = 1,
                     .sale_opt_out = 1,
                     .targeted_advertising_opt_out = 1,
                     .sensitive_data_processing = {2, 1, 0, 2, 1, 0, 2, 1},
                     .known_child_sensitive_data_consents = {1},
                     .additional_data_processing_consent = 1,
                     .mspa_covered_transaction = 1,
                     .mspa_opt_out_option_mode = 1,
                     .mspa_service_provider_mode = 2,
                     .gpc = true};
  ExpectDocumented(DecodeAlone(kGppUsTexas, "BVWSSVWA.YA"), d);
  ExpectDocumented(DecodeAlone(kGppUsMinnesota, "BVWSSVWA.YA"), d);
  Documented without_gpc = d;
  without_gpc.gpc = std::nullopt;
  ExpectDocumented(DecodeAlone(kGppUsTexas, "BVWSSVWA"), without_gpc);
}

// iabgpp-java UsDeTest testDecode1 and iabgpp-es "should decode
// BVWSSSSVYA.YA" (Delaware).
TEST(GppPublishedExamplesTest, Delaware) {
  ExpectDocumented(DecodeAlone(kGppUsDelaware, "BVWSSSSVYA.YA"),
                   {.processing_notice = 1,
                    .sale_opt_out_notice = 1,
                    .targeted_advertising_opt_out_notice = 1,
                    .sale_opt_out = 1,
                    .targeted_advertising_opt_out = 1,
                    .sensitive_data_processing = {2, 1, 0, 2, 1, 0, 2, 1, 0},
                    .known_child_sensitive_data_consents = {2, 1, 0, 2, 1},
                    .additional_data_processing_consent = 1,
                    .mspa_covered_transaction = 1,
                    .mspa_opt_out_option_mode = 1,
                    .mspa_service_provider_mode = 2,
                    .gpc = true});
}

// iabgpp-java UsIaTest testDecode1 and iabgpp-es "should decode BVVkklWA.YA"
// (Iowa: a sensitive-data notice, no additional-processing consent).
TEST(GppPublishedExamplesTest, Iowa) {
  ExpectDocumented(DecodeAlone(kGppUsIowa, "BVVkklWA.YA"),
                   {.processing_notice = 1,
                    .sale_opt_out_notice = 1,
                    .targeted_advertising_opt_out_notice = 1,
                    .sensitive_data_processing_opt_out_notice = 1,
                    .sale_opt_out = 1,
                    .targeted_advertising_opt_out = 1,
                    .sensitive_data_processing = {2, 1, 0, 2, 1, 0, 2, 1},
                    .known_child_sensitive_data_consents = {1},
                    .mspa_covered_transaction = 1,
                    .mspa_opt_out_option_mode = 1,
                    .mspa_service_provider_mode = 2,
                    .gpc = true});
}

// iabgpp-java UsNjTest testDecode1 and iabgpp-es "should decode
// BVWSSRklWA.YA" (New Jersey).
TEST(GppPublishedExamplesTest, NewJersey) {
  ExpectDocumented(DecodeAlone(kGppUsNewJersey, "BVWSSRklWA.YA"),
                   {.processing_notice = 1,
                    .sale_opt_out_notice = 1,
                    .targeted_advertising_opt_out_notice = 1,
                    .sale_opt_out = 1,
                    .targeted_advertising_opt_out = 1,
                    .sensitive_data_processing = {2, 1, 0, 2, 1, 0, 2, 1, 0, 1},
                    .known_child_sensitive_data_consents = {2, 1, 0, 2, 1},
                    .additional_data_processing_consent = 1,
                    .mspa_covered_transaction = 1,
                    .mspa_opt_out_option_mode = 1,
                    .mspa_service_provider_mode = 2,
                    .gpc = true});
}

// iabgpp-es GppModel test "should decode uspv1 and tcfeuv2 sections": a TCF
// EU v2 section (with two optional segments) and a US Privacy section inside
// one GPP string.
TEST(GppPublishedExamplesTest, TcfEuV2AndUsPrivacyInsideGpp) {
  absl::StatusOr<GppString> gpp =
      DecodeGppString("DBACNYA~CPSG_8APSG_8ANwAAAENAwCAAAAAAAAAAAAAAAAAAAAA.QAAA.IAAA~1YNN");
  ASSERT_TRUE(gpp.ok()) << gpp.status();
  EXPECT_THAT(gpp->section_ids, ElementsAre(kGppTcfEuV2, kGppUsPrivacy));
  EXPECT_FALSE(gpp->HasMalformedSection());
  ASSERT_TRUE(gpp->tcf_eu_v2.has_value());
  const TcString& tc = *gpp->tcf_eu_v2;
  EXPECT_EQ(tc.version, 2);
  EXPECT_EQ(tc.cmp_id, 880);
  EXPECT_EQ(tc.cmp_version, 0);
  EXPECT_EQ(tc.consent_screen, 0);
  EXPECT_EQ(tc.consent_language, "EN");
  EXPECT_EQ(tc.vendor_list_version, 48);
  EXPECT_EQ(tc.policy_version, 2);
  EXPECT_FALSE(tc.is_service_specific);
  EXPECT_FALSE(tc.use_non_standard_texts);
  EXPECT_FALSE(tc.purpose_one_treatment);
  EXPECT_EQ(tc.publisher_country, "AA");
  EXPECT_EQ(tc.created_ds, tc.last_updated_ds);
  ASSERT_TRUE(gpp->us_privacy.has_value());
  EXPECT_EQ(gpp->us_privacy->notice, UsPrivacyFlag::kYes);
  EXPECT_EQ(gpp->us_privacy->opt_out_sale, UsPrivacyFlag::kNo);
  EXPECT_EQ(gpp->us_privacy->lspa_covered, UsPrivacyFlag::kNo);
}

// iabgpp-es GppModel test "should decode defaults from all sections": every
// section from 2 to 22 (but 3 and 4) at its default values. For the state
// sections that is version 1 and every field 0 except MspaCoveredTransaction
// (1), with a GPC subsection saying false where the section has one. The 1
// sits after every other core field, so it lands in place only if every
// width before it is right.
TEST(GppPublishedExamplesTest, DefaultsOfEverySection) {
  absl::StatusOr<GppString> gpp = DecodeGppString(
      "DBACOdM~CPSG_8APSG_8AAAAAAENAACAAAAAAAAAAAAAAAAAAAAA.QAAA.IAAA~BPSG_8APSG_"
      "8AAAAAAENAACAAAAAAAAAAAAAAAAAAA.YAAAAAAAAAA~1---~BAAAAAAAAABA.QA~BAAAAABA.QA~BAAAABA~"
      "BAAAAEA.QA~BAAAAAQA~BAAAAAEA.QA~BAAAAABA~BAAAAABA.QA~BAAAAAABAA.QA~BAAAAAQA.QA~"
      "BAAAAAABAA.QA~BAAAAAQA.QA~BAAAAAQA.QA~BAAAAABA.QA~BAAAAAAAQA.QA~BAAAAAQA.QA");
  ASSERT_TRUE(gpp.ok()) << gpp.status();
  std::vector<int> ids = {2, 5, 6};
  for (int id = kGppUsNational; id <= kGppUsTennessee; ++id) ids.push_back(id);
  EXPECT_THAT(gpp->section_ids, ElementsAreArray(ids));
  EXPECT_FALSE(gpp->HasMalformedSection());
  EXPECT_EQ(gpp->StateOf(kGppTcfCanada), GppSectionState::kNotRead);
  ASSERT_TRUE(gpp->tcf_eu_v2.has_value());
  EXPECT_EQ(gpp->us_privacy->notice, UsPrivacyFlag::kNotApplicable);
  // The library wrote its US National default with version 2's list sizes
  // (16 and 3) under version 1, so its 1 lies past the end of a version 1
  // core: only that it decodes is checked. (The US National examples above
  // check both versions' layouts.)
  EXPECT_EQ(gpp->StateOf(kGppUsNational), GppSectionState::kDecoded);
  for (int id = kGppUsCalifornia; id <= kGppUsTennessee; ++id) {
    SCOPED_TRACE(::testing::Message() << "section " << id);
    const UsSection* s = gpp->FindUsSection(id);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->version, 1);
    EXPECT_EQ(s->mspa_covered_transaction, UsValue::kYes);
    UsSection zero;
    zero.section_id = id;
    zero.version = 1;
    zero.mspa_covered_transaction = UsValue::kYes;
    zero.sensitive_data_processing_count = s->sensitive_data_processing_count;
    zero.known_child_sensitive_data_consents_count = s->known_child_sensitive_data_consents_count;
    // Virginia, Utah and Florida were sent without a GPC subsection.
    const bool without_gpc = id == kGppUsVirginia || id == kGppUsUtah || id == kGppUsFlorida;
    zero.gpc = without_gpc ? std::nullopt : std::optional<bool>(false);
    EXPECT_EQ(*s, zero);
  }
}

}  // namespace
}  // namespace rtb::bidder::privacy
