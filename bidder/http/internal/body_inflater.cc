#include "bidder/http/internal/body_inflater.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"

namespace rtb::bidder::internal {

struct BodyInflater::Stream {
  z_stream zs{};
  bool initialised = false;
  ~Stream() {
    if (initialised) inflateEnd(&zs);
  }
};

BodyInflater::BodyInflater() : stream_(std::make_unique<Stream>()) {}
BodyInflater::~BodyInflater() = default;

namespace {

const char* EncodingName(BodyEncoding encoding) {
  return encoding == BodyEncoding::kGzip ? "gzip" : "deflate";
}

absl::Status TooLarge(size_t limit) {
  return absl::ResourceExhaustedError(absl::StrCat("inflated body exceeds ", limit, " bytes"));
}

}  // namespace

absl::Status BodyInflater::Inflate(std::string_view in, BodyEncoding encoding, size_t limit,
                                   std::string& out) {
  out.clear();
  if (in.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("empty ", EncodingName(encoding), " body"));
  }
  if (in.size() > std::numeric_limits<uInt>::max()) {
    return absl::InvalidArgumentError("compressed body too large for zlib");
  }
  // 16 + MAX_WBITS selects the gzip wrapper, MAX_WBITS the zlib one.
  const int window_bits = encoding == BodyEncoding::kGzip ? 16 + MAX_WBITS : MAX_WBITS;
  z_stream& zs = stream_->zs;
  if (!stream_->initialised) {
    zs = z_stream{};
    if (inflateInit2(&zs, window_bits) != Z_OK) {
      return absl::InternalError("zlib inflateInit2 failed");
    }
    stream_->initialised = true;
  } else if (inflateReset2(&zs, window_bits) != Z_OK) {
    return absl::InternalError("zlib inflateReset2 failed");
  }

  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  // One byte beyond the limit tells "exactly the limit" from "more".
  const size_t capacity_limit = limit == std::numeric_limits<size_t>::max() ? limit : limit + 1;
  size_t produced = 0;
  out.resize(std::min(capacity_limit, std::max<size_t>(in.size() * 4, 4096)));
  for (;;) {
    if (produced == out.size()) {
      if (out.size() >= capacity_limit) return TooLarge(limit);
      out.resize(std::min(capacity_limit, out.size() * 2));
    }
    const size_t room = std::min<size_t>(out.size() - produced, std::numeric_limits<uInt>::max());
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    zs.avail_out = static_cast<uInt>(room);
    const int rc = inflate(&zs, Z_NO_FLUSH);
    produced += room - zs.avail_out;
    if (produced > limit) return TooLarge(limit);
    switch (rc) {
      case Z_OK:
        continue;
      case Z_STREAM_END:
        if (zs.avail_in == 0) {
          out.resize(produced);
          return absl::OkStatus();
        }
        if (encoding == BodyEncoding::kDeflate) {
          return absl::InvalidArgumentError("bytes after the end of the deflate body");
        }
        // RFC 1952 allows several gzip members in a row.
        if (inflateReset(&zs) != Z_OK) return absl::InternalError("zlib inflateReset failed");
        continue;
      case Z_BUF_ERROR:
        if (zs.avail_out == 0) continue;  // more room is made at the top of the loop
        return absl::InvalidArgumentError(
            absl::StrCat("truncated ", EncodingName(encoding), " body"));
      case Z_NEED_DICT:
        return absl::InvalidArgumentError(
            absl::StrCat(EncodingName(encoding), " body needs a preset dictionary"));
      case Z_MEM_ERROR:
        return absl::ResourceExhaustedError("zlib out of memory");
      default:
        return absl::InvalidArgumentError(absl::StrCat("corrupt ", EncodingName(encoding),
                                                       " body: ", zs.msg ? zs.msg : "bad data"));
    }
  }
}

}  // namespace rtb::bidder::internal
