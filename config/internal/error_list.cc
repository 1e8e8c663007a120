#include "config/internal/error_list.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rtb::config::internal {

void ErrorList::Add(const std::string& path, const std::string& message) {
  ++count_;
  if (reported_.size() >= kMaxReported) return;
  reported_.push_back(path.empty() ? message : absl::StrCat(path, ": ", message));
}

absl::Status ErrorList::ToStatus() const {
  if (count_ == 0) return absl::OkStatus();
  std::string text = absl::StrJoin(reported_, "; ");
  if (count_ > reported_.size()) {
    absl::StrAppend(&text, "; and ", count_ - reported_.size(), " more");
  }
  return absl::InvalidArgumentError(text);
}

}  // namespace rtb::config::internal
