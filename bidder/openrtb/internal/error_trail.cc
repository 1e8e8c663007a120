#include "bidder/openrtb/internal/error_trail.h"

#include "absl/strings/str_cat.h"

namespace rtb::openrtb::internal {

bool ErrorTrail::Fail(std::string_view reason) {
  reason_.assign(reason);
  outward_.clear();
  return false;
}

bool ErrorTrail::Within(std::string_view name) {
  outward_.push_back(Segment{false, std::string(name), 0});
  return false;
}

bool ErrorTrail::AtIndex(size_t index) {
  outward_.push_back(Segment{true, std::string(), index});
  return false;
}

absl::Status ErrorTrail::ToStatus() const {
  std::string path;
  for (auto it = outward_.rbegin(); it != outward_.rend(); ++it) {
    if (it->is_index) {
      absl::StrAppend(&path, "[", it->index, "]");
    } else {
      absl::StrAppend(&path, path.empty() ? "" : ".", it->name);
    }
  }
  if (path.empty()) return absl::InvalidArgumentError(reason_);
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", reason_));
}

}  // namespace rtb::openrtb::internal
