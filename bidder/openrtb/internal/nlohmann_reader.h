// The bid request model read with nlohmann/json instead of simdjson: the
// baseline the bid-path parser is measured against
// (loadtest/bench/openrtb_bench.cc) and checked against (the differential
// tests in tests/bidder/openrtb/). It follows the same field tables
// (internal/schema.h) and the same validation, so on any input both either
// reject or produce equal models. Not for the bid path: it builds a DOM first.
#ifndef RTB_BIDDER_OPENRTB_INTERNAL_NLOHMANN_READER_H_
#define RTB_BIDDER_OPENRTB_INTERNAL_NLOHMANN_READER_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "bidder/openrtb/openrtb.h"

namespace rtb::openrtb::internal {

absl::StatusOr<BidRequest> ParseBidRequestWithNlohmann(std::string_view json, int max_depth = 64);

}  // namespace rtb::openrtb::internal

#endif  // RTB_BIDDER_OPENRTB_INTERNAL_NLOHMANN_READER_H_
