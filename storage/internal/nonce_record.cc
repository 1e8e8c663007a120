#include "storage/internal/nonce_record.h"

#include "storage/key_bytes.h"

namespace rtb::storage::internal {
namespace {

void AppendField(std::string_view bytes, std::string* out) {
  AppendBigEndian32(static_cast<uint32_t>(bytes.size()), out);
  out->append(bytes);
}

// Reads a fixed-width integer off the front of `in`; false when short.
bool TakeInteger(std::string_view* in, size_t width, uint64_t* value) {
  if (in->size() < width) return false;
  *value = ReadBigEndian(in->substr(0, width));
  in->remove_prefix(width);
  return true;
}

bool TakeField(std::string_view* in, std::string_view* field) {
  uint64_t size = 0;
  if (!TakeInteger(in, 4, &size) || in->size() < size) return false;
  *field = in->substr(0, size);
  in->remove_prefix(size);
  return true;
}

class NonceCompactionFilter : public rocksdb::CompactionFilter {
 public:
  explicit NonceCompactionFilter(int64_t now_ms) : now_ms_(now_ms) {}
  const char* Name() const override { return "rtb.NonceCompactionFilter"; }

  bool Filter(int /*level*/, const rocksdb::Slice& /*key*/, const rocksdb::Slice& value,
              std::string* /*new_value*/, bool* /*value_changed*/) const override {
    if (value.size() < 8) return true;
    const auto expires_ms =
        static_cast<int64_t>(ReadBigEndian64(std::string_view(value.data(), value.size())));
    return expires_ms <= now_ms_;
  }

 private:
  const int64_t now_ms_;
};

class NonceCompactionFilterFactory : public rocksdb::CompactionFilterFactory {
 public:
  explicit NonceCompactionFilterFactory(std::shared_ptr<Clock> clock) : clock_(std::move(clock)) {}
  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& /*context*/) override {
    return std::make_unique<NonceCompactionFilter>(clock_->NowMillis());
  }
  // Flushes drop expired records too, so a quiet store does not carry them
  // until its next compaction.
  bool ShouldFilterTableFileCreation(rocksdb::TableFileCreationReason reason) const override {
    return reason == rocksdb::TableFileCreationReason::kCompaction ||
           reason == rocksdb::TableFileCreationReason::kFlush;
  }
  const char* Name() const override { return "rtb.NonceCompactionFilterFactory"; }

 private:
  const std::shared_ptr<Clock> clock_;
};

}  // namespace

std::string NonceKey(uint64_t nonce, std::string_view table, std::string_view row) {
  std::string key;
  key.reserve(8 + table.size() + 1 + row.size());
  AppendBigEndian64(nonce, &key);
  key.append(table);
  key.push_back('\0');
  key.append(row);
  return key;
}

std::string EncodeNonceRecord(const NonceRecord& record) {
  std::string out;
  AppendBigEndian64(static_cast<uint64_t>(record.expires_ms), &out);
  AppendBigEndian32(static_cast<uint32_t>(record.result.cells.size()), &out);
  for (const Cell& c : record.result.cells) {
    AppendField(c.family, &out);
    AppendField(c.qualifier, &out);
    AppendBigEndian64(static_cast<uint64_t>(c.timestamp), &out);
    AppendField(c.value, &out);
  }
  return out;
}

std::optional<NonceRecord> DecodeNonceRecord(std::string_view bytes) {
  NonceRecord record;
  uint64_t expires = 0, cells = 0;
  if (!TakeInteger(&bytes, 8, &expires) || !TakeInteger(&bytes, 4, &cells)) return std::nullopt;
  record.expires_ms = static_cast<int64_t>(expires);
  for (uint64_t i = 0; i < cells; ++i) {
    std::string_view family, qualifier, value;
    uint64_t ts = 0;
    if (!TakeField(&bytes, &family) || !TakeField(&bytes, &qualifier) ||
        !TakeInteger(&bytes, 8, &ts) || !TakeField(&bytes, &value)) {
      return std::nullopt;
    }
    record.result.cells.emplace_back(family, qualifier, static_cast<int64_t>(ts), value);
  }
  if (!bytes.empty()) return std::nullopt;
  return record;
}

std::shared_ptr<rocksdb::CompactionFilterFactory> NewNonceCompactionFilterFactory(
    std::shared_ptr<Clock> clock) {
  return std::make_shared<NonceCompactionFilterFactory>(std::move(clock));
}

}  // namespace rtb::storage::internal
