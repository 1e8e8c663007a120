// Checks that need the whole request: required members and uniqueness. Types
// and bounds of single fields are checked while reading.
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "bidder/openrtb/openrtb.h"

namespace rtb::openrtb {
namespace {

// Below this many impressions comparing every pair beats building a map.
constexpr size_t kPairwiseDuplicateCheckLimit = 16;

absl::Status DuplicateImpId(size_t first, size_t second) {
  return absl::InvalidArgumentError(
      absl::StrCat("imp[", second, "].id: duplicate of imp[", first, "].id"));
}

absl::Status CheckUniqueImpIds(const std::vector<Imp>& imps) {
  if (imps.size() <= kPairwiseDuplicateCheckLimit) {
    for (size_t i = 1; i < imps.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (imps[i].id == imps[j].id) return DuplicateImpId(j, i);
      }
    }
    return absl::OkStatus();
  }
  absl::flat_hash_map<std::string_view, size_t> seen;
  seen.reserve(imps.size());
  for (size_t i = 0; i < imps.size(); ++i) {
    auto [it, inserted] = seen.emplace(imps[i].id, i);
    if (!inserted) return DuplicateImpId(it->second, i);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateBidRequest(const BidRequest& request) {
  if (request.id.empty()) return absl::InvalidArgumentError("id: required, a non-empty string");
  if (request.imp.empty()) {
    return absl::InvalidArgumentError("imp: at least one impression required");
  }
  for (size_t i = 0; i < request.imp.size(); ++i) {
    const Imp& imp = request.imp[i];
    if (imp.id.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("imp[", i, "].id: required, a non-empty string"));
    }
    if (imp.pmp.has_value()) {
      for (size_t d = 0; d < imp.pmp->deals.size(); ++d) {
        if (imp.pmp->deals[d].id.empty()) {
          return absl::InvalidArgumentError(
              absl::StrCat("imp[", i, "].pmp.deals[", d, "].id: required, a non-empty string"));
        }
      }
    }
  }
  return CheckUniqueImpIds(request.imp);
}

}  // namespace rtb::openrtb
