#include "storage/types.h"

#include <algorithm>
#include <cstdlib>

#include "storage/internal/heap_bytes.h"
#include "storage/key_bytes.h"

namespace rtb::storage {

const FamilyOptions* TableSchema::Family(std::string_view family) const {
  for (const FamilyOptions& f : families) {
    if (f.name == family) return &f;
  }
  return nullptr;
}

void PackedCells::Builder::Add(const CellView& cell) {
  if (!cells_.has_value()) return;
  PackedCells& packed = *cells_;
  const size_t offset = packed.text_.size();
  if (cell.qualifier.size() + cell.value.size() > std::numeric_limits<uint32_t>::max() - offset) {
    cells_.reset();
    return;
  }
  uint32_t family = 0;
  while (family < packed.families_.size() && packed.families_[family] != cell.family) ++family;
  if (family == packed.families_.size()) packed.families_.emplace_back(cell.family);
  packed.text_.append(cell.qualifier).append(cell.value);
  packed.entries_.push_back(Entry{cell.timestamp, static_cast<uint32_t>(offset),
                                  static_cast<uint32_t>(cell.qualifier.size()),
                                  static_cast<uint32_t>(cell.value.size()), family});
}

std::optional<PackedCells> PackedCells::Builder::Build() && {
  if (cells_.has_value()) {
    cells_->text_.shrink_to_fit();
    cells_->entries_.shrink_to_fit();
  }
  return std::move(cells_);
}

std::optional<PackedCells> PackedCells::Of(const CellList& cells) {
  Builder packer;
  for (auto it = cells.begin(), end = cells.end(); it != end; ++it) packer.Add(it.view());
  return std::move(packer).Build();
}

CellView PackedCells::operator[](size_t index) const {
  const Entry& e = entries_[index];
  const std::string_view text(text_);
  return CellView{families_[e.family], text.substr(e.offset, e.qualifier_size), e.timestamp,
                  text.substr(e.offset + e.qualifier_size, e.value_size)};
}

size_t PackedCells::bytes() const {
  using internal::HeapBytes;
  size_t n = sizeof(PackedCells) + HeapBytes(text_) + entries_.capacity() * sizeof(Entry);
  for (const std::string& f : families_) n += HeapBytes(f);
  if (families_.size() > kInlineFamilies) n += families_.capacity() * sizeof(std::string);
  return n;
}

const std::vector<Cell>& CellList::Unpacked::cells() {
  absl::call_once(once_, [this] {
    cells_.reserve(packed->size());
    for (size_t i = 0; i < packed->size(); ++i) {
      const CellView v = (*packed)[i];
      cells_.emplace_back(v.family, v.qualifier, v.timestamp, v.value);
    }
  });
  return cells_;
}

CellView CellList::Segment::view(size_t offset) const {
  if (packed != nullptr) return (*packed->packed)[offset];
  const Cell& c = (*cells)[offset];
  return CellView{c.family, c.qualifier, c.timestamp, c.value};
}

CellList::CellList(std::vector<Cell> cells) {
  if (cells.empty()) return;
  segments_.push_back(
      Segment{std::make_shared<std::vector<Cell>>(std::move(cells)), nullptr, true});
}

size_t CellList::size() const {
  size_t n = 0;
  for (const Segment& s : segments_) n += s.size();
  return n;
}

const Cell& CellList::operator[](size_t index) const {
  for (const Segment& s : segments_) {
    if (index < s.size()) return s.at(index);
    index -= s.size();
  }
  std::abort();  // out of range
}

CellView CellList::view(size_t index) const {
  for (const Segment& s : segments_) {
    if (index < s.size()) return s.view(index);
    index -= s.size();
  }
  std::abort();  // out of range
}

CellList::const_iterator CellList::begin() const { return const_iterator(this, 0); }
CellList::const_iterator CellList::end() const { return const_iterator(this, size()); }

void CellList::AppendShared(const CellList& other) {
  for (const Segment& s : other.segments_) {
    if (s.size() != 0) segments_.push_back(Segment{s.cells, s.packed, false});
  }
}

void CellList::AppendShared(std::shared_ptr<const PackedCells> cells) {
  if (cells == nullptr || cells->empty()) return;
  segments_.push_back(Segment{nullptr, std::make_shared<Unpacked>(std::move(cells)), false});
}

void CellList::clear() { segments_.clear(); }

std::vector<Cell> CellList::ToVector() const { return std::vector<Cell>(begin(), end()); }

std::vector<Cell>& CellList::WritableTail() {
  // A copy of this list holds the same segment: use_count tells, since only
  // lists (never their readers) hold segment pointers.
  if (segments_.empty() || !segments_.back().owned || segments_.back().cells.use_count() != 1) {
    segments_.push_back(Segment{std::make_shared<std::vector<Cell>>(), nullptr, true});
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
  while (segment_ < segments.size() && offset_ >= segments[segment_].size()) {
    offset_ -= segments[segment_].size();
    ++segment_;
  }
}

std::optional<std::string_view> RowResult::Value(std::string_view family,
                                                 std::string_view qualifier) const {
  // Cells are ordered newest first within a column, so the first match is the latest.
  for (auto it = cells.begin(), end = cells.end(); it != end; ++it) {
    const CellView c = it.view();
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
