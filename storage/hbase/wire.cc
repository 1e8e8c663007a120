#include "storage/hbase/wire.h"

#include <algorithm>
#include <array>
#include <optional>

#include "absl/strings/str_cat.h"
#include "storage/hbase/absl_compat.h"
#include "storage/key_bytes.h"

namespace rtb::storage::hbase {
namespace {

// Binary protocol type ids (thrift/protocol/TProtocol.h).
enum : uint8_t {
  kStop = 0,
  kBool = 2,
  kByte = 3,
  kDouble = 4,
  kI16 = 6,
  kI32 = 8,
  kI64 = 10,
  kString = 11,
  kStruct = 12,
  kMap = 13,
  kSet = 14,
  kList = 15,
  kUuid = 16,
};

constexpr size_t kMaxDepth = 64;
constexpr uint32_t kVersionMask = 0xffff0000;
constexpr uint32_t kVersion1 = 0x80010000;

int FixedSize(uint8_t type) {
  switch (type) {
    case kBool:
    case kByte:
      return 1;
    case kI16:
      return 2;
    case kI32:
      return 4;
    case kDouble:
    case kI64:
      return 8;
    case kUuid:
      return 16;
    default:
      return 0;
  }
}

uint32_t U32At(std::string_view data, size_t pos) {
  return ReadFrameHeader(reinterpret_cast<const uint8_t*>(data.data() + pos));
}

}  // namespace

MessageScanner::Step MessageScanner::Fail(std::string reason) {
  error_ = absl::InternalError(absl::StrCat("malformed reply from hbase gateway: ", reason));
  return Step::kError;
}

// The message header: strict "version|type, name, seqid" or the old
// "name, type, seqid". Scanned in one go once all of it is there.
MessageScanner::Step MessageScanner::ScanHeader(std::string_view data) {
  size_t p = 0;
  if (data.size() < 4) return Step::kNeedMore;
  uint32_t first = U32At(data, 0);
  p = 4;
  if (first & 0x80000000u) {
    if ((first & kVersionMask) != kVersion1) return Fail("unknown protocol version");
    if (data.size() < p + 4) return Step::kNeedMore;
    uint32_t name = U32At(data, p);
    if (name > max_bytes_) return Fail("method name too long");
    p += 4 + name;
  } else {
    if (first > max_bytes_) return Fail("method name too long");
    p += first + 1;
  }
  p += 4;  // sequence id
  if (data.size() < p) return Step::kNeedMore;
  pos_ = p;
  header_done_ = true;
  stack_.push_back(Frame{kStruct});
  return Step::kProgress;
}

// One value of the innermost open struct, list or map, or its end. Either
// consumes it whole or changes nothing and asks for more bytes.
MessageScanner::Step MessageScanner::ScanValue(std::string_view data) {
  Frame& f = stack_.back();
  size_t p = pos_;
  auto available = [&](size_t n) { return data.size() >= p + n; };
  uint8_t type;
  if (f.kind == kStruct) {
    if (!available(1)) return Step::kNeedMore;
    type = static_cast<uint8_t>(data[p]);
    if (type == kStop) {
      pos_ = p + 1;
      stack_.pop_back();
      return stack_.empty() ? Step::kDone : Step::kProgress;
    }
    if (!available(3)) return Step::kNeedMore;
    p += 3;  // type and field id
  } else {
    if (f.remaining == 0) {
      stack_.pop_back();
      return Step::kProgress;
    }
    type = (f.kind == kMap && f.value_next) ? f.second : f.first;
    // A run of fixed-size list elements goes in one step.
    if (f.kind != kMap) {
      if (int fixed = FixedSize(type); fixed > 0) {
        size_t n = std::min<size_t>(f.remaining, (data.size() - p) / fixed);
        if (n == 0) return Step::kNeedMore;
        pos_ = p + n * fixed;
        f.remaining -= static_cast<int32_t>(n);
        return Step::kProgress;
      }
    }
  }
  std::optional<Frame> child;
  if (Step step = ScanValueStart(data, type, &p, &child); step != Step::kProgress) return step;
  pos_ = p;
  if (f.kind == kList) {
    --f.remaining;
  } else if (f.kind == kMap) {
    if (f.value_next) --f.remaining;
    f.value_next = !f.value_next;
  }
  if (child) {
    if (stack_.size() >= kMaxDepth) return Fail("nesting too deep");
    stack_.push_back(*child);
  }
  return Step::kProgress;
}

// A value of `type` at *p: a fixed-size value or a string is skipped whole;
// a struct, list, set or map has its header skipped and becomes `child`, the
// frame its contents are scanned in. kProgress when it is all there.
MessageScanner::Step MessageScanner::ScanValueStart(std::string_view data, uint8_t type, size_t* p,
                                                    std::optional<Frame>* child) {
  auto available = [&](size_t n) { return data.size() >= *p + n; };
  if (int fixed = FixedSize(type); fixed > 0) {
    if (!available(fixed)) return Step::kNeedMore;
    *p += fixed;
    return Step::kProgress;
  }
  switch (type) {
    case kString: {
      if (!available(4)) return Step::kNeedMore;
      uint32_t size = U32At(data, *p);
      if (size > 0x7fffffffu) return Fail("negative size");
      if (*p + 4 + size > max_bytes_) {
        return Fail(absl::StrCat("reply exceeds max_message_bytes (", max_bytes_, ")"));
      }
      if (!available(4 + size)) return Step::kNeedMore;
      *p += 4 + size;
      return Step::kProgress;
    }
    case kStruct:
      *child = Frame{kStruct};
      return Step::kProgress;
    case kSet:
    case kList: {
      if (!available(5)) return Step::kNeedMore;
      uint32_t count = U32At(data, *p + 1);
      if (count > 0x7fffffffu) return Fail("negative size");
      *child = Frame{kList, static_cast<uint8_t>(data[*p]), 0, static_cast<int32_t>(count)};
      *p += 5;
      return Step::kProgress;
    }
    case kMap: {
      if (!available(6)) return Step::kNeedMore;
      uint32_t count = U32At(data, *p + 2);
      if (count > 0x7fffffffu) return Fail("negative size");
      *child = Frame{kMap, static_cast<uint8_t>(data[*p]), static_cast<uint8_t>(data[*p + 1]),
                     static_cast<int32_t>(count)};
      *p += 6;
      return Step::kProgress;
    }
    default:
      return Fail(absl::StrCat("unknown field type ", type));
  }
}

absl::StatusOr<size_t> MessageScanner::Scan(std::string_view data) {
  if (!error_.ok()) return error_;
  if (!header_done_) {
    Step s = ScanHeader(data);
    if (s == Step::kError) return error_;
    if (s == Step::kNeedMore) return size_t{0};
  }
  while (!stack_.empty()) {
    Step s = ScanValue(data);
    if (pos_ > max_bytes_) {
      Fail(absl::StrCat("reply exceeds max_message_bytes (", max_bytes_, ")"));
      return error_;
    }
    if (s == Step::kError) return error_;
    if (s == Step::kNeedMore) return size_t{0};
    if (s == Step::kDone) break;
  }
  return pos_;
}

absl::StatusOr<size_t> CompleteMessageSize(std::string_view data, size_t max_bytes) {
  return MessageScanner(max_bytes).Scan(data);
}

std::array<uint8_t, 4> FrameHeader(uint32_t size) {
  std::array<uint8_t, 4> header;
  StoreBigEndian(size, 4, reinterpret_cast<char*>(header.data()));
  return header;
}

uint32_t ReadFrameHeader(const uint8_t* header) {
  return ReadBigEndian32(std::string_view(reinterpret_cast<const char*>(header), 4));
}

}  // namespace rtb::storage::hbase
