// The syntax checks behind the validation messages, on edge cases that are
// awkward to reach through a whole document.
#include "config/internal/value_syntax.h"

#include "config/internal/iso_codes.h"
#include "config/server_config.h"
#include "gtest/gtest.h"

namespace rtb::config::internal {
namespace {

TEST(ValueSyntaxTest, HostPortAcceptsNamesIpv4AndBracketedIpv6) {
  EXPECT_TRUE(IsHostPort("127.0.0.1:9090"));
  EXPECT_TRUE(IsHostPort("hbase-thrift.internal:9090"));
  EXPECT_TRUE(IsHostPort("[::1]:9090"));
  EXPECT_FALSE(IsHostPort("::1:9090"));
  EXPECT_FALSE(IsHostPort("[::1]9090"));
  EXPECT_FALSE(IsHostPort("host:0"));
  EXPECT_FALSE(IsHostPort("host:65536"));
  EXPECT_FALSE(IsHostPort("host:+80"));
  EXPECT_FALSE(IsHostPort(":9090"));
  EXPECT_FALSE(IsHostPort("bad_host:9090"));
}

TEST(ValueSyntaxTest, LoopbackCoversTheWhole127Network) {
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackAddress("127.255.0.9"));
  EXPECT_TRUE(IsLoopbackAddress("::1"));
  EXPECT_TRUE(IsLoopbackAddress("::ffff:127.0.0.1"));
  EXPECT_FALSE(IsLoopbackAddress("128.0.0.1"));
  EXPECT_FALSE(IsLoopbackAddress("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackAddress("::"));
  EXPECT_FALSE(IsLoopbackAddress("localhost"));
}

TEST(ValueSyntaxTest, UrlProblemsAreNamed) {
  EXPECT_EQ(UrlProblem("https://a.example.com/x?y=1#z", false, true), "");
  EXPECT_EQ(UrlProblem("https://[::1]:8443/x", false, true), "");
  EXPECT_EQ(UrlProblem("https://[zz]/x", false, true), "has an invalid IPv6 host");
  EXPECT_EQ(UrlProblem("javascript:alert(1)", true, true), "must start with http:// or https://");
  EXPECT_EQ(UrlProblem("https://a.example.com/\"onload=", false, true).substr(0, 24),
            "must be printable ASCII ");
  EXPECT_EQ(UrlProblem("https://-bad-.example.com/", false, true), "has an invalid host name");
  EXPECT_EQ(UrlProblem("http://a.example.com#x", true, false), "must not have a query or fragment");
}

TEST(ValueSyntaxTest, IabCategoriesFollowTheOnePointZeroTaxonomy) {
  EXPECT_TRUE(IsIabCategory("IAB1"));
  EXPECT_TRUE(IsIabCategory("IAB25-3"));
  EXPECT_TRUE(IsIabCategory("IAB7-39"));
  EXPECT_FALSE(IsIabCategory("IAB"));
  EXPECT_FALSE(IsIabCategory("IAB1-"));
  EXPECT_FALSE(IsIabCategory("iab1"));
  EXPECT_FALSE(IsIabCategory("IAB123"));
  EXPECT_FALSE(IsIabCategory("IAB1-2-3"));
}

TEST(ValueSyntaxTest, TimeZoneNamesCannotEscapeTheZoneDatabase) {
  EXPECT_TRUE(IsTimeZoneName("America/Argentina/Buenos_Aires"));
  EXPECT_TRUE(IsTimeZoneName("Etc/GMT-14"));
  EXPECT_FALSE(IsTimeZoneName("../etc/passwd"));
  EXPECT_FALSE(IsTimeZoneName("America//New_York"));
  EXPECT_FALSE(IsTimeZoneName("/UTC"));
  EXPECT_FALSE(IsTimeZoneName("America/.hidden"));
  EXPECT_TRUE(TimeZoneExists("America/Argentina/Buenos_Aires"));
  EXPECT_FALSE(TimeZoneExists("America/Atlantis"));
}

TEST(ValueSyntaxTest, EnvironmentVariableNamesAreShellNames) {
  EXPECT_TRUE(IsEnvironmentVariableName("RTB_DEVICE_KEY_SECRET"));
  EXPECT_TRUE(IsEnvironmentVariableName("_x1"));
  EXPECT_FALSE(IsEnvironmentVariableName("1X"));
  EXPECT_FALSE(IsEnvironmentVariableName("A-B"));
  EXPECT_FALSE(IsEnvironmentVariableName(""));
}

TEST(IsoCodesTest, ListsHoldAssignedCodesOnly) {
  EXPECT_TRUE(IsIsoCountryAlpha3("USA"));
  EXPECT_TRUE(IsIsoCountryAlpha3("DEU"));
  EXPECT_TRUE(IsIsoCountryAlpha3("ZWE"));
  EXPECT_TRUE(IsIsoCountryAlpha3("ABW"));
  EXPECT_FALSE(IsIsoCountryAlpha3("UK"));
  EXPECT_FALSE(IsIsoCountryAlpha3("usa"));
  EXPECT_TRUE(IsIsoCurrencyCode("USD"));
  EXPECT_TRUE(IsIsoCurrencyCode("EUR"));
  EXPECT_TRUE(IsIsoCurrencyCode("JPY"));
  EXPECT_FALSE(IsIsoCurrencyCode("EURO"));
  EXPECT_FALSE(IsIsoCurrencyCode("BTC"));
}

}  // namespace
}  // namespace rtb::config::internal
