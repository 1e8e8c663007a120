// Category rules across taxonomies: the request's bcat and acat, in the
// taxonomy its cattax names (Content 1.0 when absent), against a campaign's
// or creative's categories (CategorySet), and the bid's cat.
//
//   - A taxonomy the tables hold: the categories translated into it, each
//     with the path above it. bcat blocks a category when it lists the
//     category or a code above it (a tier-1 code blocks its subcategories);
//     acat allows a category when it lists it or a code above it, and every
//     category must be allowed (a campaign without categories in that
//     taxonomy is not). Ad Product 1.0 reaches the others through Ad
//     Product 2.0 (taxonomy/data/README.md).
//   - Any other taxonomy (Audience, a vendor's): only codes equal to the
//     configured ones match, in either rule.
//   - The bid's cat: the categories in the request's taxonomy with cattax
//     set to it, or, when they do not translate, the configured ones with
//     the campaign's cattax.
//
// Thread-safety: pure functions over immutable inputs.
#ifndef RTB_BIDDER_BID_INTERNAL_CATEGORIES_H_
#define RTB_BIDDER_BID_INTERNAL_CATEGORIES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bidder/bid/internal/campaign_index.h"
#include "bidder/openrtb/openrtb.h"

namespace rtb::bidder {

// The taxonomy of a request's bcat, acat and the bid's cat.
struct RequestTaxonomy {
  int32_t cattax = taxonomy::kContent1;
  size_t known = 0;  // taxonomy::KnownIndex(cattax); kKnownTaxonomyCount when not held

  static RequestTaxonomy Of(const openrtb::BidRequest& request);
  bool is_known() const { return known < taxonomy::kKnownTaxonomyCount; }
};

// Whether `bcat` blocks a category of `set`.
bool CategoriesBlocked(const CategorySet& set, const RequestTaxonomy& taxonomy,
                       const std::vector<std::string>& bcat);

// Whether `acat` allows every category of `set` (an empty acat allows all).
bool CategoriesAllowed(const CategorySet& set, const RequestTaxonomy& taxonomy,
                       const std::vector<std::string>& acat);

// The bid's cat and cattax (unset for Content 1.0, OpenRTB's default).
void BidCategories(const CategorySet& set, const RequestTaxonomy& taxonomy,
                   std::vector<std::string>* cat, std::optional<int32_t>* cattax);

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_INTERNAL_CATEGORIES_H_
