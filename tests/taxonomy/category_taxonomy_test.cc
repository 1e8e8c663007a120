// The embedded IAB tables, checked against rows of the public files they were
// taken from (taxonomy/data/README.md), and the translation rules built on
// them.
#include "taxonomy/category_taxonomy.h"

#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "taxonomy/internal/tables.h"

namespace rtb::taxonomy {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const CategoryTaxonomies& Iab() { return CategoryTaxonomies::Iab(); }

// The bid path's bcat rule over the tables: `bcat_code` of `bcat_taxonomy`
// blocks a campaign category `code` of `taxonomy` when a translation of it
// into the request's taxonomy lists the bcat code or has it above.
bool Blocks(int32_t bcat_taxonomy, const std::string& bcat_code, int32_t taxonomy,
            const std::string& code) {
  for (const CategoryPath& path : Iab().Translate(taxonomy, code, bcat_taxonomy)) {
    for (const std::string& step : path) {
      if (step == bcat_code) return true;
    }
  }
  return false;
}

TEST(CategoryTaxonomyTest, KnowsTheTaxonomiesItHasTablesFor) {
  for (int32_t known : {kContent1, kContent2, kAdProduct1, kContent21, kContent22, kContent3,
                        kAdProduct2, kContent31}) {
    EXPECT_TRUE(Iab().Known(known)) << known;
  }
  for (int32_t unknown : {0, kAudience11, 10, 500, 1000}) {
    EXPECT_FALSE(Iab().Known(unknown)) << unknown;
  }
  EXPECT_EQ(KnownIndex(kContent1), 0u);
  EXPECT_EQ(KnownIndex(kAdProduct2), 5u);
  EXPECT_EQ(KnownIndex(kAdProduct1), 6u);
  EXPECT_EQ(KnownIndex(kContent31), 7u);
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
  // Ad Product 1.0: ids 1-863 as the file gives them, which spells
  // Health and Fitness Apps "0" and has no 61 (Coupe repeats 51).
  EXPECT_TRUE(Iab().Contains(kAdProduct1, "1"));
  EXPECT_TRUE(Iab().Contains(kAdProduct1, "863"));
  EXPECT_TRUE(Iab().Contains(kAdProduct1, "0"));
  EXPECT_FALSE(Iab().Contains(kAdProduct1, "61"));
  EXPECT_FALSE(Iab().Contains(kAdProduct1, "864"));
  EXPECT_FALSE(Iab().Contains(kAdProduct1, "80DV7O"));  // added by 1.1
  // Content 3.1: the 3.0 ids and Thriller (700).
  EXPECT_TRUE(Iab().Contains(kContent31, "700"));
  EXPECT_FALSE(Iab().Contains(kContent3, "700"));
  EXPECT_TRUE(Iab().Contains(kContent31, "v9i3On"));
  EXPECT_TRUE(Iab().Contains(kContent31, "WQC6HR"));
  EXPECT_FALSE(Iab().Contains(kContent31, "379"));
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
  // Content 3.1 keeps the 3.0 ids, and so what 3.0 dropped.
  EXPECT_THAT(Iab().Translate(kContent1, "IAB20-18", kContent31),
              ElementsAre(ElementsAre("668", "664", "653")));
  EXPECT_THAT(Iab().Translate(kContent1, "IAB12-1", kContent31), IsEmpty());
  // Ad Product 1.0 through Ad Product 2.0: Advertising -> Advertising and
  // Marketing (1011) -> Advertising and Marketing < Business and Industrial.
  EXPECT_THAT(Iab().Translate(kContent1, "IAB3-1", kAdProduct1),
              ElementsAre(ElementsAre("120", "119")));
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
  // 3.0 and 3.1 share ids; Thriller is only in 3.1 and nothing in 1.0 maps
  // to it or to Genres.
  EXPECT_THAT(Iab().Translate(kContent3, "340", kContent31),
              ElementsAre(ElementsAre("340", "339", "338", "JLBCU7")));
  EXPECT_THAT(Iab().Translate(kContent31, "668", kContent22),
              ElementsAre(ElementsAre("668", "664", "653")));
  EXPECT_THAT(Iab().Translate(kContent31, "700", kContent3), IsEmpty());
  EXPECT_THAT(Iab().Translate(kContent31, "22", kContent1),
              ElementsAre(ElementsAre("IAB2-10", "IAB2"), ElementsAre("IAB2-12", "IAB2")));
}

TEST(CategoryTaxonomyTest, AdProduct1TreeFromItsFile) {
  // Hotels and Resorts < Travel and Tourism.
  EXPECT_THAT(Iab().Translate(kAdProduct1, "850", kAdProduct1),
              ElementsAre(ElementsAre("850", "833")));
  // Coffee < Coffee & Tea < Beverages < Edible < Consumer Packaged Goods.
  EXPECT_THAT(Iab().Translate(kAdProduct1, "225", kAdProduct1),
              ElementsAre(ElementsAre("225", "224", "222", "221", "220")));
  // Frozen Meat/Poultry/Seafood: the file's parent is 349 (Baked Beans), its
  // tier columns put it under Frozen.
  EXPECT_THAT(Iab().Translate(kAdProduct1, "273", kAdProduct1),
              ElementsAre(ElementsAre("273", "249", "221", "220")));
  // 51 is Ticket Services (its first row), not the Coupe that repeats it.
  EXPECT_THAT(Iab().Translate(kAdProduct1, "51", kAdProduct1),
              ElementsAre(ElementsAre("51", "27")));
  EXPECT_THAT(Iab().Translate(kAdProduct1, "0", kAdProduct1), ElementsAre(ElementsAre("0", "1")));
}

TEST(CategoryTaxonomyTest, Content31TreeFromItsFile) {
  // Horse Racing: the 3.1 file's parent column says Sports, its tier columns
  // (and 3.0) Equine Sports; the longer path is kept.
  EXPECT_THAT(Iab().Translate(kContent31, "497", kContent31),
              ElementsAre(ElementsAre("497", "496", "483")));
  EXPECT_THAT(Iab().Translate(kContent31, "700", kContent31),
              ElementsAre(ElementsAre("700", "SPSHQ5")));
  EXPECT_THAT(Iab().Translate(kContent31, "376", kContent31),
              ElementsAre(ElementsAre("376", "371", "SPSHQ5")));
  EXPECT_THAT(Iab().Translate(kContent31, "150", kContent31), ElementsAre(ElementsAre("150")));
}

TEST(CategoryTaxonomyTest, BcatInContent31BlocksCampaignsOfOtherTaxonomies) {
  // Hotels (Content 1.0 IAB20-18, Content 3.0 668): 3.1 Hotels and Motels,
  // its Travel Type and Travel parents block it; a sibling does not.
  for (const char* bcat : {"668", "664", "653"}) {
    EXPECT_TRUE(Blocks(kContent31, bcat, kContent1, "IAB20-18")) << bcat;
    EXPECT_TRUE(Blocks(kContent31, bcat, kContent3, "668")) << bcat;
  }
  EXPECT_FALSE(Blocks(kContent31, "665", kContent1, "IAB20-18"));
  EXPECT_FALSE(Blocks(kContent31, "665", kContent3, "668"));
  // The reverse: a campaign declared in 3.1 against a 1.0 or 3.0 bcat.
  EXPECT_TRUE(Blocks(kContent1, "IAB20", kContent31, "668"));
  EXPECT_TRUE(Blocks(kContent1, "IAB20-18", kContent31, "668"));
  EXPECT_FALSE(Blocks(kContent1, "IAB19", kContent31, "668"));
  EXPECT_TRUE(Blocks(kContent3, "653", kContent31, "668"));
  // A parent blocks its child within 3.1; a child does not block its parent.
  EXPECT_TRUE(Blocks(kContent31, "SPSHQ5", kContent31, "700"));
  EXPECT_TRUE(Blocks(kContent31, "496", kContent31, "497"));
  EXPECT_FALSE(Blocks(kContent31, "497", kContent31, "496"));
}

TEST(CategoryTaxonomyTest, AdProduct1To2TableHoldsRowsOfTheMapping) {
  // Looked up by hand in the sources (data README). "Ad Product 2.0 to
  // 1.1.tsv" has the row Bars | draft 1002 | Alcohol > Bars | AP1 650 Bars;
  // "Ad Product Taxonomy 2.0.tsv" gives Alcohol > Bars the id 1003, and
  // "Ad Product Taxonomy 1.0.tsv" names 650 Bars (under Food and Beverage
  // Services, 648).
  EXPECT_THAT(Iab().Translate(kAdProduct1, "650", kAdProduct2),
              ElementsAre(ElementsAre("1003", "1002")));
  // Two draft rows, Consumer Electronics > Video Games (published 1120) and
  // > Video Game Consoles (1121), both give AP1 219 Video Games and Consoles.
  EXPECT_THAT(Iab().Translate(kAdProduct1, "219", kAdProduct2),
              ElementsAre(ElementsAre("1120", "1097"), ElementsAre("1121", "1097")));
  // Vehicles > Automotive Ownership > New Vehicle Ownership (published 1554)
  // gives AP1 54 New Vehicles.
  EXPECT_THAT(Iab().Translate(kAdProduct1, "54", kAdProduct2),
              ElementsAre(ElementsAre("1554", "1553", "1551")));
  // Business and Industrial > Business Services > Web Hosting and Cloud
  // Computing (published 1027) gives AP1 863, under Web Services in 1.0.
  EXPECT_THAT(Iab().Translate(kAdProduct1, "863", kAdProduct2),
              ElementsAre(ElementsAre("1027", "1012", "1010")));
}

TEST(CategoryTaxonomyTest, AdProduct1To2TableLeavesOutRowsThatDoNotJoinExactly) {
  // The mapping's Travel and Tourism > Accomodations > Hotels and Resorts
  // (AP1 850) matches no published path (the published file spells
  // "Accommodations"), so 850 has no row and takes its parent's: Travel and
  // Tourism 833 -> 1529.
  EXPECT_THAT(Iab().Translate(kAdProduct1, "850", kAdProduct2), ElementsAre(ElementsAre("1529")));
  // The mapping gives Theatre and Musicals the AP1 id 31, which 1.0 names
  // Concerts: left out, so 31 takes its parent's, Experiences and Events (30)
  // -> Events and Performances (1315).
  EXPECT_THAT(Iab().Translate(kAdProduct1, "31", kAdProduct2), ElementsAre(ElementsAre("1315")));
  // Ad Product 2.0 Hotels and Resorts has no row either: its nearest ancestor
  // with one is Travel and Tourism.
  EXPECT_THAT(Iab().Translate(kAdProduct2, "1533", kAdProduct1), ElementsAre(ElementsAre("833")));
}

TEST(CategoryTaxonomyTest, AdProduct2TranslatesBackToAdProduct1) {
  EXPECT_THAT(Iab().Translate(kAdProduct2, "1003", kAdProduct1),
              ElementsAre(ElementsAre("650", "648")));
  EXPECT_THAT(Iab().Translate(kAdProduct2, "1554", kAdProduct1),
              ElementsAre(ElementsAre("54", "53")));
  // Auto Towing and Auto Repair both give Auto Towing and Repair (111).
  EXPECT_THAT(Iab().Translate(kAdProduct2, "1561", kAdProduct1),
              ElementsAre(ElementsAre("111", "109")));
  EXPECT_THAT(Iab().Translate(kAdProduct2, "1562", kAdProduct1),
              ElementsAre(ElementsAre("111", "109")));
  // Aftermarket Parts and Accessories has no AP1 id; Automotive Products has.
  EXPECT_THAT(Iab().Translate(kAdProduct2, "1559", kAdProduct1), ElementsAre(ElementsAre("100")));
  // Nothing on the path of Vehicles > Vehicle Type > Electric Vehicles has one.
  EXPECT_THAT(Iab().Translate(kAdProduct2, "1571", kAdProduct1), IsEmpty());
}

TEST(CategoryTaxonomyTest, AdProduct1TranslatesToTheOthersThroughAdProduct2) {
  // New Vehicles -> New Vehicle Ownership (1554), which no Content 1.0 code
  // maps to; Automotive Ownership (1553) has Buying/Selling Cars (IAB2-3).
  EXPECT_THAT(Iab().Translate(kAdProduct1, "54", kContent1),
              ElementsAre(ElementsAre("IAB2-3", "IAB2")));
  EXPECT_THAT(Iab().Translate(kContent1, "IAB2-3", kAdProduct1), ElementsAre(ElementsAre("53")));
  // Hotels (Content 1.0 IAB20-18, 3.0 668) -> Hotels and Resorts (1533) ->
  // Travel and Tourism, as above.
  EXPECT_THAT(Iab().Translate(kContent1, "IAB20-18", kAdProduct1), ElementsAre(ElementsAre("833")));
  EXPECT_THAT(Iab().Translate(kContent3, "668", kAdProduct1), ElementsAre(ElementsAre("833")));
  // Advertising and Marketing -> 1011 -> IAB3-1 and IAB3-11 -> their 3.0 ids.
  const std::vector<CategoryPath> content3 = Iab().Translate(kAdProduct1, "120", kContent3);
  EXPECT_THAT(content3, ::testing::Contains(ElementsAre("91", "90", "52")));
}

TEST(CategoryTaxonomyTest, AdProduct1TreeCodesBlockTheirChildrenAcrossTaxonomies) {
  // Within Ad Product 1.0 the tree applies: a parent blocks its child.
  EXPECT_TRUE(Blocks(kAdProduct1, "833", kAdProduct1, "850"));
  EXPECT_TRUE(Blocks(kAdProduct1, "850", kAdProduct1, "850"));
  EXPECT_TRUE(Blocks(kAdProduct1, "220", kAdProduct1, "225"));
  EXPECT_FALSE(Blocks(kAdProduct1, "850", kAdProduct1, "833"));
  EXPECT_FALSE(Blocks(kAdProduct1, "835", kAdProduct1, "850"));
  // Travel and Tourism in Ad Product 1.0 blocks Hotels declared in Content
  // 1.0, 3.0 or Ad Product 2.0; Air Travel does not.
  EXPECT_TRUE(Blocks(kAdProduct1, "833", kContent1, "IAB20-18"));
  EXPECT_TRUE(Blocks(kAdProduct1, "833", kContent3, "668"));
  EXPECT_TRUE(Blocks(kAdProduct1, "833", kAdProduct2, "1533"));
  EXPECT_FALSE(Blocks(kAdProduct1, "835", kContent1, "IAB20-18"));
  // Automotive Ownership blocks New Vehicle Ownership (2.0), which is New
  // Vehicles (54) below it; Automotive Products does not.
  EXPECT_TRUE(Blocks(kAdProduct1, "53", kAdProduct2, "1554"));
  EXPECT_FALSE(Blocks(kAdProduct1, "100", kAdProduct2, "1554"));
  // The reverse: campaigns declared in Ad Product 1.0. Sedan (56) has no row;
  // New Vehicles above it gives 1554, under Vehicles.
  EXPECT_TRUE(Blocks(kAdProduct2, "1551", kAdProduct1, "56"));
  EXPECT_TRUE(Blocks(kAdProduct2, "1554", kAdProduct1, "56"));
  EXPECT_FALSE(Blocks(kAdProduct2, "1556", kAdProduct1, "56"));
  EXPECT_TRUE(Blocks(kContent1, "IAB20", kAdProduct1, "850"));
  EXPECT_TRUE(Blocks(kContent3, "653", kAdProduct1, "850"));
  EXPECT_FALSE(Blocks(kContent1, "IAB19", kAdProduct1, "850"));
}

// Every row of the embedded Ad Product 1.0 -> 2.0 table names ids of the two
// trees, and the table has the 395 pairs the generator wrote.
TEST(CategoryTaxonomyTest, AdProduct1To2TableIdsExistInTheirTrees) {
  int pairs = 0;
  for (const internal::Table& table : internal::Tables()) {
    if (table.name != "ad_product_1_0_to_ad_product_2_0") continue;
    std::string_view text = table.text;
    while (!text.empty()) {
      const size_t end = text.find('\n');
      const std::string_view line = text.substr(0, end);
      text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
      if (line.empty() || line.front() == '#') continue;
      const size_t tab = line.find('\t');
      ASSERT_NE(tab, std::string_view::npos) << line;
      EXPECT_TRUE(Iab().Contains(kAdProduct1, line.substr(0, tab))) << line;
      EXPECT_TRUE(Iab().Contains(kAdProduct2, line.substr(tab + 1))) << line;
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, 395);
}

}  // namespace
}  // namespace rtb::taxonomy
