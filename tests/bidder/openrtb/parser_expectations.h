// Expectations shared by the bid request parser's tests: requests built
// around one member, and what both readers (the bid path's simdjson reader
// and the nlohmann baseline) must answer for them.
#ifndef RTB_TESTS_BIDDER_OPENRTB_PARSER_EXPECTATIONS_H_
#define RTB_TESTS_BIDDER_OPENRTB_PARSER_EXPECTATIONS_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "bidder/openrtb/internal/nlohmann_reader.h"
#include "bidder/openrtb/openrtb.h"
#include "gtest/gtest.h"

namespace rtb::openrtb::testing {

// A valid request with `members` added to the top-level object.
inline std::string WithTop(std::string_view members) {
  return std::string(R"({"id":"r1","imp":[{"id":"1"}],)") + std::string(members) + "}";
}

// A valid request with `members` added to its only impression.
inline std::string WithImp(std::string_view members) {
  return std::string(R"({"id":"r1","imp":[{"id":"1",)") + std::string(members) + "}]}";
}

// Both readers reject `json`; the bid-path reader with exactly `message`.
inline void ExpectRejected(std::string_view json, std::string_view message) {
  SCOPED_TRACE(std::string(json));
  absl::StatusOr<BidRequest> parsed = ParseBidRequest(json);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(parsed.status().message()), message);
  absl::StatusOr<BidRequest> baseline = internal::ParseBidRequestWithNlohmann(json);
  ASSERT_FALSE(baseline.ok());
  EXPECT_EQ(baseline.status().code(), absl::StatusCode::kInvalidArgument);
}

// Malformed JSON: rejected by both readers, with a reason.
inline void ExpectMalformed(std::string_view json) {
  SCOPED_TRACE(std::string(json));
  absl::StatusOr<BidRequest> parsed = ParseBidRequest(json);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(parsed.status().message().empty());
  EXPECT_FALSE(internal::ParseBidRequestWithNlohmann(json).ok());
}

inline BidRequest ParseOrDie(std::string_view json) {
  absl::StatusOr<BidRequest> parsed = ParseBidRequest(json);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *std::move(parsed) : BidRequest();
}

}  // namespace rtb::openrtb::testing

#endif  // RTB_TESTS_BIDDER_OPENRTB_PARSER_EXPECTATIONS_H_
