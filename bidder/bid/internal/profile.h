// A device's profile as the auction reads it: a view over the row the
// profile Get returned from `profiles` (families `seg` and `fc`, see
// storage/schemas.h), or an empty profile when there was no lookup, no row,
// or the lookup failed or missed its deadline.
//
//   seg : qualifier = segment id,          value = score byte
//   fc  : qualifier = campaignId|yyyymmdd, value = 8-byte big-endian counter
//
// Segment membership is the presence of the column; the score byte is not
// thresholded (a batch job that wants a device out of a segment deletes the
// column). Segment ids are ours, not the ids of user.data[].segment in the
// request, which belong to the exchange's data providers and never match a
// campaign's required_segments.
//
// Thread-safety: a view; the row must outlive it and not change meanwhile.
#ifndef RTB_BIDDER_BID_INTERNAL_PROFILE_H_
#define RTB_BIDDER_BID_INTERNAL_PROFILE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "storage/schemas.h"
#include "storage/types.h"

namespace rtb::bidder {

class Profile {
 public:
  // The empty profile.
  Profile() = default;
  // `row` cells must be in storage order (family, qualifier, newest first),
  // as every Store returns them.
  explicit Profile(const storage::RowResult& row);

  // True when the profile holds data (a lookup found the row).
  bool present() const { return cells_ != nullptr && !cells_->empty(); }

  bool HasSegment(std::string_view segment_id) const;
  // The fc counter under `qualifier`, 0 when absent or not 8 bytes wide.
  int64_t Counter(std::string_view qualifier) const;

 private:
  // A run of the row's cells, [first, last), read in place: a cached row's
  // cells are packed, and unpacking them would cost more than the lookup.
  struct CellRange {
    size_t first = 0;
    size_t last = 0;
  };
  CellRange FamilyCells(std::string_view family) const;
  std::optional<storage::CellView> Find(CellRange cells, std::string_view qualifier) const;

  const storage::CellList* cells_ = nullptr;
  CellRange segments_;
  CellRange counters_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_INTERNAL_PROFILE_H_
