// The reason a bid request was rejected and where: "imp[0].banner.w: expected
// integer". Readers record the reason where they fail and add one path segment
// per level as the failure returns outwards, so a request that parses costs
// nothing here.
#ifndef RTB_BIDDER_OPENRTB_INTERNAL_ERROR_TRAIL_H_
#define RTB_BIDDER_OPENRTB_INTERNAL_ERROR_TRAIL_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace rtb::openrtb::internal {

class ErrorTrail {
 public:
  // Each returns false, for `return trail.Fail(...);` in readers.
  bool Fail(std::string_view reason);
  // The failure happened inside the member `name` of the current object.
  bool Within(std::string_view name);
  // The failure happened inside element `index` of the current array.
  bool AtIndex(size_t index);

  // InvalidArgument "<path>: <reason>", or "<reason>" at the top level.
  absl::Status ToStatus() const;

 private:
  struct Segment {
    bool is_index = false;
    std::string name;
    size_t index = 0;
  };

  std::string reason_;
  std::vector<Segment> outward_;  // innermost segment first
};

}  // namespace rtb::openrtb::internal

#endif  // RTB_BIDDER_OPENRTB_INTERNAL_ERROR_TRAIL_H_
