// DecidePrivacy as a table: request signals and config in, what the bidder
// may do out. Strings are made by the test encoder.
#include "bidder/privacy/privacy_decision.h"

#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/bidder/privacy/privacy_decision_rows.h"

namespace rtb::bidder::privacy {
namespace {

using decision_table::Describe;
using decision_table::GdprRows;
using decision_table::kUs;
using decision_table::Row;
using decision_table::UsRows;

std::vector<Row> Table() {
  std::vector<Row> rows = GdprRows();
  for (Row& row : UsRows()) rows.push_back(std::move(row));
  return rows;
}

TEST(PrivacyDecisionTest, Table) {
  for (const Row& row : Table()) {
    config::PrivacyConfig config;
    config.gvl_vendor_id = kUs;
    if (row.configure) row.configure(config);
    PrivacySignals signals{.gdpr = row.gdpr,
                           .consent = row.consent,
                           .us_privacy = row.us_privacy,
                           .gpp = row.gpp,
                           .gpp_sid = row.gpp_sid,
                           .device_country = row.country};
    const PrivacyDecision got = DecidePrivacy(signals, config);
    EXPECT_EQ(Describe(got), Describe(row.expected)) << row.name;
  }
}

TEST(PrivacyDecisionTest, EveryRegimeAndOutcomeHasADistinctLabel) {
  std::set<std::string_view> regimes, outcomes;
  for (PrivacyRegime r : kPrivacyRegimes) regimes.insert(PrivacyRegimeName(r));
  for (PrivacyOutcome o : kPrivacyOutcomes) outcomes.insert(PrivacyOutcomeName(o));
  EXPECT_EQ(regimes, (std::set<std::string_view>{"none", "gdpr", "us"}));
  EXPECT_EQ(outcomes.size(), std::size(kPrivacyOutcomes));
  EXPECT_TRUE(outcomes.count("malformed"));
  EXPECT_TRUE(outcomes.count("opted_out"));
  EXPECT_EQ(kPrivacyDecisionsMetric, "bidder_privacy_decisions_total");
}

TEST(PrivacyDecisionTest, GdprCountries) {
  for (const char* c :
       {"AUT", "BEL", "BGR", "HRV", "CYP", "CZE", "DNK", "EST", "FIN", "FRA", "DEU", "GRC",
        "HUN", "IRL", "ITA", "LVA", "LTU", "LUX", "MLT", "NLD", "POL", "PRT", "ROU", "SVK",
        "SVN", "ESP", "SWE", "ISL", "LIE", "NOR", "GBR", "CHE", "REU", "deu"}) {
    EXPECT_TRUE(IsGdprCountry(c)) << c;
  }
  // Alpha-2, which some exchanges send: the same countries.
  for (const char* c : {"DE", "AT", "FR", "GB", "CH", "NO", "AX", "RE", "YT", "de", "se"}) {
    EXPECT_TRUE(IsGdprCountry(c)) << c;
  }
  for (const char* c :
       {"USA", "CAN", "TUR", "RUS", "UKR", "SRB", "US", "TR", "GI", "D", "DEUX", "", "GIB"}) {
    EXPECT_FALSE(IsGdprCountry(c)) << c;
  }
}

}  // namespace
}  // namespace rtb::bidder::privacy
