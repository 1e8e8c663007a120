// The version of an answer (bidder/openrtb/openrtb_version.cc): the
// request's x-openrtb-version header, else its exchange's configured version.
#include <string_view>

#include "bidder/openrtb/openrtb.h"
#include "gtest/gtest.h"

namespace rtb::openrtb {
namespace {

TEST(OpenRtbVersionTest, HeaderDecidesWhenItNamesA2xVersion) {
  for (OpenRtbVersion configured : {OpenRtbVersion::k2_5, OpenRtbVersion::k2_6}) {
    EXPECT_EQ(ResponseOpenRtbVersion("2.6", configured), OpenRtbVersion::k2_6);
    EXPECT_EQ(ResponseOpenRtbVersion("2.6-202303", configured), OpenRtbVersion::k2_6);
    EXPECT_EQ(ResponseOpenRtbVersion(" 2.6 ", configured), OpenRtbVersion::k2_6);
    EXPECT_EQ(ResponseOpenRtbVersion("2.10", configured), OpenRtbVersion::k2_6);
    EXPECT_EQ(ResponseOpenRtbVersion("2.5", configured), OpenRtbVersion::k2_5);
    EXPECT_EQ(ResponseOpenRtbVersion("2.3", configured), OpenRtbVersion::k2_5);
  }
}

TEST(OpenRtbVersionTest, WithoutAUsableHeaderTheExchangesVersionDecides) {
  for (OpenRtbVersion configured : {OpenRtbVersion::k2_5, OpenRtbVersion::k2_6}) {
    EXPECT_EQ(ResponseOpenRtbVersion("", configured), configured);
    EXPECT_EQ(ResponseOpenRtbVersion("3.0", configured), configured);
    EXPECT_EQ(ResponseOpenRtbVersion("latest", configured), configured);
    EXPECT_EQ(ResponseOpenRtbVersion("2.", configured), configured);
  }
  EXPECT_EQ(ToString(OpenRtbVersion::k2_5), "2.5");
  EXPECT_EQ(ToString(OpenRtbVersion::k2_6), "2.6");
}

}  // namespace
}  // namespace rtb::openrtb
