#include "storage/hbase/row_range_filter.h"

#include <cstdint>
#include <string_view>

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

}  // namespace

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
