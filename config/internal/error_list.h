// The problems found in one configuration document, each as
// "<path>: <message>", reported together so an operator fixes them in one go.
#ifndef RTB_CONFIG_INTERNAL_ERROR_LIST_H_
#define RTB_CONFIG_INTERNAL_ERROR_LIST_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace rtb::config::internal {

class ErrorList {
 public:
  // Beyond this many, problems are only counted: a file of the wrong shape
  // should not produce a wall of text.
  static constexpr size_t kMaxReported = 40;

  // `path` may be empty for a problem of the whole document.
  void Add(const std::string& path, const std::string& message);

  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }

  // OkStatus when empty; otherwise InvalidArgument with the problems joined
  // by "; " in the order found.
  absl::Status ToStatus() const;

 private:
  std::vector<std::string> reported_;
  size_t count_ = 0;
};

}  // namespace rtb::config::internal

#endif  // RTB_CONFIG_INTERNAL_ERROR_LIST_H_
