#include "taxonomy/category_taxonomy.h"

#include <algorithm>
#include <utility>

#include "taxonomy/internal/tables.h"

namespace rtb::taxonomy {
namespace {

// `text` cut at every `separator`.
std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    const size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

// Calls row(columns), with at least three columns, for every row of the
// embedded table `name`.
template <typename Row>
void ForEachRow(std::string_view name, Row row) {
  for (const internal::Table& table : internal::Tables()) {
    if (table.name != name) continue;
    for (std::string_view line : Split(table.text, '\n')) {
      if (line.empty() || line.front() == '#') continue;
      std::vector<std::string_view> columns = Split(line, '\t');
      while (columns.size() < 3) columns.emplace_back();
      row(columns);
    }
  }
}

bool IsTierOne(std::string_view content1_code) {
  return content1_code.find('-') == std::string_view::npos;
}

void AddUnique(std::vector<std::string>* list, std::string_view value) {
  if (std::find(list->begin(), list->end(), value) == list->end()) list->emplace_back(value);
}

// Tier-1 codes first, each group in the order the table listed them.
void TierOneFirst(std::vector<std::string>* codes) {
  std::stable_partition(codes->begin(), codes->end(),
                        [](const std::string& code) { return IsTierOne(code); });
}

bool IsContent2x(int32_t taxonomy) {
  return taxonomy == kContent2 || taxonomy == kContent21 || taxonomy == kContent22;
}

// The Content 2.x, 3.0 and 3.1 versions, which share ids.
bool IsContentVersion(int32_t taxonomy) {
  return IsContent2x(taxonomy) || taxonomy == kContent3 || taxonomy == kContent31;
}

// The parent column as the tables hold it: a tier-1 id has none.
std::string ParentOf(std::string_view id, std::string_view parent) {
  return parent == id ? std::string() : std::string(parent);
}

}  // namespace

size_t KnownIndex(int32_t taxonomy) {
  for (size_t i = 0; i < kKnownTaxonomyCount; ++i) {
    if (kKnownTaxonomies[i] == taxonomy) return i;
  }
  return kKnownTaxonomyCount;
}

const CategoryTaxonomies& CategoryTaxonomies::Iab() {
  static const CategoryTaxonomies* const kIab = new CategoryTaxonomies();
  return *kIab;
}

CategoryTaxonomies::CategoryTaxonomies() {
  ForEachRow("content_3_0_tree", [&](const std::vector<std::string_view>& c) {
    content3_.parent[std::string(c[0])] = ParentOf(c[0], c[1]);
  });
  ForEachRow("content_3_1_tree", [&](const std::vector<std::string_view>& c) {
    content31_.parent[std::string(c[0])] = ParentOf(c[0], c[1]);
  });
  ForEachRow("ad_product_1_0_tree", [&](const std::vector<std::string_view>& c) {
    ad_product1_.parent[std::string(c[0])] = ParentOf(c[0], c[1]);
  });
  ForEachRow("ad_product_2_0_tree", [&](const std::vector<std::string_view>& c) {
    ad_product2_.parent[std::string(c[0])] = ParentOf(c[0], c[1]);
  });
  // Content 2.x: the 3.0 tree for the ids 3.0 kept, then the parents the
  // 1.0 -> 2.0 mapping gives, which win. Its parent column is empty for some
  // ids that are not tier 1, so an empty one only adds an id 3.0 lacks.
  content2_.parent = content3_.parent;
  ForEachRow("content_1_0_to_content_2_0", [&](const std::vector<std::string_view>& c) {
    content1_to_content2_[std::string(c[0])] = std::string(c[1]);
    if (!c[2].empty()) {
      content2_.parent[std::string(c[1])] = std::string(c[2]);
    } else {
      content2_.parent.try_emplace(std::string(c[1]), "");
    }
    if (!c[2].empty()) content2_.parent.try_emplace(std::string(c[2]), "");
    AddUnique(&content2_to_content1_[std::string(c[1])], c[0]);
  });
  ForEachRow("content_1_0_to_ad_product_2_0", [&](const std::vector<std::string_view>& c) {
    content1_to_ad_product2_[std::string(c[0])] = std::string(c[1]);
    AddUnique(&ad_product2_to_content1_[std::string(c[1])], c[0]);
    const size_t dash = c[0].find('-');
    content1_.parent[std::string(c[0])] =
        dash == std::string_view::npos ? "" : std::string(c[0].substr(0, dash));
  });
  ForEachRow("ad_product_1_0_to_ad_product_2_0", [&](const std::vector<std::string_view>& c) {
    AddUnique(&ad_product1_to_ad_product2_[std::string(c[0])], c[1]);
    AddUnique(&ad_product2_to_ad_product1_[std::string(c[1])], c[0]);
  });
  for (auto& [id, codes] : content2_to_content1_) TierOneFirst(&codes);
  for (auto& [id, codes] : ad_product2_to_content1_) TierOneFirst(&codes);
}

const CategoryTaxonomies::Tree& CategoryTaxonomies::TreeOf(int32_t taxonomy) const {
  switch (taxonomy) {
    case kContent1:
      return content1_;
    case kContent3:
      return content3_;
    case kContent31:
      return content31_;
    case kAdProduct1:
      return ad_product1_;
    case kAdProduct2:
      return ad_product2_;
    default:
      return content2_;
  }
}

bool CategoryTaxonomies::Contains(int32_t taxonomy, std::string_view code) const {
  return Known(taxonomy) && TreeOf(taxonomy).parent.contains(std::string(code));
}

CategoryPath CategoryTaxonomies::PathOf(int32_t taxonomy, std::string_view code) const {
  CategoryPath path{std::string(code)};
  if (!Known(taxonomy)) return path;
  const Tree& tree = TreeOf(taxonomy);
  // The trees are shallow (four tiers); the bound guards a cycle in data.
  for (int depth = 0; depth < 8; ++depth) {
    auto it = tree.parent.find(path.back());
    if (it == tree.parent.end() || it->second.empty()) break;
    path.push_back(it->second);
  }
  return path;
}

std::vector<std::string> CategoryTaxonomies::NearestMapped(int32_t taxonomy, std::string_view code,
                                                           const CodeMap& mapping) const {
  // Nearest ancestor: for bcat a broader category blocks more, for acat it
  // allows more (data README).
  for (const std::string& step : PathOf(taxonomy, code)) {
    if (auto it = mapping.find(step); it != mapping.end()) return it->second;
  }
  return {};
}

std::vector<std::string> CategoryTaxonomies::ToContent1(int32_t from, std::string_view code) const {
  if (from == kAdProduct1) {
    // No public mapping ties Ad Product 1.0 to Content 1.0: through 2.0.
    std::vector<std::string> codes;
    for (const std::string& ad_product2 :
         NearestMapped(kAdProduct1, code, ad_product1_to_ad_product2_)) {
      for (const std::string& content1 : ToContent1(kAdProduct2, ad_product2)) {
        AddUnique(&codes, content1);
      }
    }
    return codes;
  }
  if (from == kContent1) {
    return content1_.parent.contains(std::string(code))
               ? std::vector<std::string>{std::string(code)}
               : std::vector<std::string>{};
  }
  // The code, else its nearest ancestor some Content 1.0 code maps to.
  return NearestMapped(from, code,
                       from == kAdProduct2 ? ad_product2_to_content1_ : content2_to_content1_);
}

std::vector<std::string> CategoryTaxonomies::FromContent1(std::string_view code, int32_t to) const {
  if (to == kContent1) return {std::string(code)};
  if (to == kAdProduct1) {
    std::vector<std::string> codes;
    for (const std::string& ad_product2 : FromContent1(code, kAdProduct2)) {
      for (const std::string& ad_product1 :
           NearestMapped(kAdProduct2, ad_product2, ad_product2_to_ad_product1_)) {
        AddUnique(&codes, ad_product1);
      }
    }
    return codes;
  }
  const auto& forward = to == kAdProduct2 ? content1_to_ad_product2_ : content1_to_content2_;
  auto it = forward.find(std::string(code));
  if (it == forward.end()) return {};
  // 3.0 and 3.1 hold the 2.0 ids they kept.
  if ((to == kContent3 || to == kContent31) && !TreeOf(to).parent.contains(it->second)) return {};
  return {it->second};
}

std::vector<CategoryPath> CategoryTaxonomies::Translate(int32_t from, std::string_view code,
                                                        int32_t to) const {
  if (from == to) {
    if (Known(from) && !Contains(from, code)) return {};
    return {PathOf(from, code)};
  }
  if (!Known(from) || !Known(to) || !Contains(from, code)) return {};
  std::vector<std::string> codes;
  if (IsContentVersion(from) && IsContentVersion(to) && Contains(to, code)) {
    codes.emplace_back(code);
  } else if (from == kAdProduct1 && to == kAdProduct2) {
    codes = NearestMapped(kAdProduct1, code, ad_product1_to_ad_product2_);
  } else if (from == kAdProduct2 && to == kAdProduct1) {
    codes = NearestMapped(kAdProduct2, code, ad_product2_to_ad_product1_);
  } else {
    for (const std::string& content1 : ToContent1(from, code)) {
      for (std::string& translated : FromContent1(content1, to)) AddUnique(&codes, translated);
    }
  }
  std::vector<CategoryPath> paths;
  paths.reserve(codes.size());
  for (const std::string& translated : codes) paths.push_back(PathOf(to, translated));
  return paths;
}

}  // namespace rtb::taxonomy
