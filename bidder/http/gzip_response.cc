#include "bidder/http/gzip_response.h"

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bidder/http/internal/string_views.h"

namespace rtb::bidder {
namespace {

// The q-value of one Accept-Encoding element's parameters (";q=0.5"): 1 when
// absent, 0 when malformed (an element we cannot read is not an offer).
double QValue(absl::string_view parameters) {
  double q = 1;
  for (absl::string_view parameter : absl::StrSplit(parameters, ';', absl::SkipWhitespace())) {
    parameter = absl::StripAsciiWhitespace(parameter);
    if (!absl::StartsWithIgnoreCase(parameter, "q=")) continue;
    const absl::string_view digits = absl::StripAsciiWhitespace(parameter.substr(2));
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), q);
    if (error != std::errc() || end != digits.data() + digits.size() || q < 0 || q > 1) return 0;
  }
  return q;
}

// Window of 32 KiB (15 bits) plus 16: the gzip wrapper; zlib's default
// memory level. On the corpus's answers a smaller window (4 KiB) or hash
// (memory level 5) was no faster, and memory level 3 was half again slower.
constexpr int kGzipWindowBits = 15 + 16;
constexpr int kMemLevel = 8;

// One thread's deflate state, kept from answer to answer.
class Deflater {
 public:
  Deflater() = default;
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;
  ~Deflater() {
    if (level_ != 0) deflateEnd(&stream_);
  }

  absl::Status Compress(std::string_view in, int level, std::string* out) {
    if (level != level_) {
      if (level_ != 0) deflateEnd(&stream_);
      level_ = 0;
      stream_ = z_stream{};
      if (deflateInit2(&stream_, level, Z_DEFLATED, kGzipWindowBits, kMemLevel,
                       Z_DEFAULT_STRATEGY) != Z_OK) {
        return absl::InternalError("gzip: deflateInit2 failed");
      }
      level_ = level;
    } else if (deflateReset(&stream_) != Z_OK) {
      return absl::InternalError("gzip: deflateReset failed");
    }
    // deflateBound is enough for one deflate(Z_FINISH) call to finish.
    out->resize(deflateBound(&stream_, static_cast<uLong>(in.size())));
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    stream_.avail_in = static_cast<uInt>(in.size());
    stream_.next_out = reinterpret_cast<Bytef*>(out->data());
    stream_.avail_out = static_cast<uInt>(out->size());
    const int result = deflate(&stream_, Z_FINISH);
    if (result != Z_STREAM_END) {
      return absl::InternalError(absl::StrCat("gzip: deflate returned ", result));
    }
    out->resize(out->size() - stream_.avail_out);
    return absl::OkStatus();
  }

 private:
  z_stream stream_{};
  int level_ = 0;  // 0: not initialised
};

}  // namespace

bool AcceptsGzip(std::string_view accept_encoding) {
  std::optional<double> gzip;
  double any = 0;
  for (absl::string_view element :
       absl::StrSplit(internal::AbslView(accept_encoding), ',', absl::SkipWhitespace())) {
    const size_t semicolon = std::min(element.find(';'), element.size());
    const absl::string_view coding = absl::StripAsciiWhitespace(element.substr(0, semicolon));
    const double q = QValue(element.substr(semicolon));
    if (absl::EqualsIgnoreCase(coding, "gzip") || absl::EqualsIgnoreCase(coding, "x-gzip")) {
      gzip = std::max(gzip.value_or(0), q);
    } else if (coding == "*") {
      any = std::max(any, q);
    }
  }
  return gzip.has_value() ? *gzip > 0 : any > 0;
}

absl::Status GzipInPlace(std::string* body, int level) {
  if (level < 1 || level > 9) {
    return absl::InvalidArgumentError(absl::StrCat("gzip: level ", level, " is not in 1-9"));
  }
  if (body->size() > std::numeric_limits<uInt>::max() / 2) {
    return absl::InvalidArgumentError("gzip: body too large");
  }
  thread_local Deflater deflater;
  thread_local std::string compressed;
  if (absl::Status status = deflater.Compress(*body, level, &compressed); !status.ok()) {
    return status;
  }
  body->swap(compressed);
  return absl::OkStatus();
}

}  // namespace rtb::bidder
