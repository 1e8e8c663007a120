#include "storage/types.h"

#include <algorithm>
#include <cstdlib>

#include "storage/key_bytes.h"

namespace rtb::storage {

const FamilyOptions* TableSchema::Family(std::string_view family) const {
  for (const FamilyOptions& f : families) {
    if (f.name == family) return &f;
  }
  return nullptr;
}

CellList::CellList(std::vector<Cell> cells) {
  if (cells.empty()) return;
  segments_.push_back(Segment{std::make_shared<std::vector<Cell>>(std::move(cells)), true});
}

size_t CellList::size() const {
  size_t n = 0;
  for (const Segment& s : segments_) n += s.cells->size();
  return n;
}

const Cell& CellList::operator[](size_t index) const {
  for (const Segment& s : segments_) {
    if (index < s.cells->size()) return (*s.cells)[index];
    index -= s.cells->size();
  }
  std::abort();  // out of range
}

CellList::const_iterator CellList::begin() const { return const_iterator(this, 0); }
CellList::const_iterator CellList::end() const { return const_iterator(this, size()); }

void CellList::AppendShared(const CellList& other) {
  for (const Segment& s : other.segments_) {
    if (!s.cells->empty()) segments_.push_back(Segment{s.cells, false});
  }
}

void CellList::clear() { segments_.clear(); }

std::vector<Cell> CellList::ToVector() const { return std::vector<Cell>(begin(), end()); }

std::vector<Cell>& CellList::WritableTail() {
  // A copy of this list holds the same segment: use_count tells, since only
  // lists (never their readers) hold segment pointers.
  if (segments_.empty() || !segments_.back().owned || segments_.back().cells.use_count() != 1) {
    segments_.push_back(Segment{std::make_shared<std::vector<Cell>>(), true});
  }
  // Allocated non-const by this list, so writing through it is defined.
  return const_cast<std::vector<Cell>&>(*segments_.back().cells);
}

bool operator==(const CellList& a, const CellList& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

void CellList::const_iterator::Seek(size_t index) {
  index_ = index;
  segment_ = 0;
  offset_ = index;
  const auto& segments = list_->segments_;
  while (segment_ < segments.size() && offset_ >= segments[segment_].cells->size()) {
    offset_ -= segments[segment_].cells->size();
    ++segment_;
  }
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
  std::string out;
  AppendBigEndian64(static_cast<uint64_t>(value), &out);
  return out;
}

std::optional<int64_t> DecodeCounter(std::string_view bytes) {
  if (bytes.size() != 8) return std::nullopt;
  return static_cast<int64_t>(ReadBigEndian64(bytes));
}

}  // namespace rtb::storage
