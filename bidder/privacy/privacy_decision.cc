#include "bidder/privacy/privacy_decision.h"

#include <algorithm>
#include <array>

#include "bidder/privacy/gpp_string.h"
#include "bidder/privacy/tc_string.h"
#include "bidder/privacy/us_privacy.h"

namespace rtb::bidder::privacy {
namespace {

// EU members, the EU's outermost regions and Åland with codes of their own,
// the other EEA members, the United Kingdom and Switzerland. Sorted.
constexpr std::array<std::string_view, 39> kGdprCountries = {
    "ALA", "AUT", "BEL", "BGR", "CHE", "CYP", "CZE", "DEU", "DNK", "ESP", "EST", "FIN", "FRA",
    "GBR", "GLP", "GRC", "GUF", "HRV", "HUN", "IRL", "ISL", "ITA", "LIE", "LTU", "LUX", "LVA",
    "MAF", "MLT", "MTQ", "MYT", "NLD", "NOR", "POL", "PRT", "REU", "ROU", "SVK", "SVN", "SWE",
};
static_assert(std::is_sorted(kGdprCountries.begin(), kGdprCountries.end()));

// The same countries in ISO 3166-1 alpha-2, for exchanges that send those
// against OpenRTB's alpha-3: privacy must not fail open on them. Sorted.
constexpr std::array<std::string_view, 39> kGdprCountriesAlpha2 = {
    "AT", "AX", "BE", "BG", "CH", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR",
    "GB", "GF", "GP", "GR", "HR", "HU", "IE", "IS", "IT", "LI", "LT", "LU", "LV",
    "MF", "MQ", "MT", "NL", "NO", "PL", "PT", "RE", "RO", "SE", "SI", "SK", "YT",
};
static_assert(std::is_sorted(kGdprCountriesAlpha2.begin(), kGdprCountriesAlpha2.end()));

constexpr uint8_t Bit(RestrictionType type) {
  return static_cast<uint8_t>(1u << static_cast<int>(type));
}

// Whether `purpose` has a legal basis for `vendor`: consent, or legitimate
// interest where the use allows it, unless the publisher's restrictions on
// the vendor say otherwise.
bool PurposeMet(const TcString& tc, int vendor, int purpose, bool legitimate_interest_allowed) {
  const bool by_consent = tc.HasPurposeConsent(purpose) && tc.vendor_consents.Contains(vendor);
  const bool by_legitimate_interest = legitimate_interest_allowed &&
                                      tc.HasPurposeLegitimateInterest(purpose) &&
                                      tc.vendor_legitimate_interests.Contains(vendor);
  const uint8_t restrictions = tc.RestrictionsFor(vendor, purpose);
  if (restrictions == 0) return by_consent || by_legitimate_interest;
  if (restrictions & (Bit(RestrictionType::kNotAllowed) | Bit(RestrictionType::kUndefined))) {
    return false;
  }
  const bool consent_only = restrictions & Bit(RestrictionType::kRequireConsent);
  const bool legitimate_interest_only =
      restrictions & Bit(RestrictionType::kRequireLegitimateInterest);
  // Both demanded at once cannot be met.
  if (consent_only && legitimate_interest_only) return false;
  // A purpose we may not base on legitimate interest and the publisher wants
  // only legitimate interest for: by_legitimate_interest is false, so no.
  return consent_only ? by_consent : by_legitimate_interest;
}

bool UseMet(const TcString& tc, int vendor, const config::PrivacyPurposesConfig& use) {
  return std::all_of(use.purposes.begin(), use.purposes.end(), [&](int purpose) {
    return PurposeMet(tc, vendor, purpose, use.legitimate_interest);
  });
}

void DenyEverything(PrivacyDecision* d) {
  d->may_bid = false;
  d->may_read_profile = false;
  d->may_count_frequency_caps = false;
  d->may_use_device_key = false;
  d->may_target_segments = false;
  d->may_measure = false;
  d->may_use_precise_geo = false;
}

// GDPR applies and `tc` is the consent signal.
void DecideGdpr(const TcString& tc, const config::PrivacyConfig& config, PrivacyDecision* d) {
  if (tc.policy_version < config.min_tcf_policy_version) {
    DenyEverything(d);
    d->outcome = PrivacyOutcome::kOutdatedPolicy;
    return;
  }
  const int vendor = config.gvl_vendor_id;
  if (!UseMet(tc, vendor, config.basic_ads)) {
    DenyEverything(d);
    d->outcome = PrivacyOutcome::kNoBasicAds;
    return;
  }
  const bool device = UseMet(tc, vendor, config.device_access);
  d->may_read_profile = device;
  d->may_count_frequency_caps = device;
  d->may_use_device_key = device;
  d->may_target_segments = device && UseMet(tc, vendor, config.segment_targeting);
  d->may_measure = UseMet(tc, vendor, config.measurement);
  d->may_use_precise_geo = tc.vendor_consents.Contains(vendor) &&
                           std::all_of(config.precise_geo_special_features.begin(),
                                       config.precise_geo_special_features.end(), [&](int feature) {
                                         return tc.HasSpecialFeatureOptIn(feature);
                                       });
  if (!device) {
    d->outcome = PrivacyOutcome::kContextual;
  } else if (d->may_target_segments && d->may_measure && d->may_use_precise_geo) {
    d->outcome = PrivacyOutcome::kPersonalized;
  } else {
    d->outcome = PrivacyOutcome::kRestricted;
  }
}

// What the US signals say, strongest first.
enum class UsVerdict { kNotApplicable, kAllowed, kOptedOut, kUndecodedSection, kMalformed };

UsVerdict Stronger(UsVerdict a, UsVerdict b) { return std::max(a, b); }

UsVerdict VerdictOf(const UsPrivacy& usp) {
  if (usp.notice == UsPrivacyFlag::kNotApplicable &&
      usp.opt_out_sale == UsPrivacyFlag::kNotApplicable) {
    return UsVerdict::kNotApplicable;
  }
  // Without the notice the user had no chance to opt out: sale is not allowed.
  if (usp.opt_out_sale == UsPrivacyFlag::kYes || usp.notice == UsPrivacyFlag::kNo) {
    return UsVerdict::kOptedOut;
  }
  return UsVerdict::kAllowed;
}

UsVerdict VerdictOf(const UsSection& s) {
  constexpr UsValue kYes = UsValue::kYes;
  constexpr UsValue kNo = UsValue::kNo;
  const bool opted_out =
      s.sale_opt_out == kYes || s.sharing_opt_out == kYes || s.targeted_advertising_opt_out == kYes;
  // A notice not given leaves the user no way to object: as an opt-out.
  const bool notice_missing = s.processing_notice == kNo || s.sharing_notice == kNo ||
                              s.sale_opt_out_notice == kNo || s.sharing_opt_out_notice == kNo ||
                              s.targeted_advertising_opt_out_notice == kNo;
  // In service provider mode the buyer may not sell, share or target.
  const bool service_provider = s.mspa_service_provider_mode == kYes;
  const bool gpc = s.gpc.value_or(false);
  return opted_out || notice_missing || service_provider || gpc ? UsVerdict::kOptedOut
                                                                : UsVerdict::kAllowed;
}

bool Contains(absl::Span<const int32_t> ids, int id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

UsVerdict DecideUs(const PrivacySignals& in, const GppString* gpp, bool gpp_malformed) {
  UsVerdict verdict = UsVerdict::kNotApplicable;
  if (!in.us_privacy.empty()) {
    absl::StatusOr<UsPrivacy> usp = DecodeUsPrivacy(in.us_privacy);
    verdict = Stronger(verdict, usp.ok() ? VerdictOf(*usp) : UsVerdict::kMalformed);
  }
  if (gpp_malformed) {
    // Which sections it held is unknown, unless gpp_sid names only non-US ones.
    const bool us_listed =
        in.gpp_sid.empty() || std::any_of(in.gpp_sid.begin(), in.gpp_sid.end(),
                                          [](int32_t id) { return IsUsGppSection(id); });
    if (us_listed) verdict = Stronger(verdict, UsVerdict::kMalformed);
    return verdict;
  }
  if (gpp == nullptr) return verdict;
  auto decide_section = [&](int id) {
    if (!IsUsGppSection(id)) return;
    const std::optional<GppSectionState> state = gpp->StateOf(id);
    if (!state.has_value() || *state == GppSectionState::kMalformed) {
      // Broken, or gpp_sid names a section the string does not carry.
      verdict = Stronger(verdict, UsVerdict::kMalformed);
    } else if (*state == GppSectionState::kNotRead) {
      verdict = Stronger(verdict, UsVerdict::kUndecodedSection);
    } else if (id == kGppUsPrivacy) {
      verdict = Stronger(verdict, VerdictOf(*gpp->us_privacy));
    } else {
      verdict = Stronger(verdict, VerdictOf(*gpp->FindUsSection(id)));
    }
  };
  if (in.gpp_sid.empty()) {
    // No gpp_sid: every section of the string is taken to apply.
    for (int id : gpp->section_ids) decide_section(id);
  } else {
    for (int32_t id : in.gpp_sid) decide_section(id);
  }
  return verdict;
}

// Whether the GPP string, or one of its sections, is malformed where the
// request does not apply it (gpp_sid does not list it, or user.consent stands
// in for the TCF section): it decides nothing, but is counted.
bool UnusedMalformedGpp(absl::Span<const int32_t> gpp_sid, const GppString* gpp, bool gpp_malformed,
                        bool tc_from_gpp) {
  auto us_applies = [&](int id) {
    return IsUsGppSection(id) && (gpp_sid.empty() || Contains(gpp_sid, id));
  };
  if (gpp_malformed) {
    // As DecideUs: unreadable, it applies wherever gpp_sid could name a US section.
    return !tc_from_gpp && !gpp_sid.empty() &&
           std::none_of(gpp_sid.begin(), gpp_sid.end(),
                        [](int32_t id) { return IsUsGppSection(id); });
  }
  if (gpp == nullptr || !gpp->HasMalformedSection()) return false;
  for (size_t i = 0; i < gpp->section_ids.size(); ++i) {
    if (gpp->section_states[i] != GppSectionState::kMalformed) continue;
    const int id = gpp->section_ids[i];
    if (id == kGppTcfEuV2 ? !tc_from_gpp : !us_applies(id)) return true;
  }
  return false;
}

}  // namespace

std::string_view PrivacyRegimeName(PrivacyRegime regime) {
  switch (regime) {
    case PrivacyRegime::kNone:
      return "none";
    case PrivacyRegime::kGdpr:
      return "gdpr";
    case PrivacyRegime::kUs:
      return "us";
  }
  return "none";
}

std::string_view PrivacyOutcomeName(PrivacyOutcome outcome) {
  switch (outcome) {
    case PrivacyOutcome::kNotApplicable:
      return "not_applicable";
    case PrivacyOutcome::kPersonalized:
      return "personalized";
    case PrivacyOutcome::kRestricted:
      return "restricted";
    case PrivacyOutcome::kContextual:
      return "contextual";
    case PrivacyOutcome::kOptedOut:
      return "opted_out";
    case PrivacyOutcome::kUndecodedSection:
      return "undecoded_section";
    case PrivacyOutcome::kMalformed:
      return "malformed";
    case PrivacyOutcome::kMissingConsent:
      return "missing_consent";
    case PrivacyOutcome::kOutdatedPolicy:
      return "outdated_policy";
    case PrivacyOutcome::kNoBasicAds:
      return "no_basic_ads";
  }
  return "malformed";
}

bool IsGdprCountry(std::string_view code) {
  if (code.size() != 2 && code.size() != 3) return false;
  char upper[3];
  for (size_t i = 0; i < code.size(); ++i) {
    const char c = code[i];
    upper[i] = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  }
  const std::string_view normalized(upper, code.size());
  return code.size() == 3
             ? std::binary_search(kGdprCountries.begin(), kGdprCountries.end(), normalized)
             : std::binary_search(kGdprCountriesAlpha2.begin(), kGdprCountriesAlpha2.end(),
                                  normalized);
}

PrivacyDecision DecidePrivacy(const PrivacySignals& in, const config::PrivacyConfig& config) {
  PrivacyDecision d;
  GppString gpp;
  bool gpp_decoded = false;
  bool gpp_malformed = false;
  if (!in.gpp.empty()) {
    gpp_decoded = DecodeGppString(in.gpp, &gpp).ok();
    gpp_malformed = !gpp_decoded;
  }

  const bool gdpr_applies =
      Contains(in.gpp_sid, kGppTcfEuV2) ||
      in.gdpr.value_or(config.gdpr_applies_by_geo && IsGdprCountry(in.device_country));
  // The GPP TCF section stands in for an empty user.consent where it applies:
  // gpp_sid lists it, or lists nothing (every section of the string applies).
  const bool tc_from_gpp = gdpr_applies && in.consent.empty() &&
                           (in.gpp_sid.empty() || Contains(in.gpp_sid, kGppTcfEuV2));
  d.unused_malformed_gpp =
      UnusedMalformedGpp(in.gpp_sid, gpp_decoded ? &gpp : nullptr, gpp_malformed, tc_from_gpp);
  if (gdpr_applies) {
    d.regime = PrivacyRegime::kGdpr;
    TcString from_consent;
    const TcString* tc = nullptr;
    bool malformed = false;
    if (!in.consent.empty()) {
      malformed = !DecodeTcString(in.consent, &from_consent).ok();
      tc = &from_consent;
    } else if (tc_from_gpp && (gpp_malformed || gpp.HasSection(kGppTcfEuV2))) {
      if (gpp_decoded && gpp.tcf_eu_v2.has_value()) {
        tc = &*gpp.tcf_eu_v2;
      } else {
        malformed = true;  // the string, or its TCF section
      }
    }
    if (malformed || tc == nullptr) {
      DenyEverything(&d);
      d.outcome = malformed ? PrivacyOutcome::kMalformed : PrivacyOutcome::kMissingConsent;
      return d;
    }
    DecideGdpr(*tc, config, &d);
    if (!d.may_bid) return d;
  }

  const UsVerdict us = DecideUs(in, gpp_decoded ? &gpp : nullptr, gpp_malformed);
  if (us == UsVerdict::kNotApplicable) return d;
  if (d.regime == PrivacyRegime::kNone) {
    d.regime = PrivacyRegime::kUs;
    d.outcome = PrivacyOutcome::kPersonalized;
  }
  if (us == UsVerdict::kAllowed) return d;
  d.may_read_profile = false;
  d.may_target_segments = false;
  d.may_use_device_key = false;
  // Frequency caps are measurement of ad frequency, which the state laws
  // exempt from the opt-outs (README "Privacy", per section). Only a signal
  // that was read says no more than an opt-out: a malformed one, or a
  // section this decoder does not read, might say anything, so nothing is
  // counted under it.
  d.may_count_frequency_caps = d.may_count_frequency_caps &&
                               config.us_opt_out_counts_frequency_caps &&
                               us == UsVerdict::kOptedOut;
  // A GDPR contextual decision already says as much; keep its reason.
  if (d.outcome != PrivacyOutcome::kContextual) {
    d.outcome = us == UsVerdict::kMalformed          ? PrivacyOutcome::kMalformed
                : us == UsVerdict::kUndecodedSection ? PrivacyOutcome::kUndecodedSection
                                                     : PrivacyOutcome::kOptedOut;
  }
  return d;
}

}  // namespace rtb::bidder::privacy
