// DecideDsa as a table: regs.ext.dsa values and what the campaign offers in,
// whether it bids and what its ext.dsa says out.
#include "bidder/privacy/dsa.h"

#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rtb::bidder::privacy {
namespace {

struct DsaRow {
  std::string name;
  std::optional<int> dsarequired, pubrender, datatopub;
  DsaCampaign campaign;
  DsaDecision expected;
};

constexpr DsaCampaign kInfo{.has_behalf_and_paid = true, .renders_notice = false};
constexpr DsaCampaign kInfoAndRenders{.has_behalf_and_paid = true, .renders_notice = true};
constexpr DsaCampaign kNothing{};

DsaDecision NoBid(DsaNoBidReason reason) { return {.may_bid = false, .no_bid_reason = reason}; }
DsaDecision Attach(int adrender, bool transparency) {
  return {.attach = true, .adrender = adrender, .send_transparency = transparency};
}

TEST(DsaTest, Table) {
  const std::vector<DsaRow> rows = {
      {"no dsa object", {}, {}, {}, kNothing, DsaDecision{}},
      {"not required", 0, 2, 2, kInfo, DsaDecision{}},
      {"supported, campaign without info bids without ext.dsa", 1, 2, 1, kNothing, DsaDecision{}},
      {"supported, campaign with info attaches it", 1, 2, 1, kInfo, Attach(0, true)},
      {"required, campaign without info does not bid", 2, 2, 2, kNothing,
       NoBid(DsaNoBidReason::kMissingBehalfAndPaid)},
      {"required by an online platform, no info", 3, 1, 2, kNothing,
       NoBid(DsaNoBidReason::kMissingBehalfAndPaid)},
      {"required, publisher will render", 3, 2, 2, kInfoAndRenders, Attach(0, true)},
      {"required, publisher could render, creative does not", 2, 1, 1, kInfo, Attach(0, true)},
      {"required, publisher could render, creative does", 2, 1, 1, kInfoAndRenders,
       Attach(1, true)},
      {"required, publisher cannot render, creative does", 3, 0, 2, kInfoAndRenders,
       Attach(1, true)},
      {"required, nobody can render", 3, 0, 2, kInfo, NoBid(DsaNoBidReason::kCannotRender)},
      {"supported, nobody can render: nothing attached", 1, 0, 2, kInfo, DsaDecision{}},
      {"no transparency data wanted", 2, 2, 0, kInfo, Attach(0, false)},
      {"pubrender absent reads as could render", 2, {}, {}, kInfo, Attach(0, true)},
      {"unknown dsarequired reads as required", 7, 2, 2, kNothing,
       NoBid(DsaNoBidReason::kMissingBehalfAndPaid)},
      {"unknown pubrender reads as cannot render", 2, 5, 2, kInfo,
       NoBid(DsaNoBidReason::kCannotRender)},
      {"negative dsarequired reads as required", -1, 2, 2, kInfo, Attach(0, true)},
  };
  for (const DsaRow& row : rows) {
    const DsaDecision got = DecideDsa(row.dsarequired, row.pubrender, row.datatopub, row.campaign);
    EXPECT_EQ(got.may_bid, row.expected.may_bid) << row.name;
    EXPECT_EQ(got.no_bid_reason, row.expected.no_bid_reason) << row.name;
    EXPECT_EQ(got.attach, row.expected.attach) << row.name;
    EXPECT_EQ(got.adrender, row.expected.adrender) << row.name;
    EXPECT_EQ(got.send_transparency, row.expected.send_transparency) << row.name;
  }
}

}  // namespace
}  // namespace rtb::bidder::privacy
