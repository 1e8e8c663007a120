// The GPP string decoder's fuzz entry point, and through it the privacy
// decision: tests/fuzz builds it into the libFuzzer target gpp_string_fuzzer
// (Fuzz build type) and replays its corpus, and privacy_fuzz_test.cc calls
// FuzzGppString on every compiler.
//
// Input: one byte choosing regs.gdpr and gpp_sid, then the text. Whatever the
// bytes, the decoder returns a value or an error without reading outside the
// input; a value lists ascending section ids, one state per id, and holds
// exactly the sections it says it decoded. The decision, fed the text as GPP, TC and US Privacy
// string, never fails and never allows a use without a bid or segments
// without the profile.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

#include "bidder/privacy/gpp_string.h"
#include "bidder/privacy/privacy_decision.h"

namespace rtb::bidder::privacy {

int FuzzGppString(const uint8_t* data, size_t size) {
  uint8_t choice = 0;
  if (size > 0) {
    choice = data[0];
    ++data;
    --size;
  }
  auto* copy = static_cast<char*>(std::malloc(size == 0 ? 1 : size));
  if (size > 0) std::memcpy(copy, data, size);
  const std::string_view text(copy, size);

  absl::StatusOr<GppString> gpp = DecodeGppString(text);
  if (gpp.ok()) {
    for (size_t i = 1; i < gpp->section_ids.size(); ++i) {
      if (gpp->section_ids[i] <= gpp->section_ids[i - 1]) std::abort();
    }
    if (gpp->section_states.size() != gpp->section_ids.size()) std::abort();
    size_t decoded_states = 0;
    bool malformed_state = false;
    for (GppSectionState state : gpp->section_states) {
      decoded_states += state == GppSectionState::kDecoded;
      malformed_state |= state == GppSectionState::kMalformed;
    }
    const size_t decoded =
        gpp->us_sections.size() + (gpp->tcf_eu_v2 ? 1 : 0) + (gpp->us_privacy ? 1 : 0);
    if (decoded != decoded_states || malformed_state != gpp->HasMalformedSection()) std::abort();
    for (const UsSection& s : gpp->us_sections) {
      if (!gpp->HasSection(s.section_id) || s.sensitive_data_processing_count > 16) std::abort();
    }
  }

  static constexpr int32_t kSids[][2] = {{2, 7}, {7, 16}, {6, 13}, {5, 23}};
  config::PrivacyConfig config;
  config.gvl_vendor_id = 1 + (choice & 0x3f);
  PrivacySignals signals;
  signals.gdpr = (choice & 0x40) ? std::optional<bool>(choice & 0x80) : std::nullopt;
  signals.gpp = text;
  signals.consent = (choice & 1) ? text : std::string_view();
  signals.us_privacy = (choice & 2) ? text.substr(0, 4) : std::string_view();
  if (choice & 4) signals.gpp_sid = kSids[(choice >> 3) & 3];
  signals.device_country = (choice & 0x20) ? "DEU" : "USA";
  const PrivacyDecision d = DecidePrivacy(signals, config);
  if (!d.may_bid && (d.may_read_profile || d.may_count_frequency_caps || d.may_use_device_key ||
                     d.may_target_segments || d.may_measure || d.may_use_precise_geo)) {
    std::abort();
  }
  if (d.may_target_segments && !d.may_read_profile) std::abort();
  std::free(copy);
  return 0;
}

}  // namespace rtb::bidder::privacy
