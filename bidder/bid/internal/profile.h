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

#include <cstdint>
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
  bool present() const { return present_; }

  bool HasSegment(std::string_view segment_id) const;
  // The fc counter under `qualifier`, 0 when absent or not 8 bytes wide.
  int64_t Counter(std::string_view qualifier) const;

 private:
  // A run of cells; a plain pair of iterators rather than
  // std::ranges::subrange, which clang 14 (the Fuzz build) cannot
  // instantiate over CellList's iterators with libstdc++ 12.
  struct CellRange {
    storage::CellList::const_iterator first;
    storage::CellList::const_iterator last;
    storage::CellList::const_iterator begin() const { return first; }
    storage::CellList::const_iterator end() const { return last; }
  };
  static CellRange FamilyCells(const storage::CellList& cells, std::string_view family);
  static const storage::Cell* Find(CellRange cells, std::string_view qualifier);

  bool present_ = false;
  CellRange segments_;
  CellRange counters_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_INTERNAL_PROFILE_H_
