// taxonomy: the IAB category taxonomies a bid request's `cattax` may name
// (AdCOM 1.0 list "Category Taxonomies"), their trees, and the translation of
// a category code from one taxonomy to another. Data only, no dependencies:
// config validates campaign categories with it, the bid path matches bcat and
// acat and writes the bid's cat with it.
//
// The tables (taxonomy/data/, their sources and coverage in its README) are
// compiled in and parsed once, on the first call to Iab().
//
// Thread-safety: a CategoryTaxonomies is immutable; Iab() may be called from
// any thread.
#ifndef RTB_TAXONOMY_CATEGORY_TAXONOMY_H_
#define RTB_TAXONOMY_CATEGORY_TAXONOMY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace rtb::taxonomy {

// AdCOM 1.0 list "Category Taxonomies".
inline constexpr int32_t kContent1 = 1;       // IAB Content Category Taxonomy 1.0
inline constexpr int32_t kContent2 = 2;       // IAB Content Category Taxonomy 2.0
inline constexpr int32_t kAdProduct1 = 3;     // IAB Ad Product Taxonomy 1.0
inline constexpr int32_t kAudience11 = 4;     // IAB Audience Taxonomy 1.1
inline constexpr int32_t kContent21 = 5;      // IAB Content Taxonomy 2.1
inline constexpr int32_t kContent22 = 6;      // IAB Content Taxonomy 2.2
inline constexpr int32_t kContent3 = 7;       // IAB Content Taxonomy 3.0
inline constexpr int32_t kAdProduct2 = 8;     // IAB Ad Product Taxonomy 2.0
inline constexpr int32_t kContent31 = 9;      // IAB Content Taxonomy 3.1
inline constexpr int32_t kFirstVendor = 500;  // 500+: vendor-specific taxonomies

// The taxonomies the tables hold a tree for, in a fixed order (index with
// KnownIndex()). Each translates to and from every other: Content 1.0 is the
// hub, except between the Content versions, which share ids, and between the
// two Ad Product versions, which translate by a table joined on the
// publisher's names (data README); Ad Product 1.0 reaches the others through
// Ad Product 2.0.
inline constexpr int32_t kKnownTaxonomies[] = {kContent1, kContent2,   kContent21,  kContent22,
                                               kContent3, kAdProduct2, kAdProduct1, kContent31};
inline constexpr size_t kKnownTaxonomyCount = std::size(kKnownTaxonomies);

// Position of `taxonomy` in kKnownTaxonomies, or kKnownTaxonomyCount.
size_t KnownIndex(int32_t taxonomy);

// One category as a path up its taxonomy's tree: the code itself first,
// then its parent, up to the tier-1 code.
using CategoryPath = std::vector<std::string>;

class CategoryTaxonomies {
 public:
  // The IAB tables of taxonomy/data.
  static const CategoryTaxonomies& Iab();

  // Whether the tables hold `taxonomy` (see kKnownTaxonomies).
  bool Known(int32_t taxonomy) const { return KnownIndex(taxonomy) < kKnownTaxonomyCount; }

  // Whether `code` is a category of `taxonomy` the tables know. False for a
  // taxonomy they do not hold.
  bool Contains(int32_t taxonomy, std::string_view code) const;

  // `code`, a category of `from`, as categories of `to`, each with the path
  // above it. The same taxonomy gives the code itself (with its path when the
  // taxonomy is known, else alone). A code that does not translate, or a
  // translation to or from a taxonomy the tables do not hold, gives nothing.
  std::vector<CategoryPath> Translate(int32_t from, std::string_view code, int32_t to) const;

  CategoryTaxonomies(const CategoryTaxonomies&) = delete;
  CategoryTaxonomies& operator=(const CategoryTaxonomies&) = delete;

 private:
  CategoryTaxonomies();

  struct Tree {
    absl::flat_hash_map<std::string, std::string> parent;  // "" for a tier-1 code
  };

  const Tree& TreeOf(int32_t taxonomy) const;
  CategoryPath PathOf(int32_t taxonomy, std::string_view code) const;
  // Content 1.0 codes of a code of `from` (see the data README).
  std::vector<std::string> ToContent1(int32_t from, std::string_view code) const;
  // Codes of `to` for a Content 1.0 code.
  std::vector<std::string> FromContent1(std::string_view code, int32_t to) const;
  using CodeMap = absl::flat_hash_map<std::string, std::vector<std::string>>;
  // What `mapping` gives `code` of `taxonomy`, else its nearest ancestor
  // that has some; nothing when none has.
  std::vector<std::string> NearestMapped(int32_t taxonomy, std::string_view code,
                                         const CodeMap& mapping) const;

  Tree content1_;
  Tree content2_;  // 2.0, 2.1, 2.2
  Tree content3_;
  Tree content31_;
  Tree ad_product1_;
  Tree ad_product2_;
  absl::flat_hash_map<std::string, std::string> content1_to_content2_;
  absl::flat_hash_map<std::string, std::string> content1_to_ad_product2_;
  // Inverses: Content 1.0 codes per id, tier-1 codes first.
  CodeMap content2_to_content1_;
  CodeMap ad_product2_to_content1_;
  // The Ad Product 1.0 <-> 2.0 table, both ways, each list in table order.
  CodeMap ad_product1_to_ad_product2_;
  CodeMap ad_product2_to_ad_product1_;
};

}  // namespace rtb::taxonomy

#endif  // RTB_TAXONOMY_CATEGORY_TAXONOMY_H_
