#include "config/internal/media_markup.h"

#include <array>
#include <string>

namespace rtb::config::internal {
namespace {

struct Subtype {
  std::string_view version;
  int inline_ad;
  int wrapper;
};

constexpr std::array<Subtype, 6> kVast = {{
    {"1.0", 1, 4},
    {"2.0", 2, 5},
    {"3.0", 3, 6},
    {"4.0", 7, 8},
    {"4.1", 11, 12},
    {"4.2", 13, 14},
}};

// The value of attribute `name` of the tag starting at `tag` (up to its '>').
std::string_view Attribute(std::string_view markup, size_t tag, std::string_view name) {
  const size_t end = markup.find('>', tag);
  const std::string_view element =
      markup.substr(tag, end == std::string_view::npos ? end : end - tag);
  for (size_t at = element.find(name); at != std::string_view::npos;
       at = element.find(name, at + 1)) {
    size_t i = at + name.size();
    while (i < element.size() && element[i] == ' ') ++i;
    if (i >= element.size() || element[i] != '=') continue;
    ++i;
    while (i < element.size() && element[i] == ' ') ++i;
    if (i >= element.size() || (element[i] != '"' && element[i] != '\'')) continue;
    const char quote = element[i];
    const size_t close = element.find(quote, i + 1);
    if (close == std::string_view::npos) return {};
    return element.substr(i + 1, close - i - 1);
  }
  return {};
}

// "4" reads as "4.0"; "4.1.2" as "4.1".
std::string MajorMinor(std::string_view version) {
  std::string out(version.substr(0, version.find('.', version.find('.') + 1)));
  if (out.find('.') == std::string::npos) out += ".0";
  return out;
}

}  // namespace

int MarkupProtocol(std::string_view markup) {
  const bool wrapper = markup.find("<Wrapper") != std::string_view::npos;
  if (const size_t tag = markup.find("<VAST"); tag != std::string_view::npos) {
    const std::string version = MajorMinor(Attribute(markup, tag, "version"));
    for (const Subtype& subtype : kVast) {
      if (subtype.version == version) return wrapper ? subtype.wrapper : subtype.inline_ad;
    }
    return 0;
  }
  if (const size_t tag = markup.find("<DAAST"); tag != std::string_view::npos) {
    return MajorMinor(Attribute(markup, tag, "version")) == "1.0" ? (wrapper ? 10 : 9) : 0;
  }
  return 0;
}

}  // namespace rtb::config::internal
