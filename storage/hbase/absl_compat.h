// Debian's abseil keeps absl::string_view a type of its own rather than an
// alias of std::string_view; these convert between the two without copying.
#ifndef RTB_STORAGE_HBASE_ABSL_COMPAT_H_
#define RTB_STORAGE_HBASE_ABSL_COMPAT_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace rtb::storage::hbase {

inline absl::string_view AsAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}
inline std::string_view AsStd(absl::string_view s) { return std::string_view(s.data(), s.size()); }

}  // namespace rtb::storage::hbase

#endif  // RTB_STORAGE_HBASE_ABSL_COMPAT_H_
