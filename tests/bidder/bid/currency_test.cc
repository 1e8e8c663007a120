#include "bidder/bid/currency.h"

#include "gtest/gtest.h"

namespace rtb::bidder {
namespace {

CurrencyTable Rates() {
  absl::StatusOr<CurrencyTable> table =
      CurrencyTable::Create({{"USD", 1.0}, {"EUR", 1.08}, {"GBP", 1.27}, {"JPY", 0.0067}});
  EXPECT_TRUE(table.ok()) << table.status();
  return *std::move(table);
}

TEST(CurrencyTableTest, ConvertsThroughUsd) {
  CurrencyTable rates = Rates();
  EXPECT_DOUBLE_EQ(*rates.Convert(10.0, "EUR", "USD"), 10.8);
  EXPECT_DOUBLE_EQ(*rates.Convert(10.8, "USD", "EUR"), 10.0);
  EXPECT_DOUBLE_EQ(*rates.Convert(1.0, "GBP", "EUR"), 1.27 / 1.08);
  EXPECT_DOUBLE_EQ(*rates.Convert(1000.0, "JPY", "USD"), 6.7);
  EXPECT_DOUBLE_EQ(*rates.Convert(2.5, "EUR", "EUR"), 2.5);
}

TEST(CurrencyTableTest, CodesIgnoreCase) {
  CurrencyTable rates = Rates();
  EXPECT_TRUE(rates.Has("eur"));
  EXPECT_DOUBLE_EQ(*rates.Convert(1.0, "eur", "Usd"), 1.08);
}

TEST(CurrencyTableTest, UnknownCurrencyHasNoRate) {
  CurrencyTable rates = Rates();
  EXPECT_FALSE(rates.Has("CHF"));
  EXPECT_FALSE(rates.Convert(1.0, "CHF", "USD").has_value());
  EXPECT_FALSE(rates.Convert(1.0, "USD", "CHF").has_value());
  EXPECT_FALSE(rates.Convert(1.0, "CHF", "CHF").has_value());
  EXPECT_FALSE(rates.Convert(1.0, "US", "USD").has_value());
  EXPECT_FALSE(rates.Convert(1.0, "U$D", "USD").has_value());
}

TEST(CurrencyTableTest, UsdIsAlwaysPresent) {
  absl::StatusOr<CurrencyTable> table = CurrencyTable::Create({{"EUR", 1.08}});
  ASSERT_TRUE(table.ok());
  EXPECT_TRUE(table->Has("USD"));
  EXPECT_DOUBLE_EQ(*table->Convert(1.0, "EUR", "USD"), 1.08);
}

TEST(CurrencyTableTest, RejectsBadRatesAndCodes) {
  EXPECT_FALSE(CurrencyTable::Create({{"EUR", 0.0}}).ok());
  EXPECT_FALSE(CurrencyTable::Create({{"EUR", -1.0}}).ok());
  EXPECT_FALSE(CurrencyTable::Create({{"EURO", 1.0}}).ok());
  EXPECT_FALSE(CurrencyTable::Create({{"EUR", 1.0}, {"eur", 1.1}}).ok());
}

TEST(PackCurrencyCodeTest, PacksThreeLettersOnly) {
  EXPECT_EQ(PackCurrencyCode("USD"), PackCurrencyCode("usd"));
  EXPECT_NE(PackCurrencyCode("USD"), PackCurrencyCode("EUR"));
  EXPECT_EQ(PackCurrencyCode(""), 0u);
  EXPECT_EQ(PackCurrencyCode("US1"), 0u);
  EXPECT_EQ(PackCurrencyCode("USDX"), 0u);
}

}  // namespace
}  // namespace rtb::bidder
