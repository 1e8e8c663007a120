#include "pricing/internal/model_board.h"

#include <string>
#include <vector>

#include "pricing/internal/pricing_rows.h"
#include "storage/schemas.h"

namespace rtb::pricing::internal {

absl::Status WriteModel(storage::Store& store, const PricingModel& model, size_t chunk_bytes) {
  const std::vector<std::string> chunks = EncodeModelChunks(model, chunk_bytes);
  const int64_t version = model.computed_at_ms;
  const std::string family(kModelFamily);
  for (size_t i = 0; i < chunks.size(); ++i) {
    storage::Put put;
    put.row = ModelChunkRow(version, static_cast<int>(i));
    put.values.push_back({family, std::string(kModelChunkQualifier), chunks[i], std::nullopt});
    put.ttl_ms = kModelTtlMs;
    if (absl::Status s = store.Put(storage::kPricingTable, put); !s.ok()) return s;
  }
  storage::Put pointer;
  pointer.row = std::string(kModelPointerRow);
  pointer.values.push_back({family, std::string(kModelPointerQualifier),
                            ModelPointerValue(version, static_cast<int>(chunks.size())),
                            std::nullopt});
  pointer.ttl_ms = kModelTtlMs;
  return store.Put(storage::kPricingTable, pointer);
}

absl::StatusOr<std::optional<PricingModel>> ReadModel(storage::Store& store,
                                                      int64_t known_version) {
  storage::Get get;
  get.row = std::string(kModelPointerRow);
  get.columns = {storage::Column{std::string(kModelFamily), std::string(kModelPointerQualifier)}};
  absl::StatusOr<storage::RowResult> row = store.Get(storage::kPricingTable, get);
  if (!row.ok()) return row.status();
  const std::optional<std::string_view> value = row->Value(kModelFamily, kModelPointerQualifier);
  if (!value.has_value()) return std::optional<PricingModel>();
  const std::optional<ModelPointer> pointer = ParseModelPointer(*value);
  if (!pointer.has_value() || pointer->version <= known_version) {
    return std::optional<PricingModel>();
  }
  std::vector<storage::Get> gets(pointer->chunks);
  for (int i = 0; i < pointer->chunks; ++i) {
    gets[i].row = ModelChunkRow(pointer->version, i);
    gets[i].columns = {
        storage::Column{std::string(kModelFamily), std::string(kModelChunkQualifier)}};
  }
  absl::StatusOr<std::vector<storage::RowResult>> chunks =
      store.MultiGet(storage::kPricingTable, gets);
  if (!chunks.ok()) return chunks.status();
  std::string bytes;
  for (const storage::RowResult& chunk : *chunks) {
    const std::optional<std::string_view> part = chunk.Value(kModelFamily, kModelChunkQualifier);
    if (!part.has_value()) return std::optional<PricingModel>();
    bytes.append(*part);
  }
  return DecodeModel(bytes);
}

}  // namespace rtb::pricing::internal
