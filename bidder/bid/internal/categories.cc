#include "bidder/bid/internal/categories.h"

#include <algorithm>

namespace rtb::bidder {
namespace {

bool Listed(const std::vector<std::string>& list, const std::string& code) {
  return std::find(list.begin(), list.end(), code) != list.end();
}

bool AnyListed(const taxonomy::CategoryPath& path, const std::vector<std::string>& list) {
  return std::any_of(path.begin(), path.end(),
                     [&](const std::string& code) { return Listed(list, code); });
}

}  // namespace

RequestTaxonomy RequestTaxonomy::Of(const openrtb::BidRequest& request) {
  RequestTaxonomy taxonomy;
  taxonomy.cattax = request.cattax.value_or(taxonomy::kContent1);
  taxonomy.known = taxonomy::KnownIndex(taxonomy.cattax);
  return taxonomy;
}

bool CategoriesBlocked(const CategorySet& set, const RequestTaxonomy& taxonomy,
                       const std::vector<std::string>& bcat) {
  if (bcat.empty()) return false;
  if (!taxonomy.is_known()) {
    return std::any_of(set.codes.begin(), set.codes.end(),
                       [&](const std::string& code) { return Listed(bcat, code); });
  }
  const std::vector<taxonomy::CategoryPath>& paths = set.translated[taxonomy.known];
  return std::any_of(paths.begin(), paths.end(),
                     [&](const taxonomy::CategoryPath& path) { return AnyListed(path, bcat); });
}

bool CategoriesAllowed(const CategorySet& set, const RequestTaxonomy& taxonomy,
                       const std::vector<std::string>& acat) {
  if (acat.empty()) return true;
  if (!taxonomy.is_known()) {
    return !set.codes.empty() &&
           std::all_of(set.codes.begin(), set.codes.end(),
                       [&](const std::string& code) { return Listed(acat, code); });
  }
  const std::vector<taxonomy::CategoryPath>& paths = set.translated[taxonomy.known];
  return !paths.empty() &&
         std::all_of(paths.begin(), paths.end(),
                     [&](const taxonomy::CategoryPath& path) { return AnyListed(path, acat); });
}

void BidCategories(const CategorySet& set, const RequestTaxonomy& taxonomy,
                   std::vector<std::string>* cat, std::optional<int32_t>* cattax) {
  cat->clear();
  int32_t written = set.taxonomy;
  if (taxonomy.is_known() && !set.translated[taxonomy.known].empty()) {
    for (const taxonomy::CategoryPath& path : set.translated[taxonomy.known]) {
      cat->push_back(path.front());
    }
    written = taxonomy.cattax;
  } else {
    *cat = set.codes;
  }
  if (cat->empty() || written == taxonomy::kContent1) {
    cattax->reset();
  } else {
    *cattax = written;
  }
}

}  // namespace rtb::bidder
