// The device_impressions row layout (bidder/events/impressions.h), written
// out by hand here so a change to it fails.
#include "bidder/events/impressions.h"

#include <string>

#include "gtest/gtest.h"

namespace rtb::bidder::events {
namespace {

TEST(ImpressionsLayoutTest, DeviceImpressionRowIsKeyThenReverseTimeThenImpression) {
  const std::string device(16, '\x11');
  const std::string impression(16, '\x22');
  const std::string row = DeviceImpressionRow(device, 1, impression);
  // INT64_MAX - 1 = 0x7ffffffffffffffe, big-endian.
  EXPECT_EQ(row, device + std::string("\x7f\xff\xff\xff\xff\xff\xff\xfe", 8) + impression);
  EXPECT_EQ(ImpressionIdOfDeviceImpressionRow(row), impression);
}

TEST(ImpressionsLayoutTest, NewerImpressionsOfADeviceSortFirst) {
  const std::string device(16, 'd');
  EXPECT_LT(DeviceImpressionRow(device, 2000, "b"), DeviceImpressionRow(device, 1000, "a"));
}

TEST(ImpressionsLayoutTest, ARowTooShortNamesNoImpression) {
  EXPECT_FALSE(ImpressionIdOfDeviceImpressionRow(std::string(24, 'x')).has_value());
  EXPECT_FALSE(ImpressionIdOfDeviceImpressionRow("").has_value());
  EXPECT_EQ(ImpressionIdOfDeviceImpressionRow(std::string(24, 'x') + "i"), "i");
}

}  // namespace
}  // namespace rtb::bidder::events
