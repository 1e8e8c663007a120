// Inflates compressed request bodies (Content-Encoding gzip or deflate) with
// zlib under a hard output limit, so that a small body cannot expand into
// unbounded memory (a "zip bomb").
//
// One inflater per I/O thread: inflation runs to completion inside one call,
// so the zlib state (about 40 KiB with its window) is reused across all the
// connections of the thread instead of being held per connection.
//
// Thread-safety: not thread-safe; one instance per thread.
#ifndef RTB_BIDDER_HTTP_INTERNAL_BODY_INFLATER_H_
#define RTB_BIDDER_HTTP_INTERNAL_BODY_INFLATER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace rtb::bidder::internal {

enum class BodyEncoding {
  kGzip,     // RFC 1952; several members in a row are one body
  kDeflate,  // HTTP's "deflate": the zlib format of RFC 1950
};

class BodyInflater {
 public:
  BodyInflater();
  ~BodyInflater();
  BodyInflater(const BodyInflater&) = delete;
  BodyInflater& operator=(const BodyInflater&) = delete;

  // Replaces `out` with the inflated `in`. ResourceExhausted when the result
  // would exceed `limit` bytes (inflation stops there); InvalidArgument when
  // `in` is not one complete, valid stream of `encoding` (corrupt, truncated,
  // or followed by other bytes). `out` keeps its capacity across calls.
  absl::Status Inflate(std::string_view in, BodyEncoding encoding, size_t limit, std::string& out);

 private:
  struct Stream;
  std::unique_ptr<Stream> stream_;
};

}  // namespace rtb::bidder::internal

#endif  // RTB_BIDDER_HTTP_INTERNAL_BODY_INFLATER_H_
