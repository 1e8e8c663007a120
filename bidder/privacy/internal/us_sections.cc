// The GPP US section layouts (IAB Privacy's MSPA technical specifications for
// US National and each state). A section is base64url (bit_reader.h)
// subsections joined by '.': the core subsection first, then optional ones.
//
// Core subsection: Version (6 bits), then the fields of the section and
// version below, in this order, each an Int(2) or N of them:
//
//   field                               7v1 7v2  8   9  10  11  12
//   SharingNotice                        1   1   -   1   1   1   1
//   SaleOptOutNotice                     1   1   1   1   1   1   1
//   SharingOptOutNotice                  1   1   1   -   -   -   -
//   TargetedAdvertisingOptOutNotice      1   1   -   1   1   1   1
//   SensitiveDataProcessingOptOutNotice  1   1   -   -   -   1   -
//   SensitiveDataLimitUseNotice          1   1   1   -   -   -   -
//   SaleOptOut                           1   1   1   1   1   1   1
//   SharingOptOut                        1   1   1   -   -   -   -
//   TargetedAdvertisingOptOut            1   1   -   1   1   1   1
//   SensitiveDataProcessing             12  16   9   8   7   8   8
//   KnownChildSensitiveDataConsents      2   3   2   1   1   1   3
//   PersonalDataConsents                 1   1   1   -   -   -   -
//   MspaCoveredTransaction               1   1   1   1   1   1   1
//   MspaOptOutOptionMode                 1   1   1   1   1   1   1
//   MspaServiceProviderMode              1   1   1   1   1   1   1
//
//   (7 US National, 8 California, 9 Virginia, 10 Colorado, 11 Utah,
//   12 Connecticut; "-": the section has no such field.)
//
// The sections of the later state laws, all at version 1, share one order;
// only the notice that opens them, Iowa's sensitive-data notice and the list
// sizes differ:
//
//   field                               13  14  15  16  17  18  19  20  21  22  23
//   ProcessingNotice                     1   -   1   1   1   1   1   1   1   1   1
//   SharingNotice                        -   1   -   -   -   -   -   -   -   -   -
//   SaleOptOutNotice                     1   1   1   1   1   1   1   1   1   1   1
//   TargetedAdvertisingOptOutNotice      1   1   1   1   1   1   1   1   1   1   1
//   SensitiveDataOptOutNotice            -   -   -   -   -   1   -   -   -   -   -
//   SaleOptOut                           1   1   1   1   1   1   1   1   1   1   1
//   TargetedAdvertisingOptOut            1   1   1   1   1   1   1   1   1   1   1
//   SensitiveDataProcessing              8   8  11   8   9   8   8   8  10   8   8
//   KnownChildSensitiveDataConsents      3   3   3   1   5   1   1   3   5   1   1
//   AdditionalDataProcessingConsent      1   1   1   1   1   -   1   1   1   1   1
//   MspaCoveredTransaction               1   1   1   1   1   1   1   1   1   1   1
//   MspaOptOutOptionMode                 1   1   1   1   1   1   1   1   1   1   1
//   MspaServiceProviderMode              1   1   1   1   1   1   1   1   1   1   1
//
//   (13 Florida, 14 Montana, 15 Oregon, 16 Texas, 17 Delaware, 18 Iowa,
//   19 Nebraska, 20 New Hampshire, 21 New Jersey, 22 Tennessee, 23 Minnesota.
//   Iowa's SensitiveDataOptOutNotice is read as the
//   sensitive_data_processing_opt_out_notice of UsSection, Utah's field of the
//   same meaning. Florida's specification has no GPC subsection; one that is
//   sent anyway is read like any other.)
//
// Further subsections start with SubsectionType (2 bits). Type 1 is GPC:
// one bit, the Global Privacy Control signal. Other types are skipped.
#include "bidder/privacy/internal/us_sections.h"

#include <array>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "bidder/privacy/internal/bit_reader.h"

namespace rtb::bidder::privacy::internal {
namespace {

enum class UsField : uint8_t {
  kProcessingNotice,
  kSharingNotice,
  kSaleOptOutNotice,
  kSharingOptOutNotice,
  kTargetedAdvertisingOptOutNotice,
  kSensitiveDataProcessingOptOutNotice,
  kSensitiveDataLimitUseNotice,
  kSaleOptOut,
  kSharingOptOut,
  kTargetedAdvertisingOptOut,
  kSensitiveDataProcessing,
  kKnownChildSensitiveDataConsents,
  kPersonalDataConsents,
  kAdditionalDataProcessingConsent,
  kMspaCoveredTransaction,
  kMspaOptOutOptionMode,
  kMspaServiceProviderMode,
};

struct FieldSpec {
  UsField field;
  uint8_t count = 1;  // Int(2) values in the field
};

struct UsSectionLayout {
  int section_id;
  int version;
  std::array<FieldSpec, 15> fields;
  int field_count;
};

using F = UsField;

constexpr UsSectionLayout kLayouts[] = {
    {kGppUsNational,
     1,
     {{{F::kSharingNotice},
       {F::kSaleOptOutNotice},
       {F::kSharingOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSensitiveDataProcessingOptOutNotice},
       {F::kSensitiveDataLimitUseNotice},
       {F::kSaleOptOut},
       {F::kSharingOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 12},
       {F::kKnownChildSensitiveDataConsents, 2},
       {F::kPersonalDataConsents},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     15},
    {kGppUsNational,
     2,
     {{{F::kSharingNotice},
       {F::kSaleOptOutNotice},
       {F::kSharingOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSensitiveDataProcessingOptOutNotice},
       {F::kSensitiveDataLimitUseNotice},
       {F::kSaleOptOut},
       {F::kSharingOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 16},
       {F::kKnownChildSensitiveDataConsents, 3},
       {F::kPersonalDataConsents},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     15},
    {kGppUsCalifornia,
     1,
     {{{F::kSaleOptOutNotice},
       {F::kSharingOptOutNotice},
       {F::kSensitiveDataLimitUseNotice},
       {F::kSaleOptOut},
       {F::kSharingOptOut},
       {F::kSensitiveDataProcessing, 9},
       {F::kKnownChildSensitiveDataConsents, 2},
       {F::kPersonalDataConsents},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     11},
    {kGppUsVirginia,
     1,
     {{{F::kSharingNotice},
       {F::kSaleOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSaleOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 8},
       {F::kKnownChildSensitiveDataConsents, 1},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     10},
    {kGppUsColorado,
     1,
     {{{F::kSharingNotice},
       {F::kSaleOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSaleOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 7},
       {F::kKnownChildSensitiveDataConsents, 1},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     10},
    {kGppUsUtah,
     1,
     {{{F::kSharingNotice},
       {F::kSaleOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSensitiveDataProcessingOptOutNotice},
       {F::kSaleOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 8},
       {F::kKnownChildSensitiveDataConsents, 1},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     11},
    {kGppUsConnecticut,
     1,
     {{{F::kSharingNotice},
       {F::kSaleOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSaleOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 8},
       {F::kKnownChildSensitiveDataConsents, 3},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     10},
    {kGppUsFlorida,
     1,
     {{{F::kProcessingNotice},
       {F::kSaleOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSaleOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 8},
       {F::kKnownChildSensitiveDataConsents, 3},
       {F::kAdditionalDataProcessingConsent},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     11},
    {kGppUsMontana,
     1,
     {{{F::kSharingNotice},
       {F::kSaleOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSaleOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 8},
       {F::kKnownChildSensitiveDataConsents, 3},
       {F::kAdditionalDataProcessingConsent},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     11},
    {kGppUsOregon,
     1,
     {{{F::kProcessingNotice},
       {F::kSaleOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSaleOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 11},
       {F::kKnownChildSensitiveDataConsents, 3},
       {F::kAdditionalDataProcessingConsent},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     11},
    {kGppUsTexas,
     1,
     {{{F::kProcessingNotice},
       {F::kSaleOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSaleOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 8},
       {F::kKnownChildSensitiveDataConsents, 1},
       {F::kAdditionalDataProcessingConsent},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     11},
    {kGppUsDelaware,
     1,
     {{{F::kProcessingNotice},
       {F::kSaleOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSaleOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 9},
       {F::kKnownChildSensitiveDataConsents, 5},
       {F::kAdditionalDataProcessingConsent},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     11},
    {kGppUsIowa,
     1,
     {{{F::kProcessingNotice},
       {F::kSaleOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSensitiveDataProcessingOptOutNotice},
       {F::kSaleOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 8},
       {F::kKnownChildSensitiveDataConsents, 1},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     11},
    {kGppUsNebraska,
     1,
     {{{F::kProcessingNotice},
       {F::kSaleOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSaleOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 8},
       {F::kKnownChildSensitiveDataConsents, 1},
       {F::kAdditionalDataProcessingConsent},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     11},
    {kGppUsNewHampshire,
     1,
     {{{F::kProcessingNotice},
       {F::kSaleOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSaleOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 8},
       {F::kKnownChildSensitiveDataConsents, 3},
       {F::kAdditionalDataProcessingConsent},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     11},
    {kGppUsNewJersey,
     1,
     {{{F::kProcessingNotice},
       {F::kSaleOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSaleOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 10},
       {F::kKnownChildSensitiveDataConsents, 5},
       {F::kAdditionalDataProcessingConsent},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     11},
    {kGppUsTennessee,
     1,
     {{{F::kProcessingNotice},
       {F::kSaleOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSaleOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 8},
       {F::kKnownChildSensitiveDataConsents, 1},
       {F::kAdditionalDataProcessingConsent},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     11},
    {kGppUsMinnesota,
     1,
     {{{F::kProcessingNotice},
       {F::kSaleOptOutNotice},
       {F::kTargetedAdvertisingOptOutNotice},
       {F::kSaleOptOut},
       {F::kTargetedAdvertisingOptOut},
       {F::kSensitiveDataProcessing, 8},
       {F::kKnownChildSensitiveDataConsents, 1},
       {F::kAdditionalDataProcessingConsent},
       {F::kMspaCoveredTransaction},
       {F::kMspaOptOutOptionMode},
       {F::kMspaServiceProviderMode}}},
     11},
};

const UsSectionLayout* FindLayout(int section_id, int version) {
  for (const UsSectionLayout& layout : kLayouts) {
    if (layout.section_id == section_id && layout.version == version) return &layout;
  }
  return nullptr;
}

absl::Status Malformed(int section_id, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("GPP section ", section_id, ": ", what));
}

UsValue* SingleValueField(UsField field, UsSection* out) {
  switch (field) {
    case UsField::kProcessingNotice:
      return &out->processing_notice;
    case UsField::kSharingNotice:
      return &out->sharing_notice;
    case UsField::kSaleOptOutNotice:
      return &out->sale_opt_out_notice;
    case UsField::kSharingOptOutNotice:
      return &out->sharing_opt_out_notice;
    case UsField::kTargetedAdvertisingOptOutNotice:
      return &out->targeted_advertising_opt_out_notice;
    case UsField::kSensitiveDataProcessingOptOutNotice:
      return &out->sensitive_data_processing_opt_out_notice;
    case UsField::kSensitiveDataLimitUseNotice:
      return &out->sensitive_data_limit_use_notice;
    case UsField::kSaleOptOut:
      return &out->sale_opt_out;
    case UsField::kSharingOptOut:
      return &out->sharing_opt_out;
    case UsField::kTargetedAdvertisingOptOut:
      return &out->targeted_advertising_opt_out;
    case UsField::kPersonalDataConsents:
      return &out->personal_data_consents;
    case UsField::kAdditionalDataProcessingConsent:
      return &out->additional_data_processing_consent;
    case UsField::kMspaCoveredTransaction:
      return &out->mspa_covered_transaction;
    case UsField::kMspaOptOutOptionMode:
      return &out->mspa_opt_out_option_mode;
    case UsField::kMspaServiceProviderMode:
      return &out->mspa_service_provider_mode;
    case UsField::kSensitiveDataProcessing:
    case UsField::kKnownChildSensitiveDataConsents:
      break;
  }
  return nullptr;
}

// The 2-bit values of one field, 3 being malformed.
bool ReadValues(BitReader& reader, int count, uint8_t* values) {
  for (int i = 0; i < count; ++i) {
    values[i] = static_cast<uint8_t>(reader.Read(2));
    if (values[i] == 3) return false;
  }
  return true;
}

absl::Status ReadCore(int section_id, std::string_view core, UsSection* out) {
  BitReader reader;
  if (core.empty()) return Malformed(section_id, "empty core subsection");
  if (!reader.Reset(core)) return Malformed(section_id, "a character outside base64url");
  out->version = static_cast<int>(reader.Read(6));
  if (reader.failed()) return Malformed(section_id, "ends inside the version");
  const UsSectionLayout* layout = FindLayout(section_id, out->version);
  if (layout == nullptr) {
    return absl::UnimplementedError(
        absl::StrCat("GPP section ", section_id, ": version ", out->version, " is not read"));
  }
  for (int f = 0; f < layout->field_count; ++f) {
    const FieldSpec& spec = layout->fields[f];
    uint8_t* values;
    uint8_t single;
    if (spec.field == UsField::kSensitiveDataProcessing) {
      values = out->sensitive_data_processing.data();
      out->sensitive_data_processing_count = spec.count;
    } else if (spec.field == UsField::kKnownChildSensitiveDataConsents) {
      values = out->known_child_sensitive_data_consents.data();
      out->known_child_sensitive_data_consents_count = spec.count;
    } else {
      values = &single;
    }
    if (!ReadValues(reader, spec.count, values)) {
      return Malformed(section_id, "a 2-bit field holds the undefined value 3");
    }
    if (values == &single) *SingleValueField(spec.field, out) = static_cast<UsValue>(single);
  }
  if (reader.failed()) return Malformed(section_id, "ends inside the core subsection");
  return absl::OkStatus();
}

constexpr int kGpcSubsection = 1;

absl::Status ReadSubsection(int section_id, std::string_view text, UsSection* out) {
  BitReader reader;
  if (text.empty()) return Malformed(section_id, "empty subsection");
  if (!reader.Reset(text)) return Malformed(section_id, "a character outside base64url");
  const int type = static_cast<int>(reader.Read(2));
  if (type != kGpcSubsection) return absl::OkStatus();
  const bool gpc = reader.ReadBool();
  if (reader.failed()) return Malformed(section_id, "ends inside the GPC subsection");
  out->gpc = gpc;
  return absl::OkStatus();
}

}  // namespace

bool IsDecodedUsSection(int section_id) {
  for (const UsSectionLayout& layout : kLayouts) {
    if (layout.section_id == section_id) return true;
  }
  return false;
}

absl::Status DecodeUsSection(int section_id, std::string_view text, UsSection* out) {
  *out = UsSection{};
  out->section_id = section_id;
  const size_t dot = text.find('.');
  if (absl::Status s = ReadCore(section_id, text.substr(0, dot), out); !s.ok()) return s;
  if (dot == std::string_view::npos) return absl::OkStatus();
  for (std::string_view rest = text.substr(dot + 1);;) {
    const size_t next = rest.find('.');
    if (absl::Status s = ReadSubsection(section_id, rest.substr(0, next), out); !s.ok()) return s;
    if (next == std::string_view::npos) return absl::OkStatus();
    rest.remove_prefix(next + 1);
  }
}

}  // namespace rtb::bidder::privacy::internal
