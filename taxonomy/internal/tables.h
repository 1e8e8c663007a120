// The tables of taxonomy/data as the build embeds them (embed_tables.cmake):
// one entry per .tsv file, named after it without the extension.
#ifndef RTB_TAXONOMY_INTERNAL_TABLES_H_
#define RTB_TAXONOMY_INTERNAL_TABLES_H_

#include <span>
#include <string_view>

namespace rtb::taxonomy::internal {

struct Table {
  std::string_view name;  // e.g. "content_3_0_tree"
  std::string_view text;  // tab-separated rows; '#' starts a comment line
};

std::span<const Table> Tables();

}  // namespace rtb::taxonomy::internal

#endif  // RTB_TAXONOMY_INTERNAL_TABLES_H_
