// Decoding of the GPP US sections (US National and the states' sections of
// IAB Privacy's Multi-State Privacy Agreement) into UsSection. The layouts
// are drawn in us_sections.cc.
#ifndef RTB_BIDDER_PRIVACY_INTERNAL_US_SECTIONS_H_
#define RTB_BIDDER_PRIVACY_INTERNAL_US_SECTIONS_H_

#include <string_view>

#include "absl/status/status.h"
#include "bidder/privacy/gpp_string.h"

namespace rtb::bidder::privacy::internal {

// Whether DecodeUsSection reads section `section_id` (some version of it).
bool IsDecodedUsSection(int section_id);

// Decodes the text of section `section_id` (its core subsection and any
// further '.'-separated subsections) into *out. Unimplemented for a version
// of the section this decoder does not read; InvalidArgument for a text that
// breaks the section's format.
absl::Status DecodeUsSection(int section_id, std::string_view text, UsSection* out);

}  // namespace rtb::bidder::privacy::internal

#endif  // RTB_BIDDER_PRIVACY_INTERNAL_US_SECTIONS_H_
