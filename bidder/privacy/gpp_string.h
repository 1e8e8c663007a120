// The IAB Global Privacy Platform string (`regs.gpp`): a header listing
// section ids, then one section per id, joined by '~'. The header layout is
// drawn in gpp_string.cc, the US section layouts in internal/us_sections.cc.
//
// Decoded sections:
//   2        TCF EU v2: a TC string, read with DecodeTcString (tc_string.h)
//   6        US Privacy: the four-character string of us_privacy.h
//   7        US National (usnat), versions 1 and 2
//   8 .. 12  California, Virginia, Colorado, Utah, Connecticut, version 1
//   13 .. 23 Florida, Montana, Oregon, Texas, Delaware, Iowa, Nebraska,
//            New Hampshire, New Jersey, Tennessee, Minnesota, version 1
// Any other section, or a version of one the decoder does not read, is
// present but not read (GppSectionState::kNotRead).
//
// A header that is not a GPP v1 header, or a section count that differs from
// the header's list, make the whole string InvalidArgument: which text
// belongs to which id is then unknown. A section that breaks its own format
// only marks that section kMalformed (section_states, first_section_error)
// and the others are still read: whether it matters depends on whether the
// request says it applies (`gpp_sid`), which is the caller's business. Never
// a crash.
//
// Thread-safety: GppString is a plain value.
#ifndef RTB_BIDDER_PRIVACY_GPP_STRING_H_
#define RTB_BIDDER_PRIVACY_GPP_STRING_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bidder/privacy/tc_string.h"
#include "bidder/privacy/us_privacy.h"

namespace rtb::bidder::privacy {

// Section ids of the GPP section registry.
inline constexpr int kGppTcfEuV2 = 2;
inline constexpr int kGppTcfCanada = 5;
inline constexpr int kGppUsPrivacy = 6;
inline constexpr int kGppUsNational = 7;
inline constexpr int kGppUsCalifornia = 8;
inline constexpr int kGppUsVirginia = 9;
inline constexpr int kGppUsColorado = 10;
inline constexpr int kGppUsUtah = 11;
inline constexpr int kGppUsConnecticut = 12;
inline constexpr int kGppUsFlorida = 13;
inline constexpr int kGppUsMontana = 14;
inline constexpr int kGppUsOregon = 15;
inline constexpr int kGppUsTexas = 16;
inline constexpr int kGppUsDelaware = 17;
inline constexpr int kGppUsIowa = 18;
inline constexpr int kGppUsNebraska = 19;
inline constexpr int kGppUsNewHampshire = 20;
inline constexpr int kGppUsNewJersey = 21;
inline constexpr int kGppUsTennessee = 22;
inline constexpr int kGppUsMinnesota = 23;

// Whether the GPP section `id` carries a US law's signals (6 and up, the
// US Privacy string and the MSPA sections, decoded or not).
inline bool IsUsGppSection(int id) { return id >= kGppUsPrivacy; }

// The 2-bit values of the US sections. Notices: kYes given, kNo not given.
// Opt-outs: kYes opted out, kNo did not opt out. MSPA fields: kYes, kNo.
// kNotApplicable (0) everywhere else. The format's fourth value (3) is
// malformed.
enum class UsValue : uint8_t {
  kNotApplicable = 0,
  kYes = 1,
  kNo = 2,
};

// One US National or US state section. A field the section does not have
// stays kNotApplicable; which fields each section has is in
// internal/us_sections.cc. The sensitive-data and known-child entries keep the
// raw values (0, 1, 2): their meaning differs between sections (in US
// National 1 is "no consent", in California 1 is "did not opt out").
struct UsSection {
  int section_id = 0;
  int version = 0;
  // Notice of the processing of personal data (the sections of 13 and up
  // but Montana's, which has sharing_notice instead).
  UsValue processing_notice = UsValue::kNotApplicable;
  UsValue sharing_notice = UsValue::kNotApplicable;
  UsValue sale_opt_out_notice = UsValue::kNotApplicable;
  UsValue sharing_opt_out_notice = UsValue::kNotApplicable;
  UsValue targeted_advertising_opt_out_notice = UsValue::kNotApplicable;
  UsValue sensitive_data_processing_opt_out_notice = UsValue::kNotApplicable;
  UsValue sensitive_data_limit_use_notice = UsValue::kNotApplicable;
  UsValue sale_opt_out = UsValue::kNotApplicable;
  UsValue sharing_opt_out = UsValue::kNotApplicable;
  UsValue targeted_advertising_opt_out = UsValue::kNotApplicable;
  std::array<uint8_t, 16> sensitive_data_processing{};
  uint8_t sensitive_data_processing_count = 0;
  std::array<uint8_t, 5> known_child_sensitive_data_consents{};
  uint8_t known_child_sensitive_data_consents_count = 0;
  UsValue personal_data_consents = UsValue::kNotApplicable;
  // Consent to process personal data for purposes beyond those disclosed
  // (the sections of 13 and up but Iowa's): kYes (1) is "no consent", kNo
  // (2) "consent", as the format has it, like personal_data_consents.
  UsValue additional_data_processing_consent = UsValue::kNotApplicable;
  UsValue mspa_covered_transaction = UsValue::kNotApplicable;
  UsValue mspa_opt_out_option_mode = UsValue::kNotApplicable;
  UsValue mspa_service_provider_mode = UsValue::kNotApplicable;
  // The Global Privacy Control subsection, when the section carried one.
  std::optional<bool> gpc;

  bool operator==(const UsSection&) const = default;
};

// How one section of a GPP string came out.
enum class GppSectionState : uint8_t {
  kDecoded,    // read into tcf_eu_v2, us_privacy or us_sections
  kNotRead,    // a section, or a version of one, this decoder does not read
  kMalformed,  // a section the decoder reads whose text breaks its format
};

struct GppString {
  int version = 0;  // of the GPP header, 1
  // Section ids in the order of the string (ascending, as the header lists
  // them), and how each came out, in the same order.
  absl::InlinedVector<int, 4> section_ids;
  absl::InlinedVector<GppSectionState, 4> section_states;
  // Why the first kMalformed section is malformed; OK when none is.
  absl::Status first_section_error;
  std::optional<TcString> tcf_eu_v2;
  std::optional<UsPrivacy> us_privacy;
  absl::InlinedVector<UsSection, 2> us_sections;

  bool HasSection(int id) const;
  // The state of section `id`, or nullopt when the string does not carry it.
  std::optional<GppSectionState> StateOf(int id) const;
  bool HasMalformedSection() const { return !first_section_error.ok(); }
  // The decoded US National or state section `id`, or nullptr.
  const UsSection* FindUsSection(int id) const;
};

// Decodes a GPP string. `out` is overwritten; reusing one GppString across
// calls keeps its buffers. OK with malformed sections (see above): check
// section_states before trusting a section.
absl::Status DecodeGppString(std::string_view text, GppString* out);
absl::StatusOr<GppString> DecodeGppString(std::string_view text);

}  // namespace rtb::bidder::privacy

#endif  // RTB_BIDDER_PRIVACY_GPP_STRING_H_
