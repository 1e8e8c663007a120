#include "storage/hbase/row_range_filter.h"

#include <cstdint>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "storage/hbase/absl_compat.h"

namespace rtb::storage::hbase {
namespace {

// Protobuf wire types.
constexpr uint32_t kVarint = 0;
constexpr uint32_t kLengthDelimited = 2;

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void AppendTag(uint32_t field, uint32_t wire_type, std::string* out) {
  AppendVarint((field << 3) | wire_type, out);
}

void AppendBytes(uint32_t field, std::string_view bytes, std::string* out) {
  AppendTag(field, kLengthDelimited, out);
  AppendVarint(bytes.size(), out);
  out->append(bytes);
}

void AppendBool(uint32_t field, bool value, std::string* out) {
  AppendTag(field, kVarint, out);
  out->push_back(value ? 1 : 0);
}

constexpr uint32_t kFixed64 = 1;
constexpr uint32_t kFixed32 = 5;

// Reads protobuf fields one at a time; any malformed input ends in ok() false.
class FieldReader {
 public:
  explicit FieldReader(std::string_view bytes) : rest_(bytes) {}

  // Moves to the next field; false at the end or on malformed input.
  bool Next() {
    if (rest_.empty() || !ok_) return false;
    uint64_t tag = 0;
    if (!ReadVarint(&tag)) return Fail();
    field_ = static_cast<uint32_t>(tag >> 3);
    wire_type_ = static_cast<uint32_t>(tag & 7);
    switch (wire_type_) {
      case kVarint:
        if (!ReadVarint(&varint_)) return Fail();
        return true;
      case kLengthDelimited: {
        uint64_t size = 0;
        if (!ReadVarint(&size) || size > rest_.size()) return Fail();
        bytes_ = rest_.substr(0, size);
        rest_.remove_prefix(size);
        return true;
      }
      case kFixed64:
        return Skip(8);
      case kFixed32:
        return Skip(4);
      default:
        return Fail();
    }
  }

  bool ok() const { return ok_; }
  uint32_t field() const { return field_; }
  bool is_bytes() const { return wire_type_ == kLengthDelimited; }
  bool is_varint() const { return wire_type_ == kVarint; }
  std::string_view bytes() const { return bytes_; }
  uint64_t varint() const { return varint_; }

 private:
  bool ReadVarint(uint64_t* out) {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (rest_.empty()) return false;
      const auto byte = static_cast<unsigned char>(rest_.front());
      rest_.remove_prefix(1);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        *out = value;
        return true;
      }
    }
    return false;
  }
  bool Skip(size_t n) {
    if (rest_.size() < n) return Fail();
    rest_.remove_prefix(n);
    return true;
  }
  bool Fail() {
    ok_ = false;
    return false;
  }

  std::string_view rest_;
  bool ok_ = true;
  uint32_t field_ = 0;
  uint32_t wire_type_ = 0;
  std::string_view bytes_;
  uint64_t varint_ = 0;
};

absl::Status Malformed(std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed filter bytes: ", AsAbsl(what), " is not a valid protobuf message"));
}

absl::StatusOr<RowRange> DecodeRowRange(std::string_view bytes) {
  RowRange range;
  // proto2 defaults: absent booleans are false, absent rows empty.
  range.start_inclusive = false;
  range.stop_inclusive = false;
  FieldReader r(bytes);
  while (r.Next()) {
    if (r.field() == 1 && r.is_bytes()) range.start = std::string(r.bytes());
    if (r.field() == 2 && r.is_varint()) range.start_inclusive = r.varint() != 0;
    if (r.field() == 3 && r.is_bytes()) range.stop = std::string(r.bytes());
    if (r.field() == 4 && r.is_varint()) range.stop_inclusive = r.varint() != 0;
  }
  if (!r.ok()) return Malformed("RowRange");
  return range;
}

}  // namespace

std::string EncodePrefixFilter(std::string_view prefix) {
  std::string filter;
  AppendBytes(1, prefix, &filter);
  std::string out;
  AppendBytes(1, kPrefixFilterClass, &out);
  AppendBytes(2, filter, &out);
  return out;
}

absl::StatusOr<DecodedRowFilter> DecodeRowFilter(std::string_view bytes) {
  std::string_view name, serialized;
  FieldReader outer(bytes);
  while (outer.Next()) {
    if (outer.field() == 1 && outer.is_bytes()) name = outer.bytes();
    if (outer.field() == 2 && outer.is_bytes()) serialized = outer.bytes();
  }
  if (!outer.ok()) return Malformed("Filter");
  DecodedRowFilter out;
  if (name == kMultiRowRangeFilterClass) {
    FieldReader r(serialized);
    while (r.Next()) {
      if (r.field() != 1 || !r.is_bytes()) continue;
      absl::StatusOr<RowRange> range = DecodeRowRange(r.bytes());
      if (!range.ok()) return range.status();
      out.ranges.push_back(*std::move(range));
    }
    if (!r.ok()) return Malformed("MultiRowRangeFilter");
    if (out.ranges.empty()) {
      return absl::InvalidArgumentError("MultiRowRangeFilter has no row ranges");
    }
    return out;
  }
  if (name == kPrefixFilterClass) {
    FieldReader r(serialized);
    out.prefix.emplace();
    while (r.Next()) {
      if (r.field() == 1 && r.is_bytes()) out.prefix = std::string(r.bytes());
    }
    if (!r.ok()) return Malformed("PrefixFilter");
    return out;
  }
  if (name.empty()) return absl::InvalidArgumentError("filter bytes name no filter class");
  return absl::UnimplementedError(
      absl::StrCat("filter ", AsAbsl(name),
                   " is not supported here (only MultiRowRangeFilter and PrefixFilter)"));
}

std::string EncodeMultiRowRangeFilter(std::span<const RowRange> ranges) {
  std::string filter;
  for (const RowRange& r : ranges) {
    std::string range;
    AppendBytes(1, r.start, &range);
    AppendBool(2, r.start_inclusive, &range);
    AppendBytes(3, r.stop, &range);
    AppendBool(4, r.stop_inclusive, &range);
    AppendBytes(1, range, &filter);
  }
  std::string out;
  AppendBytes(1, kMultiRowRangeFilterClass, &out);
  AppendBytes(2, filter, &out);
  return out;
}

std::vector<RowRange> RangesThatCanHoldRows(std::span<const RowRange> ranges) {
  std::vector<RowRange> out;
  for (const RowRange& r : ranges) {
    bool holds;
    if (r.stop.empty()) {
      holds = true;  // to the end of the table
    } else if (r.start < r.stop) {
      // (a, a\0) holds nothing either: no key lies strictly between them.
      bool adjacent = !r.start_inclusive && !r.stop_inclusive &&
                      r.stop.size() == r.start.size() + 1 && r.stop.back() == '\0' &&
                      std::string_view(r.stop).substr(0, r.start.size()) == r.start;
      holds = !adjacent;
    } else if (r.start == r.stop) {
      holds = r.start_inclusive && r.stop_inclusive;
    } else {
      holds = false;
    }
    if (holds) out.push_back(r);
  }
  return out;
}

}  // namespace rtb::storage::hbase
