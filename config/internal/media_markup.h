// What a creative's VAST or DAAST markup says of itself, for defaults of the
// creative config.
#ifndef RTB_CONFIG_INTERNAL_MEDIA_MARKUP_H_
#define RTB_CONFIG_INTERNAL_MEDIA_MARKUP_H_

#include <string_view>

namespace rtb::config::internal {

// The AdCOM "Creative Subtypes - Audio/Video" value of a VAST or DAAST
// document, from the version attribute of its root element and whether it
// is a wrapper: VAST 1.0/2.0/3.0/4.0/4.1/4.2 -> 1/2/3/7/11/13 (wrappers
// 4/5/6/8/12/14), DAAST 1.0 -> 9 (wrapper 10). 0 when the markup has no such
// root or names another version.
int MarkupProtocol(std::string_view markup);

}  // namespace rtb::config::internal

#endif  // RTB_CONFIG_INTERNAL_MEDIA_MARKUP_H_
