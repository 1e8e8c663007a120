// What one bid request's privacy signals let the bidder do: bid at all, read
// the device's profile, count frequency caps against the device, put the
// device key in beacon URLs, target segments, record measurement events, use
// the precise position. A pure function of the request's values and
// config::PrivacyConfig; it decodes the strings itself (tc_string.h,
// us_privacy.h, gpp_string.h) and never fails: a string that cannot be
// decoded is "no consent", reported as PrivacyOutcome::kMalformed for the
// caller to count, never an error that would reject the request.
//
// The rules (defaults of PrivacyConfig; README "Privacy" has the table):
//   - GDPR applies when regs.gdpr is 1, when gpp_sid lists section 2 (TCF EU),
//     or, with no regs.gdpr, when gdpr_applies_by_geo and device.geo.country
//     is in the EEA, the UK or Switzerland. The TC string is user.consent, or
//     when that is empty the TCF EU section of the GPP string if gpp_sid
//     lists section 2 or lists nothing.
//   - Under GDPR each use needs its purposes (PrivacyPurposesConfig): basic
//     ads (2) or no bid; device access (1) for the profile, frequency caps and
//     the device key; segment targeting (3, 4) on top of device access;
//     measurement (7, 9); precise geo needs special feature 1 and our vendor
//     consent. No TC string, a malformed one or one of an older policy
//     version than min_tcf_policy_version: no bid.
//   - A US opt-out of sale, sharing or targeted advertising (US Privacy
//     string or an applicable GPP US section), a notice the user was not
//     given, GPC, or MSPA service provider mode make the bid contextual: no
//     profile, no segments, no device key; frequency caps still counted
//     when us_opt_out_counts_frequency_caps (every US section read allows
//     them: measuring ad frequency is not a sale, sharing or targeted
//     advertising under the state laws). A malformed US signal, or an
//     applicable GPP section this decoder does not read, makes the bid
//     contextual too, and counts no frequency caps (what it says is unknown).
//   - The GPP sections that apply are those gpp_sid lists (every section of
//     the string when it lists none); each is decoded on its own, so a broken
//     section that does not apply decides nothing (unused_malformed_gpp).
//
// Thread-safety: pure function; safe from any thread.
#ifndef RTB_BIDDER_PRIVACY_PRIVACY_DECISION_H_
#define RTB_BIDDER_PRIVACY_PRIVACY_DECISION_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/types/span.h"
#include "config/config.h"

namespace rtb::bidder::privacy {

// The law whose signals decided; the `regime` label of
// bidder_privacy_decisions_total. GDPR wins when both apply (US signals still
// restrict further).
enum class PrivacyRegime : uint8_t {
  kNone,  // "none": no privacy regime applies
  kGdpr,  // "gdpr"
  kUs,    // "us": US Privacy string or GPP US sections
};

// How the decision came out; the `outcome` label of
// bidder_privacy_decisions_total, and the reason of a privacy no-bid.
enum class PrivacyOutcome : uint8_t {
  kNotApplicable,     // "not_applicable": no regime; everything allowed
  kPersonalized,      // "personalized": a regime applies and allows every use
  kRestricted,        // "restricted": device data allowed, some other use not
  kContextual,        // "contextual": GDPR, basic ads allowed, device data not
  kOptedOut,          // "opted_out": US opt-out; contextual
  kUndecodedSection,  // "undecoded_section": an applicable GPP section is not
                      // read; contextual
  kMalformed,         // "malformed": a string could not be decoded; no bid
                      // under GDPR, contextual under US law
  kMissingConsent,    // "missing_consent": GDPR without a TC string; no bid
  kOutdatedPolicy,    // "outdated_policy": TC string of an older TCF policy; no bid
  kNoBasicAds,        // "no_basic_ads": GDPR, basic ads not allowed; no bid
};

// The metric these label values are declared for (bidder/bid/bid_metrics.h
// declares it; the bid handler counts one decision per valid request).
inline constexpr std::string_view kPrivacyDecisionsMetric = "bidder_privacy_decisions_total";
inline constexpr PrivacyRegime kPrivacyRegimes[] = {PrivacyRegime::kNone, PrivacyRegime::kGdpr,
                                                    PrivacyRegime::kUs};
inline constexpr PrivacyOutcome kPrivacyOutcomes[] = {
    PrivacyOutcome::kNotApplicable,  PrivacyOutcome::kPersonalized,
    PrivacyOutcome::kRestricted,     PrivacyOutcome::kContextual,
    PrivacyOutcome::kOptedOut,       PrivacyOutcome::kUndecodedSection,
    PrivacyOutcome::kMalformed,      PrivacyOutcome::kMissingConsent,
    PrivacyOutcome::kOutdatedPolicy, PrivacyOutcome::kNoBasicAds,
};
std::string_view PrivacyRegimeName(PrivacyRegime regime);
std::string_view PrivacyOutcomeName(PrivacyOutcome outcome);

// The request's privacy values, as parsed (bidder/openrtb/openrtb.h). Views
// into the request; they must outlive the call only.
struct PrivacySignals {
  std::optional<bool> gdpr;           // regs.gdpr
  std::string_view consent;           // user.consent (TC string)
  std::string_view us_privacy;        // regs.us_privacy
  std::string_view gpp;               // regs.gpp
  absl::Span<const int32_t> gpp_sid;  // regs.gpp_sid
  std::string_view device_country;    // device.geo.country, ISO 3166-1 alpha-3
};

struct PrivacyDecision {
  PrivacyRegime regime = PrivacyRegime::kNone;
  PrivacyOutcome outcome = PrivacyOutcome::kNotApplicable;
  bool may_bid = true;
  bool may_read_profile = true;  // profile lookup
  // Frequency caps read and counted; with the device key (and the profile),
  // under the device's profile row and with its device_impressions entry,
  // else under cap-only keys (bidder/bid/frequency_cap.h).
  bool may_count_frequency_caps = true;
  bool may_use_device_key = true;  // device key in beacon URLs
  bool may_target_segments = true;
  bool may_measure = true;          // impression, click and conversion events
  bool may_use_precise_geo = true;  // device.geo lat/lon
  // The GPP string, or a section of it, is malformed but does not apply to
  // the request (gpp_sid does not list it, or user.consent stands in for its
  // TCF section), so it decided nothing; the bid handler counts it in
  // bidder_bid_requests_ignored_total{what="unused_malformed_gpp"}.
  bool unused_malformed_gpp = false;

  bool operator==(const PrivacyDecision&) const = default;
};

PrivacyDecision DecidePrivacy(const PrivacySignals& signals, const config::PrivacyConfig& config);

// Whether `code` (ISO 3166-1 alpha-3 as OpenRTB has it, or alpha-2 as some
// exchanges send; either case) is a country where the GDPR or its UK and
// Swiss counterparts apply: the EU (with its outermost regions that have
// codes of their own), Iceland, Liechtenstein, Norway, the United Kingdom,
// Switzerland.
bool IsGdprCountry(std::string_view code);

}  // namespace rtb::bidder::privacy

#endif  // RTB_BIDDER_PRIVACY_PRIVACY_DECISION_H_
