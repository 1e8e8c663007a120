#include "storage/internal/schema_codec.h"

#include <cstdint>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "storage/key_bytes.h"

namespace rtb::storage::internal {
namespace {

// Format 2 adds the descriptor values of tables and families; format 1
// files (without them) are still read.
constexpr std::string_view kFormat = "rtb-schemas-2";
constexpr std::string_view kFormatWithoutValues = "rtb-schemas-1";

class Writer {
 public:
  void Field(std::string_view bytes) {
    AppendBigEndian32(static_cast<uint32_t>(bytes.size()), &out_);
    out_.append(bytes);
  }
  void Number(int64_t v) { Field(absl::StrCat(v)); }
  void Map(const std::map<std::string, std::string>& map) {
    Number(static_cast<int64_t>(map.size()));
    for (const auto& [k, v] : map) {
      Field(k);
      Field(v);
    }
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

  bool Field(std::string* out) {
    if (in_.size() < 4) return false;
    const uint32_t n = ReadBigEndian32(in_);
    in_.remove_prefix(4);
    if (in_.size() < n) return false;
    out->assign(in_.substr(0, n));
    in_.remove_prefix(n);
    return true;
  }
  bool Number(int64_t* v) {
    std::string s;
    return Field(&s) && absl::SimpleAtoi(s, v);
  }
  template <typename T>
  bool Int(T* v) {
    int64_t n = 0;
    if (!Number(&n)) return false;
    *v = static_cast<T>(n);
    return true;
  }
  bool Map(std::map<std::string, std::string>* out) {
    int64_t n = 0;
    if (!Number(&n) || n < 0) return false;
    for (int64_t i = 0; i < n; ++i) {
      std::string k, v;
      if (!Field(&k) || !Field(&v)) return false;
      out->emplace(std::move(k), std::move(v));
    }
    return true;
  }
  bool done() const { return in_.empty(); }

 private:
  std::string_view in_;
};

}  // namespace

std::string EncodeSchemas(const std::vector<TableSchema>& schemas) {
  Writer w;
  w.Field(kFormat);
  w.Number(static_cast<int64_t>(schemas.size()));
  for (const TableSchema& t : schemas) {
    w.Field(t.name);
    w.Number(t.region_replication);
    w.Number(static_cast<int64_t>(t.split_keys.size()));
    for (const std::string& k : t.split_keys) w.Field(k);
    w.Map(t.descriptor_values);
    w.Number(static_cast<int64_t>(t.families.size()));
    for (const FamilyOptions& f : t.families) {
      w.Field(f.name);
      w.Number(f.max_versions);
      w.Number(f.min_versions);
      w.Number(f.ttl_seconds);
      w.Number(f.in_memory ? 1 : 0);
      w.Number(static_cast<int64_t>(f.bloom));
      w.Number(static_cast<int64_t>(f.compression));
      w.Number(f.fifo_compaction ? 1 : 0);
      w.Map(f.configuration);
      w.Map(f.descriptor_values);
    }
  }
  return w.Take();
}

absl::StatusOr<std::vector<TableSchema>> DecodeSchemas(std::string_view bytes) {
  Reader r(bytes);
  const absl::Status corrupt = absl::DataLossError("schema file is corrupt");
  std::string format;
  if (!r.Field(&format)) return corrupt;
  const bool with_values = format == kFormat;
  if (!with_values && format != kFormatWithoutValues) {
    return absl::DataLossError(absl::StrCat("schema file has unknown format '", format, "'"));
  }
  int64_t tables = 0;
  if (!r.Number(&tables) || tables < 0) return corrupt;
  std::vector<TableSchema> out;
  for (int64_t i = 0; i < tables; ++i) {
    TableSchema t;
    int64_t splits = 0, families = 0;
    if (!r.Field(&t.name) || !r.Int(&t.region_replication) || !r.Number(&splits)) return corrupt;
    for (int64_t s = 0; s < splits; ++s) {
      std::string k;
      if (!r.Field(&k)) return corrupt;
      t.split_keys.push_back(std::move(k));
    }
    if (with_values && !r.Map(&t.descriptor_values)) return corrupt;
    if (!r.Number(&families)) return corrupt;
    for (int64_t j = 0; j < families; ++j) {
      FamilyOptions f;
      int64_t in_memory = 0, fifo = 0, config = 0;
      if (!r.Field(&f.name) || !r.Int(&f.max_versions) || !r.Int(&f.min_versions) ||
          !r.Number(&f.ttl_seconds) || !r.Number(&in_memory) || !r.Int(&f.bloom) ||
          !r.Int(&f.compression) || !r.Number(&fifo) || !r.Number(&config)) {
        return corrupt;
      }
      f.in_memory = in_memory != 0;
      f.fifo_compaction = fifo != 0;
      for (int64_t c = 0; c < config; ++c) {
        std::string k, v;
        if (!r.Field(&k) || !r.Field(&v)) return corrupt;
        f.configuration.emplace(std::move(k), std::move(v));
      }
      if (with_values && !r.Map(&f.descriptor_values)) return corrupt;
      t.families.push_back(std::move(f));
    }
    out.push_back(std::move(t));
  }
  if (!r.done()) return corrupt;
  return out;
}

}  // namespace rtb::storage::internal
