#include "storage/internal/cell_key.h"

#include "storage/key_bytes.h"

namespace rtb::storage::internal {
namespace {

constexpr char kEscape = '\x00';
constexpr char kEscapedZero = '\xff';
constexpr char kTerminator = '\x01';
constexpr uint8_t kHasTtl = 1;

void AppendEscaped(std::string_view bytes, std::string* out) {
  for (char c : bytes) {
    out->push_back(c);
    if (c == kEscape) out->push_back(kEscapedZero);
  }
  out->push_back(kEscape);
  out->push_back(kTerminator);
}

// Reads one escaped field starting at `*pos`; leaves `*pos` after its
// terminator. Returns false on malformed input.
bool ReadEscaped(std::string_view key, size_t* pos, std::string* out) {
  size_t i = *pos;
  while (i < key.size()) {
    char c = key[i];
    if (c != kEscape) {
      if (out) out->push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= key.size()) return false;
    char next = key[i + 1];
    if (next == kTerminator) {
      *pos = i + 2;
      return true;
    }
    if (next != kEscapedZero) return false;
    if (out) out->push_back(kEscape);
    i += 2;
  }
  return false;
}

// The type byte stores 0xff - HBase's code; false for codes HBase does not define.
bool ToCellType(uint8_t code, CellType* type) {
  switch (code) {
    case 4:
    case 8:
    case 10:
    case 12:
    case 14:
      *type = static_cast<CellType>(code);
      return true;
    default:
      return false;
  }
}

}  // namespace

void AppendRowPrefix(std::string_view row, std::string* out) { AppendEscaped(row, out); }

std::string RowPrefix(std::string_view row) {
  std::string out;
  out.reserve(row.size() + 2);
  AppendEscaped(row, &out);
  return out;
}

std::string ColumnPrefix(std::string_view row, std::string_view qualifier) {
  std::string out;
  out.reserve(row.size() + qualifier.size() + 4);
  AppendEscaped(row, &out);
  AppendEscaped(qualifier, &out);
  return out;
}

std::string EncodeKey(std::string_view row, std::string_view qualifier, int64_t timestamp,
                      CellType type) {
  std::string out;
  out.reserve(row.size() + qualifier.size() + 13);
  AppendEscaped(row, &out);
  AppendEscaped(qualifier, &out);
  AppendBigEndian64(~static_cast<uint64_t>(timestamp), &out);
  out.push_back(static_cast<char>(0xff - static_cast<uint8_t>(type)));
  return out;
}

bool DecodeKey(std::string_view key, DecodedKey* out) {
  out->row.clear();
  out->qualifier.clear();
  size_t pos = 0;
  if (!ReadEscaped(key, &pos, &out->row)) return false;
  if (!ReadEscaped(key, &pos, &out->qualifier)) return false;
  if (key.size() != pos + 9) return false;
  out->timestamp = static_cast<int64_t>(~ReadBigEndian64(key.substr(pos, 8)));
  uint8_t code = 0xff - static_cast<uint8_t>(key[pos + 8]);
  return ToCellType(code, &out->type);
}

bool ParseCellSuffix(std::string_view key, size_t row_prefix_length, std::string* scratch,
                     CellSuffix* out) {
  if (key.size() < row_prefix_length + 11) return false;
  const size_t end = key.size() - 9;  // start of ~timestamp
  if (key[end - 2] != kEscape || key[end - 1] != kTerminator) return false;
  std::string_view escaped = key.substr(row_prefix_length, end - 2 - row_prefix_length);
  if (escaped.find(kEscape) == std::string_view::npos) {
    out->qualifier = escaped;
  } else {
    scratch->clear();
    for (size_t i = 0; i < escaped.size(); ++i) {
      scratch->push_back(escaped[i]);
      if (escaped[i] == kEscape) {
        if (i + 1 >= escaped.size() || escaped[i + 1] != kEscapedZero) return false;
        ++i;
      }
    }
    out->qualifier = *scratch;
  }
  out->timestamp = static_cast<int64_t>(~ReadBigEndian64(key.substr(end, 8)));
  uint8_t code = 0xff - static_cast<uint8_t>(key[end + 8]);
  return ToCellType(code, &out->type);
}

size_t RowPrefixLength(std::string_view key) {
  size_t pos = 0;
  return ReadEscaped(key, &pos, nullptr) ? pos : 0;
}

size_t ColumnPrefixLength(std::string_view key) {
  size_t pos = 0;
  if (!ReadEscaped(key, &pos, nullptr)) return 0;
  return ReadEscaped(key, &pos, nullptr) ? pos : 0;
}

std::string EncodeValue(std::string_view value, std::optional<int64_t> ttl_ms) {
  std::string out;
  out.reserve(value.size() + 9);
  out.push_back(static_cast<char>(ttl_ms ? kHasTtl : 0));
  if (ttl_ms) AppendBigEndian64(static_cast<uint64_t>(*ttl_ms), &out);
  out.append(value);
  return out;
}

bool DecodeValue(std::string_view encoded, DecodedValue* out) {
  if (encoded.empty()) return false;
  uint8_t flags = static_cast<uint8_t>(encoded[0]);
  if (flags & ~kHasTtl) return false;
  if (flags & kHasTtl) {
    if (encoded.size() < 9) return false;
    out->ttl_ms = static_cast<int64_t>(ReadBigEndian64(encoded.substr(1, 8)));
    out->value = encoded.substr(9);
  } else {
    out->ttl_ms.reset();
    out->value = encoded.substr(1);
  }
  return true;
}

}  // namespace rtb::storage::internal
