#include "storage/types.h"

namespace rtb::storage {

const FamilyOptions* TableSchema::Family(std::string_view family) const {
  for (const FamilyOptions& f : families) {
    if (f.name == family) return &f;
  }
  return nullptr;
}

std::optional<std::string_view> RowResult::Value(std::string_view family,
                                                 std::string_view qualifier) const {
  // Cells are ordered newest first within a column, so the first match is the latest.
  for (const Cell& c : cells) {
    if (c.family == family && c.qualifier == qualifier) return c.value;
  }
  return std::nullopt;
}

std::optional<int64_t> RowResult::Counter(std::string_view family,
                                          std::string_view qualifier) const {
  std::optional<std::string_view> v = Value(family, qualifier);
  if (!v) return std::nullopt;
  return DecodeCounter(*v);
}

std::string PrefixSuccessor(std::string_view prefix) {
  std::string s(prefix);
  while (!s.empty()) {
    unsigned char last = static_cast<unsigned char>(s.back());
    if (last != 0xff) {
      s.back() = static_cast<char>(last + 1);
      return s;
    }
    s.pop_back();
  }
  return s;
}

std::string EncodeCounter(int64_t value) {
  std::string out(8, '\0');
  uint64_t u = static_cast<uint64_t>(value);
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<char>(u & 0xff);
    u >>= 8;
  }
  return out;
}

std::optional<int64_t> DecodeCounter(std::string_view bytes) {
  if (bytes.size() != 8) return std::nullopt;
  uint64_t u = 0;
  for (char c : bytes) u = (u << 8) | static_cast<unsigned char>(c);
  return static_cast<int64_t>(u);
}

}  // namespace rtb::storage
