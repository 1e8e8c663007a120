// The embedded IAB tables, checked against rows of the public files they were
// taken from (taxonomy/data/README.md), and the translation rules built on
// them.
#include "taxonomy/category_taxonomy.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rtb::taxonomy {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const CategoryTaxonomies& Iab() { return CategoryTaxonomies::Iab(); }

TEST(CategoryTaxonomyTest, KnowsTheTaxonomiesItHasTablesFor) {
  for (int32_t known : {kContent1, kContent2, kContent21, kContent22, kContent3, kAdProduct2}) {
    EXPECT_TRUE(Iab().Known(known)) << known;
  }
  for (int32_t unknown : {0, kAdProduct1, kAudience11, kContent31, 500, 1000}) {
    EXPECT_FALSE(Iab().Known(unknown)) << unknown;
  }
  EXPECT_EQ(KnownIndex(kContent1), 0u);
  EXPECT_EQ(KnownIndex(kAdProduct2), 5u);
  EXPECT_EQ(KnownIndex(kAudience11), kKnownTaxonomyCount);
}

TEST(CategoryTaxonomyTest, ContainsTheCodesOfEachTable) {
  EXPECT_TRUE(Iab().Contains(kContent1, "IAB7-39"));
  EXPECT_TRUE(Iab().Contains(kContent1, "IAB26-4"));
  EXPECT_FALSE(Iab().Contains(kContent1, "IAB27"));
  EXPECT_FALSE(Iab().Contains(kContent1, "iab7"));
  // Content 3.0 ids are case-sensitive tokens as well as numbers.
  EXPECT_TRUE(Iab().Contains(kContent3, "483"));
  EXPECT_TRUE(Iab().Contains(kContent3, "v9i3On"));
  EXPECT_FALSE(Iab().Contains(kContent3, "V9I3ON"));
  EXPECT_FALSE(Iab().Contains(kContent3, "379"));  // News and Politics left with 2.x
  EXPECT_TRUE(Iab().Contains(kContent2, "379"));
  EXPECT_TRUE(Iab().Contains(kAdProduct2, "1000"));
  EXPECT_TRUE(Iab().Contains(kAdProduct2, "1582"));
  EXPECT_FALSE(Iab().Contains(kAdProduct2, "1583"));
  EXPECT_FALSE(Iab().Contains(kAudience11, "1"));
}

TEST(CategoryTaxonomyTest, SameTaxonomyGivesTheCodeWithItsPath) {
  EXPECT_THAT(Iab().Translate(kContent1, "IAB7-39", kContent1),
              ElementsAre(ElementsAre("IAB7-39", "IAB7")));
  EXPECT_THAT(Iab().Translate(kContent1, "IAB7", kContent1), ElementsAre(ElementsAre("IAB7")));
  // Content 3.0: Soft AC Music < Adult Contemporary Music < Music < Entertainment.
  EXPECT_THAT(Iab().Translate(kContent3, "340", kContent3),
              ElementsAre(ElementsAre("340", "339", "338", "JLBCU7")));
  // Ad Product 2.0: Hotels and Resorts < Accommodations < Travel and Tourism.
  EXPECT_THAT(Iab().Translate(kAdProduct2, "1533", kAdProduct2),
              ElementsAre(ElementsAre("1533", "1530", "1529")));
  // 1037's parent is given as itself in the source; Industrials is above it.
  EXPECT_THAT(Iab().Translate(kAdProduct2, "1038", kAdProduct2),
              ElementsAre(ElementsAre("1038", "1037", "1036", "1010")));
  // A taxonomy without tables: the code alone; a code a known one lacks: none.
  EXPECT_THAT(Iab().Translate(600, "vendor-7", 600), ElementsAre(ElementsAre("vendor-7")));
  EXPECT_THAT(Iab().Translate(kContent1, "IAB99", kContent1), IsEmpty());
}

TEST(CategoryTaxonomyTest, Content1TranslatesByThePublicMappings) {
  // Advertising -> Advertising Industry < Industries < Business and Finance.
  EXPECT_THAT(Iab().Translate(kContent1, "IAB3-1", kContent2),
              ElementsAre(ElementsAre("91", "90", "52")));
  EXPECT_THAT(Iab().Translate(kContent1, "IAB3-1", kContent3),
              ElementsAre(ElementsAre("91", "90", "52")));
  EXPECT_THAT(Iab().Translate(kContent1, "IAB3-1", kAdProduct2),
              ElementsAre(ElementsAre("1011", "1010")));
  // Sexuality -> Sexual Health (2.0) / Sexual Health (Ad Product 2.0).
  EXPECT_THAT(Iab().Translate(kContent1, "IAB7-39", kContent22),
              ElementsAre(ElementsAre("307", "287", "286")));
  EXPECT_THAT(Iab().Translate(kContent1, "IAB7-39", kAdProduct2), ElementsAre(ElementsAre("1519")));
  // Hotels (the example campaign's creative) in every known taxonomy.
  EXPECT_THAT(Iab().Translate(kContent1, "IAB20-18", kContent21),
              ElementsAre(ElementsAre("668", "664", "653")));
  EXPECT_THAT(Iab().Translate(kContent1, "IAB20-18", kAdProduct2),
              ElementsAre(ElementsAre("1533", "1530", "1529")));
  // News has a 2.x id that Content 3.0 dropped.
  EXPECT_THAT(Iab().Translate(kContent1, "IAB12-1", kContent2),
              ElementsAre(ElementsAre("382", "379")));
  EXPECT_THAT(Iab().Translate(kContent1, "IAB12-1", kContent3), IsEmpty());
  // Codes the 2.0 mapping leaves out.
  EXPECT_THAT(Iab().Translate(kContent1, "IAB25-3", kContent2), IsEmpty());
  EXPECT_THAT(Iab().Translate(kContent1, "IAB25-3", kAdProduct2), ElementsAre(ElementsAre("1001")));
  // No tables for Ad Product 1.0.
  EXPECT_THAT(Iab().Translate(kContent1, "IAB3-1", kAdProduct1), IsEmpty());
}

TEST(CategoryTaxonomyTest, BackToContent1TakesTheCodesThatMapThereOrAbove) {
  EXPECT_THAT(Iab().Translate(kAdProduct2, "1533", kContent1),
              ElementsAre(ElementsAre("IAB20-18", "IAB20")));
  // Green Vehicles: Electric Vehicle and Hybrid both map to it.
  EXPECT_THAT(Iab().Translate(kContent3, "22", kContent1),
              ElementsAre(ElementsAre("IAB2-10", "IAB2"), ElementsAre("IAB2-12", "IAB2")));
  // Microcar: nothing maps to it or to Auto Body Styles; Automotive has
  // IAB2 (tier 1, first) and IAB2-9.
  EXPECT_THAT(Iab().Translate(kContent3, "12", kContent1),
              ElementsAre(ElementsAre("IAB2"), ElementsAre("IAB2-9", "IAB2")));
}

TEST(CategoryTaxonomyTest, ContentVersionsShareIdsAndOtherPairsGoThroughContent1) {
  EXPECT_THAT(Iab().Translate(kContent2, "91", kContent3),
              ElementsAre(ElementsAre("91", "90", "52")));
  EXPECT_THAT(Iab().Translate(kContent3, "v9i3On", kContent22), ElementsAre(ElementsAre("v9i3On")));
  // 2.x News and Politics has no 3.0 id: through 1.0 (IAB11, IAB12 ...) it
  // lands on what those map to in 3.0, which is nothing.
  EXPECT_THAT(Iab().Translate(kContent2, "379", kContent3), IsEmpty());
  // Ad Product 2.0 Wine -> IAB8-18 -> Alcoholic Beverages (2.x).
  EXPECT_THAT(Iab().Translate(kAdProduct2, "1007", kContent21),
              ElementsAre(ElementsAre("211", "210")));
}

}  // namespace
}  // namespace rtb::taxonomy
