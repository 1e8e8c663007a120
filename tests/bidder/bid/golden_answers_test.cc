// Every request of the repository's corpus (tests/fixtures/openrtb/requests)
// gets exactly the answer recorded for it in tests/fixtures/openrtb/expected.json,
// from the example config's campaigns with an empty profile store: the bids
// (impression, seat, campaign, creative, price, deal, size, ext.dsa) or the no-bid
// reason as the metrics name it. The same corpus against a permissive
// campaign set (tests/fixtures/openrtb/permissive_campaigns.json: a creative
// for every size, video, audio and native, no targeting) gets the answers of
// expected_permissive.json, and no request of it gets a 400: every one is
// valid under the spec. A request added to the corpus without an answer, or
// an answer without its request, fails too.
#include <cmath>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "config/config.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/bidder/bid_handler_harness.h"

namespace rtb::bidder {
namespace {

using testing::Answer;
using testing::ExampleConfig;
using testing::FixtureJson;
using testing::FixtureRequest;
using testing::FixtureRequestNames;
using testing::HandlerHarness;
using testing::PermissiveConfig;

// The outcome counter that moved during one call.
std::string OutcomeOf(HandlerHarness& harness, const std::vector<double>& before) {
  std::string moved;
  for (size_t i = 0; i < kBidOutcomeCount; ++i) {
    const auto outcome = static_cast<BidOutcome>(i);
    if (harness.Requests(outcome) != before[i]) {
      EXPECT_TRUE(moved.empty()) << "two outcomes counted for one request";
      moved = BidOutcomeName(outcome);
    }
  }
  return moved;
}

// The answer in the golden file's terms.
nlohmann::json Summarise(const std::string& outcome, const Answer& answer) {
  nlohmann::json summary = {{"answer", outcome}};
  if (outcome != "bid") return summary;
  summary["openrtb_version"] = answer.Header("x-openrtb-version");
  summary["cur"] = answer.json.value("cur", "");
  nlohmann::json bids = nlohmann::json::array();
  for (const nlohmann::json& seatbid : answer.json["seatbid"]) {
    for (const nlohmann::json& bid : seatbid["bid"]) {
      nlohmann::json b = {{"impid", bid["impid"]},
                          {"seat", seatbid.value("seat", "")},
                          {"cid", bid["cid"]},
                          {"crid", bid["crid"]},
                          // Six decimals: the precision a CPM is compared at.
                          {"price", std::round(bid["price"].get<double>() * 1e6) / 1e6}};
      if (bid.contains("dealid")) b["dealid"] = bid["dealid"];
      if (bid.contains("w")) b["w"] = bid["w"];
      if (bid.contains("h")) b["h"] = bid["h"];
      if (bid.contains("ext") && bid["ext"].contains("dsa")) b["dsa"] = bid["ext"]["dsa"];
      bids.push_back(std::move(b));
    }
  }
  summary["bids"] = std::move(bids);
  return summary;
}

// Every request of the corpus against `config` gets its answer in
// `expected_file`; none is refused as invalid.
void ExpectRecordedAnswers(config::BidderConfig config, const std::string& expected_file) {
  const nlohmann::json expected = FixtureJson(expected_file);
  const std::vector<std::string> names = FixtureRequestNames();
  ASSERT_GE(names.size(), 20u);
  HandlerHarness harness(std::move(config));
  std::set<std::string> answered;
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    answered.insert(name);
    std::vector<double> before;
    for (size_t i = 0; i < kBidOutcomeCount; ++i) {
      before.push_back(harness.Requests(static_cast<BidOutcome>(i)));
    }
    const Answer answer = harness.Call(FixtureRequest(name));
    const std::string outcome = OutcomeOf(harness, before);
    EXPECT_NE(outcome, "invalid") << "a request valid under the spec was refused: "
                                  << answer.response.body;
    EXPECT_EQ(answer.response.status, outcome == "bid" ? 200u : 204u) << answer.response.body;
    const nlohmann::json actual = Summarise(outcome, answer);
    if (!expected.contains(name)) {
      ADD_FAILURE() << "no recorded answer in " << expected_file << "; this request got\n\"" << name
                    << "\": " << actual.dump() << ",";
      continue;
    }
    EXPECT_EQ(actual, expected[name])
        << "recorded: " << expected[name].dump() << "\nactual:   " << actual.dump();
  }
  for (const auto& [name, unused] : expected.items()) {
    EXPECT_TRUE(answered.count(name))
        << "an answer is recorded for " << name << ", which is not in the corpus";
  }
}

TEST(GoldenAnswersTest, EveryFixtureRequestGetsItsRecordedAnswer) {
  ExpectRecordedAnswers(ExampleConfig(), "expected.json");
}

TEST(GoldenAnswersTest, PermissiveCampaignsAnswerEveryRequestAsRecorded) {
  ExpectRecordedAnswers(PermissiveConfig(), "expected_permissive.json");
}

}  // namespace
}  // namespace rtb::bidder
