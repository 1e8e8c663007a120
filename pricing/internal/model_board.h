// Where rtb-pacer publishes the pricing model for the bidders (pacing.mode
// pacer): the chunks of one model, then the pointer to them, in the `pricing`
// table (internal/pricing_rows.h). A reader follows the pointer, so it never
// sees a model half written; every cell carries a two-day TTL, so the
// models of a pacer that is gone stop being read long after their age has
// stopped the shading (pricing.model_max_age_s).
//
// Thread-safety: one thread per call; the store is thread-safe.
#ifndef RTB_PRICING_INTERNAL_MODEL_BOARD_H_
#define RTB_PRICING_INTERNAL_MODEL_BOARD_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "pricing/internal/model_codec.h"
#include "storage/store.h"

namespace rtb::pricing::internal {

// Writes `model` under version model.computed_at_ms: every chunk, then the
// pointer.
absl::Status WriteModel(storage::Store& store, const PricingModel& model,
                        size_t chunk_bytes = kModelChunkBytes);

// The published model when its version is newer than `known_version`;
// nullopt when there is none, it is not newer, or it does not decode.
absl::StatusOr<std::optional<PricingModel>> ReadModel(storage::Store& store, int64_t known_version);

}  // namespace rtb::pricing::internal

#endif  // RTB_PRICING_INTERNAL_MODEL_BOARD_H_
