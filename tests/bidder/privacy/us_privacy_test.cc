// DecodeUsPrivacy: the four characters of the US Privacy string.
#include "bidder/privacy/us_privacy.h"

#include "gtest/gtest.h"

namespace rtb::bidder::privacy {
namespace {

using F = UsPrivacyFlag;

TEST(UsPrivacyTest, SpecificationExamplesDecode) {
  // "1YNN": notice given, not opted out, not covered by the LSPA.
  absl::StatusOr<UsPrivacy> usp = DecodeUsPrivacy("1YNN");
  ASSERT_TRUE(usp.ok()) << usp.status();
  EXPECT_EQ(*usp, (UsPrivacy{1, F::kYes, F::kNo, F::kNo}));
  // "1YYY": opted out of the sale, LSPA transaction.
  EXPECT_EQ(*DecodeUsPrivacy("1YYY"), (UsPrivacy{1, F::kYes, F::kYes, F::kYes}));
  // "1---": the law does not apply.
  EXPECT_EQ(*DecodeUsPrivacy("1---"),
            (UsPrivacy{1, F::kNotApplicable, F::kNotApplicable, F::kNotApplicable}));
}

TEST(UsPrivacyTest, LowerCaseFlagsReadAsUpperCase) {
  EXPECT_EQ(*DecodeUsPrivacy("1nyN"), (UsPrivacy{1, F::kNo, F::kYes, F::kNo}));
}

TEST(UsPrivacyTest, AnythingElseIsMalformed) {
  for (const char* text : {"", "1", "1YN", "1YNNN", "2YNN", "1YXN", "1Y N", "YNN1", "1YN\0"}) {
    EXPECT_FALSE(DecodeUsPrivacy(text).ok()) << text;
  }
  EXPECT_FALSE(DecodeUsPrivacy(std::string_view("1YN\0", 4)).ok());
}

}  // namespace
}  // namespace rtb::bidder::privacy
