#include "storage/hbase/wire.h"

#include <array>

#include "absl/strings/str_cat.h"
#include "storage/hbase/absl_compat.h"

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

constexpr int kMaxDepth = 64;
constexpr uint32_t kVersionMask = 0xffff0000;
constexpr uint32_t kVersion1 = 0x80010000;

// Walks a message without building it. `need_more_` is set when the data
// ends before the message does.
class MessageWalker {
 public:
  MessageWalker(std::string_view data, size_t max_bytes) : data_(data), max_bytes_(max_bytes) {}

  absl::StatusOr<size_t> Walk() {
    uint32_t first;
    if (!ReadU32(&first)) return Result();
    if (first & 0x80000000u) {
      if ((first & kVersionMask) != kVersion1) {
        Bad("unknown protocol version");
        return Result();
      }
      if (!SkipString()) return Result();  // method name
    } else {
      // Old non-strict form: name length, name, type byte.
      if (!Skip(first) || !Skip(1)) return Result();
    }
    if (!Skip(4)) return Result();  // sequence id
    if (!SkipValue(kStruct, 0)) return Result();
    return Result();
  }

 private:
  absl::StatusOr<size_t> Result() const {
    if (!error_.ok()) return error_;
    if (need_more_) return size_t{0};
    return pos_;
  }

  void Bad(std::string_view why) {
    if (!error_.ok()) return;
    error_ = absl::InternalError(absl::StrCat("malformed reply from hbase gateway: ", AsAbsl(why)));
  }

  bool Skip(uint64_t n) {
    if (!error_.ok()) return false;
    if (pos_ + n > max_bytes_) {
      Bad(absl::StrCat("reply exceeds max_message_bytes (", max_bytes_, ")"));
      return false;
    }
    if (pos_ + n > data_.size()) {
      need_more_ = true;
      return false;
    }
    pos_ += n;
    return true;
  }

  bool ReadU8(uint8_t* out) {
    if (pos_ + 1 > data_.size()) {
      need_more_ = true;
      return false;
    }
    *out = static_cast<uint8_t>(data_[pos_++]);
    return true;
  }

  bool ReadU32(uint32_t* out) {
    if (pos_ + 4 > data_.size()) {
      need_more_ = true;
      return false;
    }
    *out = ReadFrameHeader(reinterpret_cast<const uint8_t*>(data_.data() + pos_));
    pos_ += 4;
    return true;
  }

  bool ReadSize(int32_t* out) {
    uint32_t raw;
    if (!ReadU32(&raw)) return false;
    *out = static_cast<int32_t>(raw);
    if (*out < 0) {
      Bad("negative size");
      return false;
    }
    return true;
  }

  bool SkipString() {
    int32_t size;
    return ReadSize(&size) && Skip(static_cast<uint64_t>(size));
  }

  static int FixedSize(uint8_t type) {
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

  bool SkipValue(uint8_t type, int depth) {
    if (depth > kMaxDepth) {
      Bad("nesting too deep");
      return false;
    }
    if (int fixed = FixedSize(type); fixed > 0) return Skip(fixed);
    switch (type) {
      case kString:
        return SkipString();
      case kStruct:
        while (true) {
          uint8_t field_type;
          if (!ReadU8(&field_type)) return false;
          if (field_type == kStop) return true;
          if (!Skip(2) || !SkipValue(field_type, depth + 1)) return false;
        }
      case kMap: {
        uint8_t key_type, value_type;
        int32_t count;
        if (!ReadU8(&key_type) || !ReadU8(&value_type) || !ReadSize(&count)) return false;
        return SkipElements(key_type, value_type, count, depth);
      }
      case kSet:
      case kList: {
        uint8_t element_type;
        int32_t count;
        if (!ReadU8(&element_type) || !ReadSize(&count)) return false;
        return SkipElements(element_type, kStop, count, depth);
      }
      default:
        Bad(absl::StrCat("unknown field type ", type));
        return false;
    }
  }

  // `second` is kStop for lists and sets.
  bool SkipElements(uint8_t first, uint8_t second, int32_t count, int depth) {
    int fixed_first = FixedSize(first);
    int fixed_second = second == kStop ? 0 : FixedSize(second);
    if (fixed_first > 0 && (second == kStop || fixed_second > 0)) {
      return Skip(static_cast<uint64_t>(count) * (fixed_first + fixed_second));
    }
    for (int32_t i = 0; i < count; ++i) {
      if (!SkipValue(first, depth + 1)) return false;
      if (second != kStop && !SkipValue(second, depth + 1)) return false;
    }
    return true;
  }

  std::string_view data_;
  size_t max_bytes_;
  size_t pos_ = 0;
  bool need_more_ = false;
  absl::Status error_;
};

}  // namespace

absl::StatusOr<size_t> CompleteMessageSize(std::string_view data, size_t max_bytes) {
  return MessageWalker(data, max_bytes).Walk();
}

std::array<uint8_t, 4> FrameHeader(uint32_t size) {
  return {static_cast<uint8_t>(size >> 24), static_cast<uint8_t>(size >> 16),
          static_cast<uint8_t>(size >> 8), static_cast<uint8_t>(size)};
}

uint32_t ReadFrameHeader(const uint8_t* header) {
  return (uint32_t{header[0]} << 24) | (uint32_t{header[1]} << 16) | (uint32_t{header[2]} << 8) |
         uint32_t{header[3]};
}

}  // namespace rtb::storage::hbase
