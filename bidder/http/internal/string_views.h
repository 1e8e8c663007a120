// The same bytes seen as another library's string_view: this Debian build of
// abseil has an absl::string_view of its own, and Beast has one too.
#ifndef RTB_BIDDER_HTTP_INTERNAL_STRING_VIEWS_H_
#define RTB_BIDDER_HTTP_INTERNAL_STRING_VIEWS_H_

#include <string_view>

#include "absl/strings/string_view.h"
#include "boost/beast/core/string.hpp"

namespace rtb::bidder::internal {

inline absl::string_view AbslView(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

inline std::string_view StdView(boost::beast::string_view s) {
  return std::string_view(s.data(), s.size());
}

}  // namespace rtb::bidder::internal

#endif  // RTB_BIDDER_HTTP_INTERNAL_STRING_VIEWS_H_
